package replay_test

import (
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay"
)

// unitNames are the units' names of the grammar matches, and whether each
// is plural: designations ("Squad S"), names in -s that are singular
// ("Chaplain Cassius"), plurals without an s ("Gretchin").
var unitNames = []struct {
	name   string
	plural bool
}{
	{"Squad S", false}, {"Ork Boyz", true}, {"Squad M", false}, {"Gretchin", true},
	{"Chaplain Cassius", false}, {"Devastators", true}, {"Tactical Squad", false}, {"Cadian Guardsmen", true},
}

// The log reads as English in every edition (round 3: "Squad S shoot"
// beside "Squad M shoots"): autoplayed matches whose units bear the names
// above, every narrated line, every pending step, and every refusal of a
// battery of mistaken commands tried at each step pass projtest.Grammar —
// verbs that agree with the unit's name, counts that agree with their
// nouns, no formatting slips.
func TestLogGrammar(t *testing.T) {
	names := map[string]bool{}
	for _, n := range unitNames {
		names[n.name] = n.plural
	}
	for _, ed := range editions.IDs() {
		t.Run(ed, func(t *testing.T) {
			r, err := editions.Lookup(ed)
			if err != nil {
				t.Fatal(err)
			}
			var armory []events.WeaponSpec
			if a, ok := r.(projector.Armory); ok {
				armory = a.Armory()
			}
			checked := map[string]int{}
			for seed := uint64(1); seed <= 3; seed++ {
				su := sim.RandomMatch(r, rand.New(rand.NewPCG(seed, 24)), armory...)
				for i := range su.Units {
					su.Units[i].Name = unitNames[i%len(unitNames)].name
				}
				g := projtest.New(t, r, su)
				ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(seed), MaxTurns: 3}
				check := func(what, line string) {
					t.Helper()
					checked[what]++
					if err := projtest.Grammar(line, names); err != nil {
						t.Errorf("seed %d, event %d, %s: %v", seed, g.State.Seq, what, err)
					}
				}
				for step := 0; step < 5000; step++ {
					check("pending", g.State.Pending.Text)
					for _, c := range mistakes(g.State) {
						for _, pl := range g.State.Players {
							if r, ok := projector.AsRefusal(g.Try(projtest.Player(pl.ID), c)); ok {
								check("refusal", r.Reason)
							}
						}
					}
					actor, c, done := ap.Next(g.State)
					if done {
						break
					}
					g.Do(actor, c)
				}
				lines, err := replay.Narrate(r, projtest.Relabel("m1", g.Events))
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range lines {
					check("log", l)
				}
			}
			if checked["log"] < 100 || checked["refusal"] < 100 {
				t.Fatalf("checked %v: too few lines to say anything", checked)
			}
		})
	}
}

// mistakes are commands a player might send at the wrong time or with a
// wrong argument, naming s's units: the rules refuse most of them, and
// their refusals name units.
func mistakes(s *projector.State) []projector.Command {
	var mine, theirs *projector.Unit
	for _, u := range s.Units {
		switch {
		case u.Destroyed():
		case u.Player == s.Active && mine == nil:
			mine = u
		case u.Player != s.Active && theirs == nil:
			theirs = u
		}
	}
	if mine == nil || theirs == nil {
		return nil
	}
	m := mine.AliveModels()[0]
	far := m.X + 30
	return []projector.Command{
		{Type: projector.CmdShoot, Unit: mine.ID, Target: theirs.ID},
		{Type: projector.CmdShoot, Unit: theirs.ID, Target: mine.ID},
		{Type: projector.CmdShoot, Unit: mine.ID, Target: mine.ID},
		{Type: projector.CmdMove, Unit: mine.ID, Model: m.ID, X: &far, Y: &m.Y},
		{Type: projector.CmdMove, Unit: theirs.ID, Model: theirs.AliveModels()[0].ID, X: &m.X, Y: &m.Y},
		{Type: projector.CmdRoll, Values: []int{7}},
		{Type: projector.CmdRoll, Values: []int{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1}},
		{Type: "charge", Unit: mine.ID, Target: theirs.ID},
		{Type: "fight", Unit: mine.ID},
		{Type: "strike", Unit: mine.ID, Target: theirs.ID},
		{Type: "overwatch", Unit: theirs.ID},
		{Type: "advance", Unit: mine.ID},
		{Type: projector.CmdCasualties, Models: []string{m.ID}},
		{Type: projector.CmdDistribute, Models: []string{m.ID}},
		{Type: projector.CmdPhase, Phase: projector.PhaseMovement},
	}
}
