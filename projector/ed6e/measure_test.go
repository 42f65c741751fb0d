package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// pair is a positioned game and the same match measured at the table:
// the measured one is played with the facts the positioned one implies
// (projtest.Game.Facts), changed where a test says.
func pair(t *testing.T, su events.MatchCreated) (*projtest.Game, *projtest.Game) {
	pos := newGameFrom(t, su)
	pos.Solo("this test plays its measured twin by hand")
	return pos, projtest.Measured(t, Rules{}, su)
}

func with(c projector.Command, facts []events.Fact) projector.Command {
	c.Facts = facts
	return c
}

// set is facts with the value of the fact of kind about model changed.
func set(facts []events.Fact, kind, model, value string) []events.Fact {
	out := slices.Clone(facts)
	for i := range out {
		if out[i].Kind == kind && out[i].Model == model {
			out[i].Value = value
		}
	}
	return out
}

// Cover and the order of closeness are facts of a measured shoot; a model
// out of range cannot be the closest in range, and each rank is one
// model's.
func TestMeasuredShootCoverAndOrder(t *testing.T) {
	su := setup(marines("tac", 1, 10, bolter()), boyz("boyz", 3, 20))
	su.Terrain = []events.TerrainSpec{rect("r1", events.TerrainRuins, 19, 9, 21, 11)}
	pos, m := pair(t, su)
	toShooting(pos)
	toShooting(m)
	facts := pos.Facts(alice, shoot("tac", "boyz"))
	for _, want := range []string{"cover boyz-1 = ruins", "order boyz-1 = 1", "order boyz-3 = 3", "target boyz-2 = in-range"} {
		if !slices.ContainsFunc(facts, func(f events.Fact) bool { return projector.FactText(f) == want }) {
			t.Fatalf("the positions imply %v, without %s", facts, want)
		}
	}
	r := m.Refused(alice, with(shoot("tac", "boyz"), set(facts, projector.FactTarget, "boyz-3", projector.StandingOutOfRange)), projector.CodeFactsInconsistent)
	if !strings.Contains(r.Reason, "boyz-3 may not take the wounds") || !strings.Contains(r.Reason, "cannot be the closest in range") {
		t.Fatalf("reason %q", r.Reason)
	}
	r = m.Refused(alice, with(shoot("tac", "boyz"), set(facts, projector.FactOrder, "boyz-3", "1")), projector.CodeFactsInconsistent)
	if !strings.Contains(r.Reason, "both ranked 1") {
		t.Fatalf("reason %q", r.Reason)
	}
	m.Refused(alice, with(shoot("tac", "boyz"), set(facts, projector.FactCover, "boyz-2", "hedge")), projector.CodeBadFact)
	// Measured cover: boyz-2 in woods (5+) instead of the open; measured
	// order: boyz-2 the closest, so the wound goes to it.
	facts = set(set(set(facts, projector.FactCover, "boyz-2", "woods"), projector.FactOrder, "boyz-2", "1"), projector.FactOrder, "boyz-1", "2")
	m.Do(alice, with(shoot("tac", "boyz"), facts))
	if c := edAttack(m.State.Attack).Cover; c[1].Save != CoverWoods || !strings.Contains(c[1].Why, "as measured") || c[0].Save != CoverRuins {
		t.Fatalf("cover %+v", c)
	}
	m.Roll(6)
	m.Roll(6)
	if w := edAttack(m.State.Attack).Wound; w == nil || w.Model != "boyz-2" {
		t.Fatalf("the wound is on %+v, not the model ranked closest", w)
	}
	if d := m.State.Attack.Current(); d == nil || d.Need != CoverWoods || !strings.Contains(d.Label, "cover") {
		t.Fatalf("save %+v", d)
	}
	m.Roll(1)
	if !m.State.Unit("boyz").Model("boyz-2").Removed {
		t.Fatal("boyz-2 kept its unsaved wound")
	}
	same(t, m)
}

