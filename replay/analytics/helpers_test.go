package analytics_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// env is a real bbolt store, a recorder on it, and an analytics database
// kept by an updater.
type env struct {
	dir string
	st  *bolt.Store
	rec *recorder.Recorder
	db  *duckdb.DB
	up  *analytics.Updater
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "events.db"), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := &env{dir: dir, st: st, rec: recorder.New(st, recorder.Options{Rules: editions.Lookup})}
	e.db, e.up = e.openDB(t, "analytics.duckdb")
	return e
}

// openDB opens another analytics database on the same store.
func (e *env) openDB(t testing.TB, name string) (*duckdb.DB, *analytics.Updater) {
	t.Helper()
	db, err := duckdb.Open(context.Background(), filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, &analytics.Updater{Store: e.st, Lookup: editions.Lookup, Sink: db}
}

func (e *env) generate(t testing.TB, edition string, n int, seed uint64) generate.Result {
	t.Helper()
	res, err := generate.Run(context.Background(), generate.Direct{Recorder: e.rec}, editions.Lookup,
		generate.Options{Edition: edition, Matches: n, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func catchUp(t testing.TB, up *analytics.Updater) api.SyncStats {
	t.Helper()
	st, err := up.CatchUp(context.Background(), analytics.Round{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func query(t testing.TB, db *duckdb.DB, q string) [][]any {
	t.Helper()
	r, err := db.Query(context.Background(), q, 0)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r.Rows
}

// dump returns every table's rows in key order, for comparing databases.
func dump(t testing.TB, db *duckdb.DB) map[string][][]any {
	t.Helper()
	out := map[string][][]any{}
	for _, tb := range analytics.Tables {
		q := "SELECT * FROM " + tb.Name + " ORDER BY "
		for i, k := range tb.Key {
			if i > 0 {
				q += ", "
			}
			q += `"` + k + `"`
		}
		out[tb.Name] = query(t, db, q)
	}
	return out
}

// playDirect records a match straight into the store, without a recorder:
// each player's dice come from their own source (seeded, so runs repeat),
// recorded with the source given. Returns the dice each player rolled.
// The match is appended in one call when it ends: one bbolt transaction
// per match instead of one per event (70 s → 2 s for the fair-dice
// seasons under -race); the store holds the same events either way.
func playDirect(t testing.TB, st *bolt.Store, id string, setup events.MatchCreated, dice map[string]sim.Dice, source map[string]string, turns int) map[string]int {
	t.Helper()
	ctx := context.Background()
	r, err := editions.Lookup(setup.Edition)
	if err != nil {
		t.Fatal(err)
	}
	s := projector.New(id)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	var played []events.Event
	record := func(actor events.Actor, p events.Payload) {
		e, err := events.New(id, s.Seq+1, s.Head, now, actor, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := projector.ApplyDecoded(r, s, &e, p); err != nil {
			t.Fatal(err)
		}
		played = append(played, e)
		now += int64(time.Second)
	}
	record(events.Actor{Kind: events.ActorSystem}, &setup)
	ap := &sim.Autoplay{Rules: r, MaxTurns: turns, Dice: sim.NewDice(0)} // its values are replaced below
	rolled := map[string]int{}
	for guard := 0; guard < 100_000; guard++ {
		actor, c, done := ap.Next(s)
		if done {
			if err := st.Append(ctx, id, 0, played); err != nil {
				t.Fatal(err)
			}
			return rolled
		}
		if c.Type == projector.CmdRoll {
			c.Values = make([]int, s.Pending.Dice)
			for i := range c.Values {
				c.Values[i] = dice[actor.ID].D6()
			}
			c.Source = source[actor.ID]
			rolled[actor.ID] += len(c.Values)
		}
		ps, err := projector.Decide(r, s, actor, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Type, err)
		}
		for _, p := range ps {
			record(actor, p)
		}
	}
	t.Fatal("match does not end")
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
