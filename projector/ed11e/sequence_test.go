package ed11e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// The whole sequence once: hit, wound, allocation by the defender, save,
// damage, with every outcome derived and none recorded.
func TestAttackSequence(t *testing.T) {
	g := newGame(t, squad("a", "alice", 4, 10, gun("bolter", 3, 4)), squad("b", "bob", 3, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	pending(t, g, projector.WaitRoll, "alice", "hit", 4, 3)
	g.Roll(1, 2, 3, 6) // 2 hits
	pending(t, g, projector.WaitRoll, "alice", "wound", 2, 4)
	g.Roll(4, 3) // 1 wound
	pending(t, g, WaitAllocate, "bob", "", 0, 0)
	g.Refused(alice, allocate("b-2"), projector.CodeWrongPlayer)
	g.Refused(bob, allocate("a-1"), projector.CodeBadCasualty)
	g.Do(bob, allocate("b-2"))
	pending(t, g, projector.WaitRoll, "bob", "save", 1, 4)
	g.Roll(3) // failed
	la := g.State.LastAttack
	if g.State.Attack != nil || la.Hits != 2 || la.Wounds != 1 || la.Unsaved != 1 || edAttack(la).Damage != 1 {
		t.Fatalf("outcome %+v", la)
	}
	if u := g.State.Unit("b"); u.Model("b-2").Alive() || !u.Model("b-1").Alive() {
		t.Fatal("the allocated model must be the one destroyed")
	}
	if !g.State.Unit("a").Fired || g.State.TallyOf("bob").ModelsLost != 1 || g.State.TallyOf("alice").WoundsCaused != 1 {
		t.Fatalf("fired %v, tally %+v", g.State.Unit("a").Fired, g.State.Tally)
	}
	for _, e := range g.Events {
		if strings.Contains(string(e.Type), "hit") && e.Type != events.TypeDiceRolled {
			t.Fatalf("an outcome was recorded as an event: %s", e.Type)
		}
	}
	same(t, g)
}

// A single model left takes the attack without a choice; so does the
// one model that has lost wounds.
func TestWoundedModelFirst(t *testing.T) {
	tgt := with(squad("b", "bob", 3, 20), func(m *events.ModelSpec) { m.W = 3 })
	g := newGame(t, squad("a", "alice", 3, 10, gun("bolter", 3, 4)), tgt)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6, 6, 6)
	g.Roll(6, 6, 6)
	g.Do(bob, allocate("b-3"))
	g.Roll(1) // b-3 loses 1 of 3
	// b-3 has lost wounds: the next attacks go to it without a choice.
	pending(t, g, projector.WaitRoll, "bob", "save", 1, 4)
	if a := g.State.Attack; edAttack(a).Wounds[1].Model != "b-3" {
		t.Fatalf("second attack allocated to %q", edAttack(a).Wounds[1].Model)
	}
	g.Roll(1)
	g.Roll(1)
	u := g.State.Unit("b")
	if u.Model("b-3").Alive() || u.Model("b-1").WoundsLeft != 3 || u.Model("b-2").WoundsLeft != 3 {
		t.Fatalf("all three wounds must fall on b-3: %+v %+v %+v", u.Model("b-1"), u.Model("b-2"), u.Model("b-3"))
	}
	same(t, g)
}

// When models have lost wounds and the defender must choose, an
// allocation to an unwounded model is refused. (Only reachable with two
// wounded models, which this engine never makes itself: the state is set
// up by hand.)
func TestAllocationToUnwoundedModelRefused(t *testing.T) {
	tgt := with(squad("b", "bob", 3, 20), func(m *events.ModelSpec) { m.W = 3 })
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), tgt)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6)
	g.Both(func(s *projector.State) {
		u := s.Unit("b")
		u.Model("b-1").WoundsLeft, u.Model("b-2").WoundsLeft = 2, 1
	})
	g.Roll(6)
	pending(t, g, WaitAllocate, "bob", "", 0, 0)
	r := g.Refused(bob, allocate("b-3"), projector.CodeBadCasualty)
	if !strings.Contains(r.Reason, "lost wounds") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Do(bob, allocate("b-2"))
}

// AP worsens the armour save; the invulnerable save ignores AP; a model
// with no possible save rolls none.
func TestSavesWithAPAndInvulnerable(t *testing.T) {
	melta := gun("melta", 3, 9)
	melta.AP = -4
	lascannon := gun("las", 3, 9)
	lascannon.AP = -1
	cases := []struct {
		name     string
		w        events.WeaponSpec
		sv, inv  int
		saveNeed int // 0: no save roll
	}{
		{"AP−1 turns 3+ into 4+", lascannon, 3, 0, 4},
		{"invulnerable 4+ against AP−4", melta, 3, 4, 4},
		{"armour 3+ against AP−1 beats invulnerable 5+", lascannon, 3, 5, 4},
		{"no save against AP−4 without invulnerable", melta, 3, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tgt := with(squad("b", "bob", 2, 20), func(m *events.ModelSpec) { m.Sv, m.Inv = c.sv, c.inv })
			g := newGame(t, squad("a", "alice", 1, 10, c.w), tgt)
			toShooting(g)
			g.Do(alice, shoot("a", "b", Normal))
			g.Roll(6)
			g.Roll(6)
			g.Do(bob, allocate("b-1"))
			if c.saveNeed == 0 {
				if g.State.Attack != nil || g.State.Unit("b").Model("b-1").Alive() {
					t.Fatalf("no save: the model should be destroyed at once; pending %+v", g.State.Pending)
				}
				return
			}
			pending(t, g, projector.WaitRoll, "bob", "save", 1, c.saveNeed)
			g.Roll(c.saveNeed) // exactly the need saves
			if !g.State.Unit("b").Model("b-1").Alive() || g.State.LastAttack.Saves != 1 {
				t.Fatal("a roll equal to the need must save")
			}
		})
	}
}