// A wound allocated to a character in a measured attack waits for the
// distances from it to its squad-mates (the defender measures); within
// 6", Look Out, Sir is offered, else the wound stays.
func TestMeasuredLookOutSir(t *testing.T) {
	su := setup(marines("tac", 1, 10, pistol()), command("CHARACTER", [2]float64{25.5, 10}, [2]float64{21, 11.2}))
	pos, m := pair(t, su)
	toShooting(pos)
	toShooting(m)
	m.Do(alice, with(shoot("tac", "cmd"), pos.Facts(alice, shoot("tac", "cmd"))))
	m.Roll(6)
	m.Roll(6)
	p := pending(t, m, projector.WaitMeasure, "bob")
	if p.Purpose != measureLookOutSir || len(p.Facts) != 2 || p.Facts[0].String() != "distance from captain to cmd-2 (inches)" {
		t.Fatalf("measure step %+v", p)
	}
	m.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, projector.CodeWrongStep)
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure}, projector.CodeWrongPlayer)
	dist := func(to, v string) events.Fact {
		return events.Fact{Kind: projector.FactDistance, From: "captain", Model: to, Value: v}
	}
	m.Refused(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{dist("cmd-2", "5")}}, projector.CodeFactMissing)
	m.Refused(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{dist("cmd-2", "5"), dist("cmd-3", "1"), dist("tac-1", "9")}}, projector.CodeFactNotAsked)
	m.Refused(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{dist("cmd-2", "5"), dist("cmd-9", "1")}}, projector.CodeFactUnknownModel)
	m.Do(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{dist("cmd-2", "7"), dist("cmd-3", "0.5")}})
	pending(t, m, WaitLookOutSir, "bob")
	m.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, projector.CodeNotEligible) // 7" away, as measured
	m.Do(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-3"})
	if a := m.State.Attack; len(a.Measures) != 2 {
		t.Fatalf("the attack reads measurements %v", a.Measures)
	}
	same(t, m)
}

// A measured blast: placed over the model the facts name, scattered by
// its roll, and measured where it landed.
func TestMeasuredBlast(t *testing.T) {
	su := setup(marines("dev", 1, 10, fragMissile()), boyz("boyz", 5, 30))
	pos, m := pair(t, su)
	toShooting(pos)
	toShooting(m)
	m.Do(alice, with(shoot("dev", "boyz"), pos.Facts(alice, shoot("dev", "boyz"))))
	pos.Do(alice, shoot("dev", "boyz"))
	facts := pos.Facts(alice, place(30, 10))
	m.Refused(alice, with(place(30, 10), facts), projector.CodeMeasuredMatch)
	m.Refused(alice, with(projector.Command{Type: CmdPlace}, set(facts, projector.FactDistance, "boyz-1", "49")), projector.CodeNotEligible)
	m.Refused(alice, with(projector.Command{Type: CmdPlace}, set(facts, projector.FactVisible, "boyz-1", "no")), projector.CodeNotEligible)
	m.Do(alice, with(projector.Command{Type: CmdPlace}, facts))
	m.Roll(3, 1, 3, 3) // an arrow: 6 − BS4 = 2"
	if told := (Rules{}).RollOutcome(m.State, &events.DiceRolled{Purpose: purposeScatter}); !strings.Contains(told, "2\": the blast moves that far from where it was placed") || strings.Contains(told, "lands on") {
		t.Fatalf("the scatter is told %q: no coordinates, where it lands is measured", told)
	}
	p := pending(t, m, projector.WaitMeasure, "alice")
	if p.Purpose != measureUnder || len(p.Facts) != 6 || p.Facts[5].String() != "strays boyz (model ids or none)" {
		t.Fatalf("measure step %+v", p)
	}
	under := func(v ...string) []events.Fact {
		var fs []events.Fact
		for i, x := range v {
			fs = append(fs, events.Fact{Kind: projector.FactUnder, Model: "boyz-" + string(rune('1'+i)), Value: x})
		}
		return fs
	}
	strays := func(v string) events.Fact { return events.Fact{Kind: projector.FactStrays, Model: "boyz", Value: v} }
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure, Facts: under("no", "yes", "yes", "no", "no")}, projector.CodeFactMissing)
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure, Facts: append(under("no", "yes", "yes", "no", "no"), strays("boyz-1"))}, projector.CodeFactsInconsistent)
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure, Facts: append(under("no", "yes", "yes", "no", "no"), strays("grot-1"))}, projector.CodeFactUnknownModel)
	m.Do(alice, projector.Command{Type: projector.CmdMeasure, Facts: append(under("no", "yes", "yes", "no", "no"), strays("none"))})
	if mk := edAttack(m.State.Attack).Markers[0]; !slices.Equal(mk.Under, []string{"boyz-2", "boyz-3"}) || m.State.Attack.Hits != 2 || mk.Drift != 2 {
		t.Fatalf("marker %+v, hits %d", mk, m.State.Attack.Hits)
	}
	same(t, m)
}

