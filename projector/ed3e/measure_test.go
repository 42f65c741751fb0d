package ed3e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// measured is a 3e match measured at the table: three boltgun marines and
// three Orks, nowhere in particular.
func measured(t *testing.T) *projtest.Game {
	su := setup(marines("tac", 3, 10, boltgun()), boyz("boyz", 3, 20))
	su.Geometry = projector.GeometryMeasured
	g := newGameFrom(t, su)
	if g.Twin() != nil {
		t.Fatal("a measured match has a measured twin")
	}
	toShooting(g)
	return g
}

func fact(kind, model, from, value string) events.Fact {
	return events.Fact{Kind: kind, Model: model, From: from, Value: value}
}

// shootFacts are facts for tac at boyz: each marine's range, each Ork's
// standing.
func shootFacts(ranges [3]string, standing [3]string) []events.Fact {
	var fs []events.Fact
	for i, r := range ranges {
		fs = append(fs, fact(projector.FactRange, "", "tac-"+string(rune('1'+i)), r))
	}
	for i, st := range standing {
		fs = append(fs, fact(projector.FactTarget, "boyz-"+string(rune('1'+i)), "", st))
	}
	return fs
}

// plus is facts with more, in a list of its own.
func plus(facts []events.Fact, more ...events.Fact) []events.Fact {
	return append(append([]events.Fact(nil), facts...), more...)
}

func measuredShoot(fs []events.Fact) projector.Command {
	c := shoot("tac", "boyz")
	c.Facts = fs
	return c
}

// The facts decide what positions would: marines within half range fire
// twice, one beyond it once; only the Orks in range may be casualties.
// The measurement is an event of its own, just before the declaration,
// in normal form and in the order the rules asked.
func TestMeasuredShootReadsItsFacts(t *testing.T) {
	g := measured(t)
	n := len(g.Events)
	in, out := projector.StandingInRange, projector.StandingOutOfRange
	g.Do(alice, measuredShoot(shootFacts([3]string{"11.50", "12", "13\""}, [3]string{in, in, out})))
	a := g.State.Attack
	if a == nil || a.Shots != 5 || strings.Join(a.Eligible, ",") != "boyz-1,boyz-2" {
		t.Fatalf("attack %+v", a)
	}
	evs := g.Events[n:]
	if len(evs) != 2 || evs[0].Type != events.TypeMeasured || evs[1].Type != events.TypeShootingDeclared {
		t.Fatalf("events %v", evs)
	}
	p, err := events.Core().Decode(evs[0])
	if err != nil {
		t.Fatal(err)
	}
	m := p.(*events.Measured)
	if m.For != projector.CmdShoot || m.Facts[0].Value != "11.5" || m.Facts[2].Value != "13" || m.Facts[5].Value != out {
		t.Fatalf("measurement %+v", m)
	}
	if ms := g.State.Measures; len(ms) != 1 || ms[0].Seq != evs[0].Seq || ms[0].Status != projector.RollUnconfirmed || ms[0].Player != "alice" {
		t.Fatalf("measures %+v", ms)
	}
	if len(a.Measures) != 1 || a.Measures[0] != evs[0].Seq {
		t.Fatalf("the attack reads measurement %v", a.Measures)
	}
	same(t, g)
}

