package roster_test

import (
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/roster"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/projector/sim"
)

// Each fixture, imported for its edition, makes a match the rules accept
// (two rosters facing each other, deployed as formations), and plays:
// the armies shoot each other with the weapons the rosters gave them, and
// the recorded events fold back to the same state.
func TestRostersPlay(t *testing.T) {
	for _, tc := range []struct {
		edition     string
		alice, bob  string
		minAttacks  int
		wantWeapons []string // weapon names an attack fired
	}{
		{"3e", "3e-space-marines.ros", "3e-orks.ros", 2, []string{"Boltgun", "Shoota"}},
		{"6e", "7e-space-marines.ros", "3e-orks.ros", 2, []string{"Boltgun"}},
		{"11e", "11e-space-marines.ros", "10e-tyranids.ros", 2, []string{"Bolt rifle", "Fleshborer"}},
	} {
		t.Run(tc.edition, func(t *testing.T) {
			r, err := editions.Lookup(tc.edition)
			if err != nil {
				t.Fatal(err)
			}
			setup := script.Setup{Edition: tc.edition, Players: []events.PlayerSpec{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}}, FirstPlayer: "alice"}
			taken := map[string]bool{}
			for i, who := range []struct{ player, file string }{{"alice", tc.alice}, {"bob", tc.bob}} {
				ros, err := roster.Read(filepath.Join(fixtures, who.file))
				if err != nil {
					t.Fatal(err)
				}
				imp, err := roster.Convert(ros, roster.Options{Edition: tc.edition, Player: who.player, Taken: func(id string) bool { return taken[id] }})
				if err != nil {
					t.Fatal(err)
				}
				for j, u := range imp.Units {
					taken[u.ID] = true
					for _, m := range u.Models {
						taken[m.ID] = true
					}
					// The armies face each other 14" apart, units side by side.
					y := 16.0 + 14*float64(i)
					setup.Deploy = append(setup.Deploy, script.Deployment{Unit: u.ID, At: [2]float64{14 + 22*float64(j), y}, Formation: script.FormationLine})
				}
				setup.Units = append(setup.Units, imp.Units...)
			}
			created, err := setup.Placed()
			if err != nil {
				t.Fatal(err)
			}
			g := projtest.New(t, r, created)
			ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(11), MaxTurns: 2}
			attacks, fired := 0, map[string]bool{}
			for i := 0; i < 3000; i++ {
				actor, c, done := ap.Next(g.State)
				if done {
					break
				}
				before := g.State.LastAttack
				if err := g.Try(actor, c); err != nil {
					t.Fatalf("step %d, %s by %s: %v", i, c.Type, actor.ID, err)
				}
				if la := g.State.LastAttack; la != nil && la != before {
					attacks++
					firer := g.State.Unit(la.Firer)
					for _, sh := range la.Shooters {
						if w := firer.Weapon(sh.Weapon); w != nil {
							fired[w.DisplayName()] = true
						}
					}
				}
			}
			if attacks < tc.minAttacks {
				t.Fatalf("%d attacks played", attacks)
			}
			for _, w := range tc.wantWeapons {
				if !fired[w] {
					t.Errorf("no attack fired a %s (fired %v)", w, fired)
				}
			}
			live, _ := g.State.Hash()
			if re, _ := g.Refold().Hash(); re != live {
				t.Fatal("the recorded events fold to another state")
			}
			if g.State.Seq < 10 || !g.State.Ended {
				t.Fatalf("the match did not play through: %d events, ended %v", g.State.Seq, g.State.Ended)
			}
		})
	}
}