// A blast that lands off its target onto two Marines of Alice's own
// (revision 2, strays.go): measured where it landed, the strays fact names
// them; the attack of their own that resolves those hits first measures
// the cover each has where it stands and which is the closest to the
// firer, which takes the wound — the positions' answers give the
// positioned match's outcome, a swapped order the other Marine's death.
func TestMeasuredStrayHits(t *testing.T) {
	scouts := marines("scouts", 2, 35.5)
	scouts.Models[0].Y = 9.5
	scouts.Models[1].X, scouts.Models[1].Y = 34, 8
	su := setup(marines("dev", 1, 10, fragMissile()), scouts, boyz("boyz", 5, 30))
	su.Terrain = []events.TerrainSpec{rect("w1", events.TerrainWoods, 33, 7, 34.5, 8.5)}
	pos, m := pair(t, su)
	_, swapped := pair(t, su)
	for _, g := range []*projtest.Game{pos, m, swapped} {
		toShooting(g)
	}
	shootFacts, placeFacts := pos.Facts(alice, shoot("dev", "boyz")), []events.Fact(nil)
	pos.Do(alice, shoot("dev", "boyz"))
	placeFacts = pos.Facts(alice, place(30, 10))
	pos.Do(alice, place(30, 10))
	pos.Roll(4, 2, 5, 4) // 5" at 105°: off the Boyz, onto both scouts
	if a := pos.State.Attack; a == nil || a.Kind != KindStray || len(a.Eligible) != 2 {
		t.Fatalf("positioned: the stray hits on the scouts %+v", a)
	}
	answer := func(g *projtest.Game) []events.Fact {
		var fs []events.Fact
		for _, n := range g.State.Pending.Facts {
			v, ok := Rules{}.Answer(pos.State, n)
			if !ok {
				t.Fatalf("the positions do not answer %s", n)
			}
			fs = append(fs, events.Fact{Kind: n.Kind, Model: n.Model, From: n.From, Value: v})
		}
		return fs
	}
	for _, g := range []*projtest.Game{m, swapped} {
		g.Do(alice, with(shoot("dev", "boyz"), shootFacts))
		g.Do(alice, with(projector.Command{Type: CmdPlace}, placeFacts))
		g.Roll(4, 2, 5, 4)
		landed := answer(g)
		if got := projector.FactText(landed[len(landed)-1]); got != "strays boyz = scouts-1,scouts-2" {
			t.Fatalf("where it landed: %s", got)
		}
		g.Do(alice, projector.Command{Type: projector.CmdMeasure, Facts: landed})
		p := pending(t, g, projector.WaitMeasure, "alice")
		if p.Purpose != measureStray || len(p.Facts) != 4 {
			t.Fatalf("the stray hits' measure step %+v", p)
		}
	}
	facts := answer(m)
	for _, want := range []string{"cover scouts-1 = none", "cover scouts-2 = woods", "order scouts-1 = 2", "order scouts-2 = 1"} {
		if !slices.ContainsFunc(facts, func(f events.Fact) bool { return projector.FactText(f) == want }) {
			t.Fatalf("the positions answer %v, without %s", facts, want)
		}
	}
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure, Facts: set(facts, projector.FactOrder, "scouts-1", "1")}, projector.CodeFactsInconsistent)
	m.Refused(alice, projector.Command{Type: projector.CmdMeasure, Facts: set(facts, projector.FactCover, "scouts-1", "fortress")}, projector.CodeBadFact)
	m.Do(alice, projector.Command{Type: projector.CmdMeasure, Facts: facts})
	swapped.Do(alice, projector.Command{Type: projector.CmdMeasure, Facts: set(set(facts, projector.FactOrder, "scouts-1", "1"), projector.FactOrder, "scouts-2", "2")})
	if a, b := projtest.Outcome(pos.State), projtest.Outcome(m.State); a != b {
		t.Fatalf("measured stray hits stand otherwise:\n%s\n---\n%s", a, b)
	}
	if c := edAttack(m.State.Attack).Cover; len(c) != 2 || c[1].Save != CoverWoods {
		t.Fatalf("the measured cover %+v", c)
	}
	for _, g := range []*projtest.Game{pos, m, swapped} {
		g.Roll(4, 1) // one wound
		for g.State.Attack != nil && g.State.Pending.Kind == projector.WaitRoll {
			g.Roll(ones(g.State.Pending.Dice, 1)...) // every save fails
		}
	}
	if a, b := projtest.Outcome(pos.State), projtest.Outcome(m.State); a != b {
		t.Fatalf("measured stray hits end otherwise:\n%s\n---\n%s", a, b)
	}
	if got, want := alive(m, "scouts"), []string{"scouts-1"}; !slices.Equal(got, want) {
		t.Errorf("the closest, as measured, should fall: %v left", got)
	}
	if got, want := alive(swapped, "scouts"), []string{"scouts-2"}; !slices.Equal(got, want) {
		t.Errorf("the closest, as measured otherwise, should fall: %v left", got)
	}
	same(t, m)
}