// Bad facts are refused, each naming the fact, and nothing is recorded.
func TestMeasuredShootRefusesBadFacts(t *testing.T) {
	in, out, hidden := projector.StandingInRange, projector.StandingOutOfRange, projector.StandingHidden
	good := shootFacts([3]string{"10", "10", "10"}, [3]string{in, in, in})
	cases := []struct {
		name  string
		facts []events.Fact
		code  projector.Code
		words string
	}{
		{"none at all", nil, projector.CodeFactMissing, "missing range from tac-1 (inches or none)"},
		{"one missing", good[1:], projector.CodeFactMissing, "missing range from tac-1"},
		{"negative distance", shootFacts([3]string{"-2", "10", "10"}, [3]string{in, in, in}), projector.CodeBadFact, "a distance is 0 inches or more"},
		{"not a distance", shootFacts([3]string{"far", "10", "10"}, [3]string{in, in, in}), projector.CodeBadFact, "range from tac-1"},
		{"a standing no rule knows", shootFacts([3]string{"10", "10", "10"}, [3]string{in, in, "behind"}), projector.CodeBadFact, "in-range, out-of-range or hidden"},
		{"given twice", plus(good, good[0]), projector.CodeBadFact, "given twice"},
		{"a kind 3e does not ask", plus(good, fact(projector.FactCover, "boyz-1", "", "woods")), projector.CodeFactNotAsked, "cover boyz-1"},
		{"a model that is not there", plus(good, fact(projector.FactTarget, "boyz-9", "", in)), projector.CodeFactUnknownModel, "boyz-9"},
		{"an unknown kind", plus(good, fact("slope", "", "", "1")), projector.CodeFactNotAsked, "slope"},
		{"in range, but nothing seen", shootFacts([3]string{"none", "none", "none"}, [3]string{in, hidden, hidden}), projector.CodeFactsInconsistent, "every range is none"},
		{"in reach, but none in range", shootFacts([3]string{"10", "10", "10"}, [3]string{out, out, hidden}), projector.CodeFactsInconsistent, "yet no model of Ork Boyz is in range"},
		{"all out of reach", shootFacts([3]string{"30", "30", "30"}, [3]string{out, out, out}), projector.CodeOutOfRange, "the closest model it sees is 30.0\" away"},
		{"nothing seen", shootFacts([3]string{"none", "none", "none"}, [3]string{hidden, hidden, hidden}), projector.CodeNotVisible, "as measured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := measured(t)
			r := g.Refused(alice, measuredShoot(c.facts), c.code)
			if !strings.Contains(r.Reason, c.words) {
				t.Fatalf("%s: %q does not say %q", c.code, r.Reason, c.words)
			}
		})
	}
}

// A move in a measured match is its distance, within the allowance; it
// makes the unit count as moved (its Heavy weapons stay silent), and
// coordinates are refused.
func TestMeasuredMove(t *testing.T) {
	su := setup(marines("tac", 2, 10, boltgun()), boyz("boyz", 1, 20))
	su.Geometry = projector.GeometryMeasured
	g := newGameFrom(t, su)
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Refused(alice, projtest.Move("tac", "tac-1", 12, 10), projector.CodeMeasuredMatch)
	mv := projector.Command{Type: projector.CmdMove, Unit: "tac", Model: "tac-1"}
	g.Refused(alice, mv, projector.CodeFactMissing)
	mv.Facts = []events.Fact{fact(projector.FactMoved, "", "", "6.5")}
	g.Refused(alice, mv, projector.CodeMoveTooFar)
	mv.Facts[0].Value = "4"
	g.Do(alice, mv)
	if !g.State.Unit("tac").Moved {
		t.Fatal("a measured move does not move the unit")
	}
	whole := projector.Command{Type: projector.CmdMove, Unit: "tac", Facts: []events.Fact{fact(projector.FactMoved, "tac", "", "3")}}
	g.Do(alice, whole)
	g.Refused(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting, Facts: mv.Facts}, projector.CodeFactNotAsked)
	same(t, g)
}