// D3 damage is rolled as its own die (halved D6); damage beyond a
// model's wounds is lost, not passed on.
func TestD3DamageAndExcessLost(t *testing.T) {
	w := gun("plasma", 3, 8)
	w.D = "D3"
	tgt := with(squad("b", "bob", 2, 20), func(m *events.ModelSpec) { m.W = 2; m.Sv = 6 })
	g := newGame(t, squad("a", "alice", 2, 10, w), tgt)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6, 6)
	g.Roll(6, 6)
	g.Do(bob, allocate("b-1"))
	g.Roll(1) // failed save
	pending(t, g, projector.WaitRoll, "alice", PurposeDamage, 1, 0)
	g.Roll(6) // D3 of a 6 = 3: b-1 has 2 wounds, 1 is lost
	u := g.State.Unit("b")
	if u.Model("b-1").Alive() || u.Model("b-2").WoundsLeft != 2 {
		t.Fatalf("excess damage must be lost: b-1 %+v, b-2 %+v", u.Model("b-1"), u.Model("b-2"))
	}
	// Second attack: b-2 is the only model left, no choice.
	pending(t, g, projector.WaitRoll, "bob", "save", 1, 6)
	g.Roll(2)
	g.Roll(3) // D3 of a 3 = 2
	la := g.State.LastAttack
	if !u.Destroyed() || edAttack(la).Damage != 4 || edAttack(la).Wounds[0].Damage != 3 || edAttack(la).Wounds[0].Lost != 2 || edAttack(la).Wounds[1].Damage != 2 {
		t.Fatalf("damage %d, wounds %+v", edAttack(la).Damage, edAttack(la).Wounds)
	}
	if g.State.TallyOf("alice").WoundsCaused != 4 {
		t.Fatalf("tally %+v", g.State.Tally)
	}
	same(t, g)
}

// Once the target is destroyed, the remaining attacks are lost.
func TestAttacksOnADestroyedUnitAreLost(t *testing.T) {
	g := newGame(t, squad("a", "alice", 3, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6, 6, 6)
	g.Roll(6, 6, 6)
	g.Roll(1) // the only model fails its save
	if g.State.Attack != nil || !g.State.Unit("b").Destroyed() || g.State.LastAttack.Unsaved != 1 {
		t.Fatalf("attack should end: %+v, pending %+v", g.State.LastAttack, g.State.Pending)
	}
}

// Variable attacks are rolled as their own dice, one expression per model.
func TestVariableAttacksRolled(t *testing.T) {
	w := gun("flamer", 3, 5)
	w.Attacks = "D6"
	g := newGame(t, squad("a", "alice", 2, 10, w), squad("b", "bob", 5, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	pending(t, g, projector.WaitRoll, "alice", PurposeAttacks, 2, 0)
	g.Roll(2, 5)
	pending(t, g, projector.WaitRoll, "alice", "hit", 7, 3)
	a := g.State.Attack
	if a.Shots != 7 || a.Shooters[0].Shots != 2 || a.Shooters[1].Shots != 5 {
		t.Fatalf("shots %d, shooters %+v", a.Shots, a.Shooters)
	}
	same(t, g)
}

// Damage dice given for a fixed-damage weapon are refused, the match
// unchanged.
func TestDamageDiceForFixedDamageRefused(t *testing.T) {
	w := gun("lascannon", 3, 12)
	w.D = "2"
	tgt := with(squad("b", "bob", 2, 20), func(m *events.ModelSpec) { m.W = 3 })
	g := newGame(t, squad("a", "alice", 2, 10, w), tgt)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6, 6)
	g.Roll(6, 6)
	g.Do(bob, allocate("b-1"))
	g.Roll(1) // unsaved: 2 damage, fixed
	r := g.Refused(alice, projector.Command{Type: projector.CmdRoll, Purpose: PurposeDamage, Values: []int{3}}, projector.CodeWrongStep)
	if !strings.Contains(r.Reason, "fixed damage") || !strings.Contains(r.Reason, "lascannon") {
		t.Fatalf("reason %q", r.Reason)
	}
	if m := g.State.Unit("b").Model("b-1"); m.WoundsLeft != 1 {
		t.Fatalf("fixed D2 leaves %d wounds, want 1", m.WoundsLeft)
	}
	// A roll whose purpose does not match the pending step is refused too.
	g.Refused(bob, projector.Command{Type: projector.CmdRoll, Purpose: "hit", Values: []int{3}}, projector.CodeWrongStep)
	g.Do(bob, projector.Command{Type: projector.CmdRoll, Purpose: "save", Values: []int{4}})
}