// A measured charge: its distance decides the declaration (12" at most)
// and the roll; one that reaches locks the units at once (the table makes
// the moves).
func TestMeasuredCharge(t *testing.T) {
	su := setup(marines("tac", 2, 10, bolter()), boyz("boyz", 2, 17))
	pos, m := pair(t, su)
	for _, g := range []*projtest.Game{pos, m} {
		g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
		g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	}
	facts := pos.Facts(alice, charge("tac", "boyz"))
	if len(facts) != 2 || projector.FactText(facts[1]) != "first tac = tac-1" {
		t.Fatalf("facts %v", facts)
	}
	m.Refused(alice, with(charge("tac", "boyz"), set(facts, projector.FactDistance, "boyz", "12.5")), projector.CodeOutOfRange)
	m.Refused(alice, with(charge("tac", "boyz"), set(facts, projector.FactFirst, "tac", "boyz-1")), projector.CodeFactsInconsistent)
	m.Do(alice, with(charge("tac", "boyz"), set(facts, projector.FactDistance, "boyz", "5")))
	m.Roll(2, 3)
	if ch := ed(m.State).Charge; !ch.Success || ch.Needed != 5 || ch.Stage != chargeDone || !slices.Contains(m.State.Unit("tac").Engaged, "boyz") {
		t.Fatalf("charge %+v, engaged %v", ch, m.State.Unit("tac").Engaged)
	}
	m.Refused(alice, projector.Command{Type: projector.CmdMove, Unit: "tac", Model: "tac-2"}, projector.CodeMeasuredMatch)
	same(t, m)
}