// A measurement is witnessed like a physical roll: the opponent confirms
// it (one confirmation up to the head covers rolls and measurements) or
// contests it; the judge amends its facts, and the match is folded again
// from them: as ruled, the Ork that was out of range may now be a
// casualty.
func TestMeasurementWitnessedAndAmended(t *testing.T) {
	g := measured(t)
	in, out := projector.StandingInRange, projector.StandingOutOfRange
	g.Do(alice, measuredShoot(shootFacts([3]string{"10", "10", "10"}, [3]string{in, out, out})))
	seq := g.State.Measures[0].Seq
	g.Refused(alice, projector.Command{Type: projector.CmdConfirm, Event: seq}, projector.CodeWrongPlayer)
	g.Refused(bob, projector.Command{Type: projector.CmdContest, Event: seq}, projector.CodeBadCommand)
	g.Do(bob, projector.Command{Type: projector.CmdContest, Event: seq, Reason: "boyz-2 is 23\" away, in range"})
	if m := g.State.Measure(seq); m.Status != projector.RollContested || !strings.Contains(m.Reason, "23") {
		t.Fatalf("measure %+v", m)
	}
	g.Do(bob, projector.Command{Type: projector.CmdDispute, Event: seq, Reason: "boyz-2 is in range"})
	dispute := g.State.Seq
	judge := projtest.Judge
	bad := projector.Command{Type: projector.CmdRule, Dispute: dispute, Decision: events.RulingAmend,
		Facts: []events.Fact{fact(projector.FactTarget, "boyz-7", "", in)}}
	g.Refused(judge, bad, projector.CodeFactUnknownModel)
	bad.Facts = []events.Fact{fact(projector.FactCover, "boyz-2", "", "woods")}
	g.Refused(judge, bad, projector.CodeFactNotAsked)
	g.Refused(judge, projector.Command{Type: projector.CmdRule, Dispute: dispute, Decision: events.RulingAmend}, projector.CodeFactMissing)
	g.Do(judge, projector.Command{Type: projector.CmdRule, Dispute: dispute, Decision: events.RulingAmend,
		Facts: []events.Fact{fact(projector.FactTarget, "boyz-2", "", in)}})
	ruled := g.AsRuled()
	if a := ruled.Attack; a == nil || strings.Join(a.Eligible, ",") != "boyz-1,boyz-2" {
		t.Fatalf("as ruled the eligible are %v", a.Eligible)
	}
	if f := ruled.Measure(seq).Facts[4]; f.Model != "boyz-2" || f.Value != in {
		t.Fatalf("as ruled the facts are %+v", ruled.Measure(seq).Facts)
	}
	// Confirm up to the head covers a later measurement of Alice's.
	g.State = ruled
	g.Roll(6, 6, 6, 6, 6, 6)
	g.Do(bob, projector.Command{Type: projector.CmdConfirm, Upto: g.State.Seq})
	for _, m := range g.State.Measures {
		if m.Status != projector.RollContested {
			t.Fatalf("a contested measurement was confirmed: %+v", m)
		}
	}
	for _, r := range g.State.Dice.Manual {
		if r.Roller == "alice" && r.Status != projector.RollConfirmed {
			t.Fatalf("roll %+v not confirmed", r)
		}
	}
}

// The optional depth of a target model inside woods is held to the
// wood's visibility: more than 6" inside Grot Wood, it cannot be in range.
func TestMeasuredDepthInWoods(t *testing.T) {
	su := setup(marines("tac", 3, 10, boltgun()), boyz("boyz", 3, 20))
	su.Geometry = projector.GeometryMeasured
	su.Terrain = []events.TerrainSpec{{ID: "grot-wood", Kind: events.TerrainWoods}, {ID: "hab", Kind: events.TerrainBlocking}}
	in, hidden := projector.StandingInRange, projector.StandingHidden
	facts := shootFacts([3]string{"10", "10", "10"}, [3]string{in, in, in})
	for _, c := range []struct {
		name  string
		depth events.Fact
		code  projector.Code
	}{
		{"deeper than the wood shows", fact(projector.FactDepth, "boyz-3", "grot-wood", "7"), projector.CodeFactsInconsistent},
		{"a depth in no wood", fact(projector.FactDepth, "boyz-3", "hab", "2"), projector.CodeFactsInconsistent},
		{"a wood that is not there", fact(projector.FactDepth, "boyz-3", "marsh", "2"), projector.CodeFactUnknownModel},
	} {
		g := newGameFrom(t, su)
		toShooting(g)
		r := g.Refused(alice, measuredShoot(plus(facts, c.depth)), c.code)
		t.Logf("%s: %s", c.name, r.Reason)
	}
	g := newGameFrom(t, su)
	toShooting(g)
	g.Do(alice, measuredShoot(plus(shootFacts([3]string{"10", "10", "10"}, [3]string{in, in, hidden}), fact(projector.FactDepth, "boyz-3", "grot-wood", "7"),
		fact(projector.FactDepth, "boyz-2", "grot-wood", "5.5"))))
	if el := g.State.Attack.Eligible; strings.Join(el, ",") != "boyz-1,boyz-2" {
		t.Fatalf("eligible %v", el)
	}
}
