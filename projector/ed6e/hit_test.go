package ed6e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// The BS table of docs/rules/6e.md#roll-to-hit and
// docs/rules/6e.md#bs-6-and-above, row by row: first roll, and the re-roll of a 1
// (0 = none).
var bsRows = []struct{ bs, hit, reroll int }{
	{1, 6, 0}, {2, 5, 0}, {3, 4, 0}, {4, 3, 0}, {5, 2, 0},
	{6, 2, 6}, {7, 2, 5}, {8, 2, 4}, {9, 2, 3}, {10, 2, 2},
}

func TestBSTableEveryRow(t *testing.T) {
	for _, r := range bsRows {
		if got := HitNeed(r.bs); got != r.hit {
			t.Errorf("BS%d hits on %d+, want %d+", r.bs, got, r.hit)
		}
		if got := RerollNeed(r.bs); got != r.reroll {
			t.Errorf("BS%d re-rolls a 1 needing %d, want %d", r.bs, got, r.reroll)
		}
	}
	if HitNeed(0) != 7 || HitNeed(12) != 2 || RerollNeed(12) != 2 {
		t.Error("BS0 must not hit; BS above 10 reads as BS10")
	}
}

// oneShooter: alice's model of BS bs firing one bolter shot (weapon w if
// given) at 10 Orks.
func oneShooter(t *testing.T, bs int, w ...events.WeaponSpec) *projtest.Game {
	gun := bolter()
	if len(w) > 0 {
		gun = w[0]
	}
	m := marines("sh", 1, 10, gun)
	m.Models[0].BS = bs
	g := newGame(t, m, boyz("boyz", 10, 20))
	toShooting(g)
	g.Do(alice, shoot("sh", "boyz"))
	return g
}

// Every row through the engine: the first roll's target, and for BS6+ a
// rolled 1 asks for its own re-roll event, linked to the die it replaces,
// at the table's second number.
func TestBSTableThroughTheEngine(t *testing.T) {
	for _, r := range bsRows {
		g := oneShooter(t, r.bs)
		p := pending(t, g, projector.WaitRoll, "alice")
		if p.Purpose != purposeHit || p.Need != r.hit || p.Dice != 1 || p.Reroll != nil {
			t.Fatalf("BS%d: first roll %+v", r.bs, p)
		}
		g.Roll(1)
		hitSeq := g.State.Seq
		p = g.State.Pending
		if r.reroll == 0 {
			if g.State.Attack != nil {
				t.Fatalf("BS%d: a 1 must end the attack (no re-roll), pending %+v", r.bs, p)
			}
			continue
		}
		if p.Purpose != purposeHit || p.Need != r.reroll || p.Dice != 1 || p.Reroll == nil ||
			p.Reroll.Seq != hitSeq || len(p.Reroll.Indices) != 1 || p.Reroll.Indices[0] != 0 || p.Reroll.Source != ruleBS {
			t.Fatalf("BS%d: re-roll step %+v (reroll %+v)", r.bs, p, p.Reroll)
		}
		g.Roll(r.reroll)
		ev, _ := projector.Vocabulary(g.Rules).Decode(g.Events[len(g.Events)-1])
		d := ev.(*events.DiceRolled)
		if d.Reroll == nil || d.Reroll.Seq != hitSeq || d.Reroll.Indices[0] != 0 {
			t.Fatalf("BS%d: the re-roll event does not name the die it replaces: %+v", r.bs, d.Reroll)
		}
		if g.State.Attack.Hits != 1 || g.State.Pending.Purpose != purposeWound {
			t.Fatalf("BS%d: re-roll at %d+ should hit; pending %+v", r.bs, r.reroll, g.State.Pending)
		}
		same(t, g)
	}
}

