package ed11e

import (
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// lastRoll decodes the last dice.rolled event.
func lastRoll(t *testing.T, evs []events.Event) (events.Event, *events.DiceRolled) {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == events.TypeDiceRolled {
			p, err := projector.Vocabulary(Rules{}).Decode(evs[i])
			if err != nil {
				t.Fatal(err)
			}
			return evs[i], p.(*events.DiceRolled)
		}
	}
	t.Fatal("no roll")
	return events.Event{}, nil
}

// Re-roll hit rolls of 1: offered for the 1s only, recorded as its own
// events linked to the die it replaces, applied to the unmodified value,
// and never twice on one die.
func TestRerollHitRollsOfOne(t *testing.T) {
	g := newGame(t, squad("a", "alice", 4, 10, gun("bolter", 4, 4, "re-roll hit rolls of 1")), squad("b", "bob", 4, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(1, 3, 1, 5) // 1 hit; 1s at #0 and #2
	first, _ := lastRoll(t, g.Events)
	pending(t, g, WaitReroll, "alice", "hit", 0, 4)
	g.Refused(bob, projector.Command{Type: projector.CmdReroll}, projector.CodeWrongPlayer)
	g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{1}}, projector.CodeBadDice) // a 3, not a 1
	g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{0, 0}}, projector.CodeBadDice)
	g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{9}}, projector.CodeBadDice)
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{4, 4}}, projector.CodeWrongStep)
	n := len(g.Events)
	g.Do(alice, projector.Command{Type: projector.CmdReroll}) // all the 1s
	if ts := types(g, n); len(ts) != 1 || ts[0] != TypeRerollChosen {
		t.Fatalf("events %v", ts)
	}
	pending(t, g, projector.WaitRoll, "alice", "hit", 2, 4)
	if r := g.State.Pending.Reroll; r == nil || r.Seq != first.Seq || !slices.Equal(r.Indices, []int{0, 2}) {
		t.Fatalf("pending re-roll %+v", r)
	}
	g.Roll(4, 1) // #0 now hits, #2 is a 1 again: not re-rolled twice
	_, rr := lastRoll(t, g.Events)
	if rr.Reroll == nil || rr.Reroll.Seq != first.Seq || !slices.Equal(rr.Reroll.Indices, []int{0, 2}) || rr.Reroll.Source != RuleHitOnes {
		t.Fatalf("re-roll event %+v", rr.Reroll)
	}
	a := g.State.Attack
	if !slices.Equal(a.Steps[0].Values, []int{4, 3, 1, 5}) || a.Hits != 2 {
		t.Fatalf("values %v hits %d", a.Steps[0].Values, a.Hits)
	}
	pending(t, g, projector.WaitRoll, "alice", "wound", 2, 4)
	r := g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{2}}, projector.CodeNotEligible)
	if r.Reason == "" {
		t.Fatal("no reason")
	}
	same(t, g)
}

// Declining is recorded too; the roll stands.
func TestRerollDeclined(t *testing.T) {
	g := newGame(t, squad("a", "alice", 2, 10, gun("bolter", 4, 4, "re-roll hit rolls of 1")), squad("b", "bob", 2, 20))
	toShooting(g)
	g.Refused(alice, projector.Command{Type: projector.CmdDecline}, projector.CodeWrongStep)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(1, 4)
	n := len(g.Events)
	g.Do(alice, projector.Command{Type: projector.CmdDecline})
	if ts := types(g, n); len(ts) != 1 || ts[0] != TypeRerollDeclined {
		t.Fatalf("events %v", ts)
	}
	pending(t, g, projector.WaitRoll, "alice", "wound", 1, 4)
	same(t, g)
}

// No 1s, no offer; a unit without a re-roll gets none.
func TestNoRerollOffered(t *testing.T) {
	g := newGame(t, squad("a", "alice", 2, 10, gun("bolter", 4, 4, "re-roll hit rolls of 1")), squad("b", "bob", 2, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(2, 4)
	pending(t, g, projector.WaitRoll, "alice", "wound", 1, 4)
	g = newGame(t, squad("a", "alice", 2, 10, gun("bolter", 4, 4)), squad("b", "bob", 2, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(1, 4)
	pending(t, g, projector.WaitRoll, "alice", "wound", 1, 4)
	g.Refused(alice, projector.Command{Type: projector.CmdReroll}, projector.CodeWrongStep)
}

// Re-roll hit rolls (a unit ability): the failures by default, any die on
// request; [TWIN-LINKED] re-rolls wound rolls.
func TestRerollHitsAndTwinLinked(t *testing.T) {
	u := squad("a", "alice", 3, 10, gun("twin", 3, 4, "[TWIN-LINKED]"))
	u.Keywords = []string{"RE-ROLL HIT ROLLS"}
	g := newGame(t, u, squad("b", "bob", 3, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(2, 3, 6)
	if o := edAttack(g.State.Attack).Offer; o == nil || !slices.Equal(o.Indices, []int{0}) || o.Rule != RuleHits {
		t.Fatalf("offer %+v", o)
	}
	g.Do(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{0, 1}}) // a success may be re-rolled too
	g.Roll(3, 2)
	if a := g.State.Attack; !slices.Equal(a.Steps[0].Values, []int{3, 2, 6}) || a.Hits != 2 {
		t.Fatalf("values %v, hits %d", a.Steps[0].Values, a.Hits)
	}
	g.Roll(1, 5) // wounds on 4+: one failure, offered for [TWIN-LINKED]
	pending(t, g, WaitReroll, "alice", "wound", 0, 4)
	g.Do(alice, projector.Command{Type: projector.CmdReroll})
	g.Roll(4)
	if a := g.State.Attack; a.Wounds != 2 {
		t.Fatalf("wounds %d", a.Wounds)
	}
	same(t, g)
}

// Re-rolls come before modifiers: "re-roll hit rolls of 1" looks at the
// unmodified die, so a 2 that the −1 of close quarters makes a 1 is not
// re-rolled, and the re-rolled die then takes the modifier.
func TestRerollBeforeModifiers(t *testing.T) {
	beast := squad("beast", "alice", 1, 10, gun("cannon", 3, 8))
	beast.Keywords = []string{"MONSTER", KwRerollHitOnes}
	beast.Weapons[0].Attacks = "3"
	g := newGame(t, beast, squad("b", "bob", 2, 11.5))
	toShooting(g)
	g.Do(alice, shoot("beast", "b", CloseQuarters))
	pending(t, g, projector.WaitRoll, "alice", "hit", 3, 4) // BS3+ with −1
	g.Roll(2, 1, 4)
	if o := edAttack(g.State.Attack).Offer; o == nil || !slices.Equal(o.Indices, []int{1}) {
		t.Fatalf("offer %+v: only the unmodified 1 may be re-rolled", o)
	}
	g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{0}}, projector.CodeBadDice)
	g.Do(alice, projector.Command{Type: projector.CmdReroll})
	g.Roll(3) // an unmodified 3, −1: a miss
	if a := g.State.Attack; a.Hits != 1 {
		t.Fatalf("hits %d, want 1 (the 4)", a.Hits)
	}
	same(t, g)
}
