package analytics_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/store"
)

// sums are what a fresh fold of one match says the tables must hold.
type sums struct {
	dice, successes                     int64
	attacks                             int64
	shots, hits, wounds, saves, unsaved int64
	casualties                          int64
	expUnsaved                          float64
}

// freshFold folds a match from event 1, independently of the analytics
// package: dice straight from the dice.rolled events, attacks from every
// new LastAttack the fold shows.
func freshFold(t *testing.T, st store.Store, id string) sums {
	t.Helper()
	f := fold.NewFolder(id, editions.Lookup)
	var s sums
	var last *projector.Attack
	err := st.Scan(context.Background(), id, 1, func(e events.Event) error {
		if err := f.Apply(e); err != nil {
			return err
		}
		_, p := f.Last()
		if r, ok := p.(*events.DiceRolled); ok {
			s.dice += int64(len(r.Values))
			switch r.Purpose {
			case "hit", "wound", "save", "lookoutsir":
				s.successes += int64(projector.CountAtLeast(r.Values, r.Need))
			}
		}
		if la := f.State.LastAttack; la != nil && la != last {
			last = la
			s.attacks++
			s.shots += int64(la.Shots)
			s.hits += int64(la.Hits)
			s.wounds += int64(la.Wounds)
			s.saves += int64(la.Saves)
			s.unsaved += int64(la.Unsaved)
			s.casualties += int64(len(la.Casualties))
			s.expUnsaved += la.Expected
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// For generated matches of every edition, counts and sums in rolls and
// attacks equal a fresh fold of each match, and the tallies the
// projector keeps.
func TestTablesAgreeWithFreshFold(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for _, ed := range editions.IDs() {
		ids = append(ids, e.generate(t, ed, 8, 3).Matches...)
	}
	st := catchUp(t, e.up)
	if st.Behind != len(ids) || st.Rows == 0 {
		t.Fatalf("first round: %+v for %d matches", st, len(ids))
	}
	for _, id := range ids {
		want := freshFold(t, e.st, id)
		r := query(t, e.db, fmt.Sprintf(`SELECT count(*), coalesce(sum(success::INT), 0) FROM rolls WHERE match = '%s'`, id))[0]
		a := query(t, e.db, fmt.Sprintf(`SELECT count(*), coalesce(sum(shots), 0), coalesce(sum(hits), 0), coalesce(sum(wounds), 0),
			coalesce(sum(saves), 0), coalesce(sum(unsaved), 0), coalesce(sum(casualties), 0), coalesce(sum(exp_unsaved), 0)
			FROM attacks WHERE match = '%s'`, id))[0]
		got := sums{dice: r[0].(int64), successes: r[1].(int64), attacks: a[0].(int64), shots: a[1].(int64), hits: a[2].(int64),
			wounds: a[3].(int64), saves: a[4].(int64), unsaved: a[5].(int64), casualties: a[6].(int64), expUnsaved: a[7].(float64)}
		if math.Abs(got.expUnsaved-want.expUnsaved) > 1e-6 {
			t.Errorf("%s: expected unsaved %v, fold %v", id, got.expUnsaved, want.expUnsaved)
		}
		got.expUnsaved = want.expUnsaved
		if got != want {
			t.Errorf("%s: tables %+v\n fresh fold %+v", id, got, want)
		}
		if want.dice == 0 || want.attacks == 0 {
			t.Errorf("%s: a generated match without dice or attacks", id)
		}
		// Per player: the projector's own tallies.
		s, _, err := fold.Fold(context.Background(), e.st, id, 0, editions.Lookup)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Players {
			tally := s.TallyOf(p.ID)
			row := query(t, e.db, fmt.Sprintf(`SELECT (SELECT count(*) FROM rolls WHERE match = '%[1]s' AND roller = '%[2]s'),
				coalesce(sum(exp_damage), 0), coalesce(sum(exp_unsaved), 0), coalesce(sum(unsaved), 0)::BIGINT
				FROM attacks WHERE match = '%[1]s' AND attacker = '%[2]s'`, id, p.ID))[0]
			if row[0].(int64) != int64(tally.Dice) || math.Abs(row[1].(float64)-tally.ExpectedWounds) > 1e-6 ||
				math.Abs(row[2].(float64)-tally.ExpectedUnsaved) > 1e-6 || row[3].(int64) != int64(tally.Unsaved) {
				t.Errorf("%s %s: %d dice, %.3f expected wounds, %.3f expected unsaved, %d unsaved; tally %+v", id, p.ID, row[0], row[1], row[2], row[3], tally)
			}
			// match_players is the tally, with the side and the result.
			mp := query(t, e.db, fmt.Sprintf(`SELECT models_lost, models_killed, wounds_caused, exp_wounds, unsaved, exp_unsaved, dice, result, side
				FROM match_players WHERE match = '%s' AND player = '%s'`, id, p.ID))
			opp := s.TallyOf(s.Opponent(p.ID))
			if len(mp) != 1 || mp[0][0].(int64) != int64(tally.ModelsLost) || mp[0][1].(int64) != int64(opp.ModelsLost) ||
				mp[0][2].(int64) != int64(tally.WoundsCaused) || mp[0][3].(float64) != tally.ExpectedWounds ||
				mp[0][4].(int64) != int64(tally.Unsaved) || mp[0][5].(float64) != tally.ExpectedUnsaved || mp[0][6].(int64) != int64(tally.Dice) {
				t.Errorf("%s %s: match_players %v; tally %+v, opponent lost %d", id, p.ID, mp, tally, opp.ModelsLost)
			} else if won := s.Ended && s.Winner == p.ID; (mp[0][7] == "won") != won || (mp[0][8] == int64(1)) != (p.ID == s.First) {
				t.Errorf("%s %s: result %v side %v; winner %q first %q", id, p.ID, mp[0][7], mp[0][8], s.Winner, s.First)
			}
		}
		m := query(t, e.db, fmt.Sprintf(`SELECT events, head, ended, turns, edition, score, models_lost FROM matches WHERE match = '%s'`, id))[0]
		lost0, lost1 := s.TallyOf(s.Players[0].ID).ModelsLost, s.TallyOf(s.Players[1].ID).ModelsLost
		if m[5] != fmt.Sprintf("%d,%d", lost1, lost0) || m[6] != fmt.Sprintf("%d,%d", lost0, lost1) {
			t.Errorf("%s: score %v, models lost %v; the players lost %d and %d", id, m[5], m[6], lost0, lost1)
		}
		if m[0].(int64) != int64(s.Seq) || m[1].(string) != s.Head.String() || m[2].(bool) != s.Ended || m[3].(int64) != int64(s.Turn) || m[4] != s.Edition {
			t.Errorf("%s: matches row %v, state seq %d ended %v turn %d", id, m, s.Seq, s.Ended, s.Turn)
		}
	}
	if again := catchUp(t, e.up); again.Behind != 0 || again.Rows != 0 {
		t.Fatalf("a second round with nothing new folded %+v", again)
	}
}

// Kept current round by round, with the folds forgotten after every
// round so each one restores from the store's snapshots (often in the
// middle of an attack), the tables hold exactly the rows of one fold from
// scratch.
func TestIncrementalEqualsOneFold(t *testing.T) {
	src := newEnv(t)
	for _, ed := range editions.IDs() {
		src.generate(t, ed, 1, 9)
	}
	src.measured(t, "tape") // the measurements, witnessed and ruled on
	ctx := context.Background()
	dst := newEnv(t)
	infos, err := src.st.Matches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for _, mi := range infos {
		var evs []events.Event
		if err := src.st.Scan(ctx, mi.ID, 1, func(ev events.Event) error { evs = append(evs, ev); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(evs); {
			n := min(1+(i*7)%13, len(evs)-i) // uneven steps, so rounds stop anywhere
			if err := dst.st.Append(ctx, mi.ID, uint64(i), evs[i:i+n]); err != nil {
				t.Fatal(err)
			}
			i += n
			catchUp(t, dst.up)
			rounds++
			if rounds%2 == 0 {
				dst.up.Forget() // as after a restart: restore from the checkpoint
			}
		}
	}
	fresh, freshUp := dst.openDB(t, "fresh.duckdb")
	catchUp(t, freshUp)
	got, want := dump(t, dst.db), dump(t, fresh)
	for _, tb := range analytics.Tables {
		if len(want[tb.Name]) == 0 && tb.Name != analytics.TableCharges {
			t.Errorf("table %s is empty", tb.Name)
		}
		if !reflect.DeepEqual(got[tb.Name], want[tb.Name]) {
			t.Errorf("table %s: %d rows incrementally over %d rounds, %d in one fold; first difference: %s",
				tb.Name, len(got[tb.Name]), rounds, len(want[tb.Name]), firstDiff(got[tb.Name], want[tb.Name]))
		}
	}
}

func firstDiff(a, b [][]any) string {
	for i := 0; i < min(len(a), len(b)); i++ {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("row %d: %v vs %v", i, a[i], b[i])
		}
	}
	return "lengths differ"
}

// A table file kept for another store (a replaced data directory) is
// noticed by its checkpoints' hashes: matches the store lacks are dropped,
// a match whose events differ is rebuilt.
func TestCheckpointsFollowTheStore(t *testing.T) {
	a := newEnv(t)
	a.generate(t, "3e", 3, 1)
	catchUp(t, a.up)
	before := dump(t, a.db)
	if err := a.db.Close(); err != nil {
		t.Fatal(err)
	}
	// Store b has match gen-3e-1-0 with other digital dice, and not the others.
	b := newEnv(t)
	b.generate(t, "3e", 1, 1)
	db, err := duckdb.Open(context.Background(), filepath.Join(a.dir, "analytics.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	catchUp(t, &analytics.Updater{Store: b.st, Lookup: editions.Lookup, Sink: db})
	after := dump(t, db)
	fresh, freshUp := b.openDB(t, "fresh.duckdb")
	catchUp(t, freshUp)
	want := dump(t, fresh)
	for _, tb := range analytics.Tables {
		if !reflect.DeepEqual(after[tb.Name], want[tb.Name]) {
			t.Errorf("%s after switching stores: %s", tb.Name, firstDiff(after[tb.Name], want[tb.Name]))
		}
	}
	if len(after[analytics.TableMatches]) != 1 || reflect.DeepEqual(before[analytics.TableRolls][:10], after[analytics.TableRolls][:10]) {
		t.Fatalf("the tables did not follow the new store: %d matches", len(after[analytics.TableMatches]))
	}
}

// A round with a budget folds at least one match and says how many are
// left, so a caller looping on it always finishes.
func TestBudgetedRoundsProgress(t *testing.T) {
	e := newEnv(t)
	res := e.generate(t, "3e", 5, 11)
	rounds, folded := 0, 0
	for {
		st, err := e.up.CatchUp(context.Background(), analytics.Round{Budget: 1})
		if err != nil {
			t.Fatal(err)
		}
		rounds++
		folded += st.Folded
		if st.Folded != 1 || st.Remaining != len(res.Matches)-folded {
			t.Fatalf("round %d: %+v", rounds, st)
		}
		if st.Remaining == 0 {
			break
		}
	}
	if rounds != len(res.Matches) {
		t.Fatalf("%d rounds for %d matches", rounds, len(res.Matches))
	}
}