// docs/rules/6e.md#bs-6-and-above: BS8 hits with probability 5/6 + 1/6 × 1/2 = 11/12. Exact
// enumeration of the faces of the first die and of its re-roll through the
// engine: 33 of the 36 equally likely pairs hit.
func TestBS8HitsElevenTwelfthsByEnumeration(t *testing.T) {
	g := oneShooter(t, 8)
	start := g.State
	hits := 0
	for first := 1; first <= 6; first++ {
		for second := 1; second <= 6; second++ {
			s := start.Clone()
			roll := func(v int) {
				if err := sim.Apply(Rules{}, s, alice, projector.Command{Type: projector.CmdRoll, Values: []int{v}}); err != nil {
					t.Fatal(err)
				}
			}
			roll(first)
			if s.Attack != nil && s.Pending.Reroll != nil {
				roll(second)
			} else if first == 1 {
				t.Fatal("a 1 at BS8 must be re-rolled")
			}
			a := s.Attack
			if a == nil {
				a = s.LastAttack
			}
			hits += a.Hits
		}
	}
	if hits != 33 {
		t.Fatalf("BS8: %d of 36 face pairs hit, want 33 (11/12)", hits)
	}
	if d := PHit(8) - 11.0/12; d > 1e-12 || d < -1e-12 {
		t.Fatalf("PHit(8) = %v", PHit(8))
	}
}

// A re-roll is never re-rolled: a 1 on the re-roll stands.
func TestNoDieIsRerolledTwice(t *testing.T) {
	g := oneShooter(t, 10)
	g.Roll(1)
	g.Roll(1)
	if g.State.Attack != nil || g.State.LastAttack.Hits != 0 {
		t.Fatalf("the re-roll's 1 must stand; pending %+v", g.State.Pending)
	}
}

// A master-crafted weapon's re-roll replaces the table: failed dice (one
// per model) are re-rolled needing the first roll's number.
func TestMasterCraftedReplacesTheTable(t *testing.T) {
	mc := events.WeaponSpec{ID: "mc", Name: "master-crafted bolter", Range: 24, Type: Assault, Shots: 2, S: 4, AP: 5, Keywords: []string{"MASTER-CRAFTED"}}
	// BS7: the table would re-roll 1s on 5+; master-crafted re-rolls on 2+.
	m := marines("sh", 2, 10, mc)
	m.Models[0].BS, m.Models[1].BS = 7, 7
	g := newGame(t, m, boyz("boyz", 10, 20))
	toShooting(g)
	g.Do(alice, shoot("sh", "boyz"))
	g.Roll(1, 1, 1, 3)
	p := g.State.Pending
	if p.Need != 2 || p.Dice != 2 || p.Reroll == nil || p.Reroll.Source != ruleMC || p.Reroll.Indices[0] != 0 || p.Reroll.Indices[1] != 1 {
		t.Fatalf("BS7 master-crafted: %+v reroll %+v", p, p.Reroll)
	}
	// BS4: re-roll a failed 2 as well as a 1, needing 3+, one die for one model.
	g = oneShooter(t, 4, events.WeaponSpec{ID: "mc", Range: 24, Type: Assault, Shots: 3, S: 4, Keywords: []string{"[master-crafted]"}})
	g.Roll(2, 1, 5)
	p = g.State.Pending
	if p.Need != 3 || p.Dice != 1 || p.Reroll == nil || p.Reroll.Indices[0] != 0 {
		t.Fatalf("BS4 master-crafted: %+v reroll %+v", p, p.Reroll)
	}
	g.Roll(3)
	if g.State.Attack.Hits != 2 {
		t.Fatalf("hits = %d, want 2", g.State.Attack.Hits)
	}
	same(t, g)
}

// Re-rolls are asked for by the match: a reroll command is refused.
func TestRerollCommandIsRefused(t *testing.T) {
	g := oneShooter(t, 8)
	g.Refused(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{0}}, projector.CodeWrongStep)
}

func TestWSTable(t *testing.T) {
	cases := []struct{ att, def, need int }{
		{5, 4, 3}, {4, 3, 3}, {4, 4, 4}, {3, 4, 4}, {2, 4, 4}, {2, 5, 5}, {3, 7, 5}, {3, 6, 4}, {1, 3, 5}, {10, 1, 3},
	}
	for _, c := range cases {
		if got := WSHitNeed(c.att, c.def); got != c.need {
			t.Errorf("WS%d vs WS%d hits on %d+, want %d+", c.att, c.def, got, c.need)
		}
	}
}
