package ed11e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// A wall between x=13 and x=17 hides b (x=20, y≈10) from the battery
// (x=10); a spotter at (25, 40) sees b over the wall's end.
func indirectGame(t *testing.T, spotter bool, battery events.UnitSpec) *projtest.Game {
	units := []events.UnitSpec{battery, squad("b", "bob", 1, 20)}
	if spotter {
		units = append(units, with(squad("spot", "alice", 1, 25), func(m *events.ModelSpec) { m.Y = 40 }))
	}
	su := setup(units...)
	su.Terrain = []events.TerrainSpec{rect("wall", events.TerrainBlocking, 13, 0, 17, 30)}
	return projtest.New(t, Rules{}, su)
}

func mortar(bs int) events.WeaponSpec {
	w := gun("mortar", bs, 5, "[INDIRECT FIRE]")
	w.Range = 48
	return w
}

func TestIndirectShootingAtAHiddenUnit(t *testing.T) {
	battery := squad("a", "alice", 1, 10, mortar(2), gun("bolter", 3, 4))
	g := indirectGame(t, false, battery)
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", Normal), projector.CodeNotVisible, "wall")
	g.Do(alice, shoot("a", "b", Indirect))
	// Only the mortar fires (the bolter needs sight); cover, and 1–5 fail
	// since no friendly unit sees the target.
	if ws := weapons(g); len(ws) != 1 || ws[0] != "mortar" {
		t.Fatalf("weapons %v", ws)
	}
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 6)
	if l := g.State.Attack.Steps[0].Label; !strings.Contains(l, "cover") || !strings.Contains(l, "1–5 fail") {
		t.Fatalf("label %q", l)
	}
	g.Roll(5)
	if g.State.Attack != nil || g.State.LastAttack.Hits != 0 {
		t.Fatal("an unmodified 5 fails for indirect fire")
	}
	same(t, g)
}

func TestIndirectThresholds(t *testing.T) {
	cases := []struct {
		name         string
		spotter, mov bool
		need         int
	}{
		{"stationary, nobody sees the target: 1–5 fail", false, false, 6},
		{"stationary, a friendly unit sees it: 1–3 fail", true, false, 4},
		{"moved, a friendly unit sees it: 1–5 fail", true, true, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := indirectGame(t, c.spotter, squad("a", "alice", 1, 10, mortar(2)))
			g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
			if c.mov {
				g.Do(alice, move("a", "a-1", 10, 12))
			}
			g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
			g.Do(alice, shoot("a", "b", Indirect))
			pending(t, g, projector.WaitRoll, "alice", "hit", 1, c.need)
		})
	}
	// With 1–3 failing, BS4+ in cover still needs 5+: the threshold is a
	// floor, not a replacement for the BS.
	g := indirectGame(t, true, squad("a", "alice", 1, 10, mortar(4)))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Indirect))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 5)
}

// Seed 003, 10.07: "unless your unit remained stationary this turn and the
// target is visible to one or more friendly units" — another unit: a
// battery whose own second model sees round the wall does not spot for
// itself, so 1–5 still fail; a friendly spotter makes it 1–3.
func TestIndirectFiringUnitDoesNotSpotForItself(t *testing.T) {
	battery := squad("a", "alice", 2, 10, mortar(2))
	battery.Models[1].X, battery.Models[1].Y = 25, 35 // beyond the wall: sees b
	g := indirectGame(t, false, battery)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Indirect))
	pending(t, g, projector.WaitRoll, "alice", "hit", 2, 6)
	g = indirectGame(t, true, battery)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Indirect))
	pending(t, g, projector.WaitRoll, "alice", "hit", 2, 4)
}

func TestIndirectEligibility(t *testing.T) {
	g := indirectGame(t, false, squad("a", "alice", 1, 10, gun("bolter", 3, 4)))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", Indirect), projector.CodeNotEligible, "no [INDIRECT FIRE] weapon", "10.07")
	g = indirectGame(t, false, squad("a", "alice", 1, 10, mortar(3)))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	doAdvance(g, "a", 1)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	refusedWith(t, g, shoot("a", "b", Indirect), projector.CodeNotEligible, "advanced")
	g = newGame(t, squad("a", "alice", 1, 10, mortar(3)), squad("b", "bob", 1, 11.5))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", Indirect), projector.CodeNotEligible, "engaged")
}

// Bad input: hit rolls of indirect attacks cannot be re-rolled, even by a
// unit that has a re-roll.
func TestIndirectHitRollsCannotBeRerolled(t *testing.T) {
	battery := squad("a", "alice", 2, 10, mortar(2))
	battery.Keywords = []string{KwRerollHitOnes}
	g := indirectGame(t, true, battery)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Indirect))
	g.Roll(1, 6) // a 1: no re-roll is offered
	pending(t, g, projector.WaitRoll, "alice", "wound", 1, 0)
	refusedWith(t, g, projector.Command{Type: projector.CmdReroll, Indices: []int{0}}, projector.CodeNotEligible, "[INDIRECT FIRE]", "cannot be re-rolled")
	refusedWith(t, g, projector.Command{Type: projector.CmdReroll}, projector.CodeNotEligible, "cannot be re-rolled")
	// Every hit missed: the attack is over, and the answer is the same.
	g = indirectGame(t, true, battery)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Indirect))
	g.Roll(1, 1)
	if g.State.Attack != nil {
		t.Fatal("attack should be over")
	}
	refusedWith(t, g, projector.Command{Type: projector.CmdReroll}, projector.CodeNotEligible, "[INDIRECT FIRE]")
	same(t, g)
}

// Seed 003: "An unmodified hit roll of 1‑5 fails, unless your unit
// remained stationary this turn and the target is visible to one or more
// friendly units". The firing unit does not spot for itself: "your unit"
// is set apart from the "friendly units" that see the target
// (docs/rules/11e.md#indirect-shooting). A battery that sees its target in
// the open, with no other friendly unit seeing it, still fails on 1–5; a
// second unit of the firing side that sees it brings that to 1–3.
func TestAUnitDoesNotSpotForItsOwnIndirectFire(t *testing.T) {
	for _, c := range []struct {
		name   string
		others []events.UnitSpec
		need   int
	}{
		{"the battery alone sees the target", nil, 6},
		{"another friendly unit sees it too", []events.UnitSpec{with(squad("spot", "alice", 1, 25), func(m *events.ModelSpec) { m.Y = 20 })}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			units := append([]events.UnitSpec{squad("a", "alice", 1, 10, mortar(2)), squad("b", "bob", 1, 20)}, c.others...)
			g := newGame(t, units...)
			toShooting(g)
			g.Do(alice, shoot("a", "b", Normal)) // it sees the target: normal shooting is allowed
			g = newGame(t, units...)
			toShooting(g)
			g.Do(alice, shoot("a", "b", Indirect))
			pending(t, g, projector.WaitRoll, "alice", "hit", 1, c.need)
		})
	}
}
