package replay_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay"
)

// playInMemory plays the example's manual steps through the rules alone
// (no store, no recorder): the narrator is tested on exactly the events the
// rules produce. It stops before the first digital roll, which needs the
// recorder's dice.
func playInMemory(t testing.TB) *projtest.Game {
	t.Helper()
	sc, err := script.Read("../examples/3e-boltguns-vs-boyz.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := projtest.New(t, ed3e.Rules{}, sc.Match.Created())
	for i, st := range sc.Steps {
		if st.Cmd.Digital {
			break
		}
		actor := events.Actor{Kind: events.ActorPlayer, ID: st.As}
		if st.As == script.RoleJudge {
			actor = events.Actor{Kind: events.ActorJudge, ID: "judge"}
		}
		err := g.Try(actor, st.Cmd)
		r, refused := projector.AsRefusal(err)
		switch {
		case st.ExpectRefusal == "" && err != nil:
			t.Fatalf("%s: %v", st.Where(i), err)
		case st.ExpectRefusal != "" && (!refused || r.Code != st.ExpectRefusal):
			t.Fatalf("%s: want refusal %s, got %v", st.Where(i), st.ExpectRefusal, err)
		}
	}
	return g
}

func TestNarrateExample(t *testing.T) {
	g := playInMemory(t)
	lines, err := replay.Narrate(ed3e.Rules{}, g.Events)
	if err != nil {
		t.Fatal(err)
	}
	// Exact lines: they are what players read, so a change in them should
	// be a decision, not an accident.
	for _, want := range []string{
		"Alice rolls 9 D6 to hit (boltgun), needing 3+: 6 5 3 3 2 1 4 5 2 — 6 successes [manual]",
		"Bob rolls 5 D6 to save (Sv6+), needing 6+: 6 2 1 3 4 — 1 success [manual]",
		"Turn 1 — Tactical Squad fires 9 boltguns and a heavy bolter (12 shots) at Ork Boyz: 8 hits on 3+, 5 wounds on 4+/3+, 1 save on 6+ — 4 models removed (Ork Boy ×4)",
		"Bob distributes 4 hits: grukk (Warboss Grukk, T5), nob-1 (Nob, T4), nob-2 (Nob, T4), nob-3 (Nob, T4)",
		"Turn 1 — Devastator Squad fires 4 missile launchers and a boltgun (5 shots) at Nob Mob: 4 hits on 3+, 3 wounds on 2+/4+, 1 save on 4+/6+ — 2 unsaved wounds, no model removed",
		"Turn 2 — Tactical Squad fires 8 boltguns and a heavy bolter (11 shots) at Nob Mob: 7 hits on 3+, 5 wounds on 4+/5+/3+, 2 saves on 6+/4+ — 2 models removed (Nob ×2)",
		"Alice moves Devastator dev-1 (Devastator Squad) 2.24\" to (10, 31)",
		"Turn 2 — Alice's turn begins",
		// A unit named as a plural agrees with its verb (issue 16, item 7).
		"Bob: Ork Boyz shoot at Tactical Squad — 5 shootas, 10 shots; 9 of 9 target models in range and sight",
		"Turn 1 — Ork Boyz fire 5 shootas (10 shots) at Tactical Squad: 4 hits on 5+, 2 wounds on 4+, 1 save on 3+ — 1 model removed (Marine)",
	} {
		if !contains(lines, want) {
			t.Errorf("missing line %q", want)
		}
	}
	summaries := 0
	for _, l := range lines {
		if strings.Contains(l, " fires ") || strings.Contains(l, " fire ") {
			summaries++
		}
	}
	if want := 4; summaries != want || len(lines) != len(g.Events)+want {
		t.Errorf("%d lines with %d summaries for %d events; want one line per event plus %d summaries:\n%s",
			len(lines), summaries, len(g.Events), want, strings.Join(lines, "\n"))
	}
}

// The narrator's fold is the rules' fold: after the last event it holds
// the same board as the game that produced the events.
func TestNarratorStateIsTheFold(t *testing.T) {
	g := playInMemory(t)
	n := replay.NewNarrator(ed3e.Rules{})
	for _, e := range g.Events {
		if _, err := n.Next(e); err != nil {
			t.Fatal(err)
		}
	}
	want, err := g.State.Hash()
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.State().Hash()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatal("the narrator's state differs from the game's")
	}
}

// An event out of order is an error, not a wrong story.
func TestNarratorRefusesGaps(t *testing.T) {
	g := playInMemory(t)
	n := replay.NewNarrator(ed3e.Rules{})
	if _, err := n.Next(g.Events[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Next(g.Events[2]); err == nil {
		t.Fatal("event 3 after event 1 was narrated")
	}
}

func TestSummaryWithoutHits(t *testing.T) {
	g := playInMemory(t)
	s := g.State
	a := &projector.Attack{Firer: "tac", Target: "boyz", Shots: 2,
		Shooters: []projector.Shooter{{Model: "tac-1", Weapon: "boltgun", Shots: 1}, {Model: "tac-2", Weapon: "boltgun", Shots: 1}},
		Steps:    []projector.DiceStep{{Purpose: "hit", Dice: 2, Need: 3, Seq: 9, Values: []int{1, 2}}}}
	got := replay.Summary(nil, s, a)
	want := "Turn 2 — Tactical Squad fires 2 boltguns (2 shots) at Ork Boyz: 0 hits on 3+ — no casualties"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// BenchmarkNarrateExample tells the whole example match: what `log` and
// the events verb cost per match.
func BenchmarkNarrateExample(b *testing.B) {
	g := playInMemory(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := replay.Narrate(ed3e.Rules{}, g.Events); err != nil {
			b.Fatal(err)
		}
	}
}

// Every example narrates as the rules did it (issue 16, item 7): no event
// is printed raw (its type and JSON payload), every 11e shooting
// declaration names its shooting type, and indirect fire is not told as
// fire at models "in range and sight".
func TestEveryExampleNarratesWhatTheRulesDid(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	for _, path := range paths {
		sc, err := script.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := editions.Lookup(sc.Match.Edition)
		if err != nil {
			t.Fatal(err)
		}
		g := projtest.PlayScript(t, r, path)
		lines, err := replay.Narrate(r, g.Events)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, "3e-moving-fire.yaml") && !contains(lines,
			"Alice: Tactical Squad shoots at Ork Boyz — 4 boltguns, 8 shots; 6 of 6 target models in range and sight; the unit moved, so tac-hb's heavy bolter stays silent") {
			t.Errorf("%s: the moved squad's declaration does not say its heavy bolter stays silent:\n%s", path, strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			for _, e := range g.Events {
				if strings.Contains(l, ": "+string(e.Type)) {
					t.Errorf("%s: raw event in the log: %q", path, l)
				}
			}
			if strings.Contains(l, "shooting at") && sc.Match.Edition == "11e" &&
				!strings.Contains(l, "normal shooting") && !strings.Contains(l, "assault shooting") &&
				!strings.Contains(l, "close-quarters shooting") && !strings.Contains(l, "indirect shooting") {
				t.Errorf("%s: a declaration without its shooting type: %q", path, l)
			}
			if strings.Contains(l, "indirect shooting at") && (strings.Contains(l, "range and sight") || !strings.Contains(l, "fires indirectly")) {
				t.Errorf("%s: indirect fire told as fire in sight: %q", path, l)
			}
		}
	}
}
