package ed11e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// doAdvance declares an advance for unit, rolls v for it and makes its
// first model's advance move (one inch back along y: the unit has made an
// advance move), in the movement phase.
func doAdvance(g *projtest.Game, unit string, v int) {
	g.T.Helper()
	g.Do(alice, projector.Command{Type: CmdAdvance, Unit: unit})
	g.Roll(v)
	m := g.State.Unit(unit).Models[0]
	g.Do(alice, move(unit, m.ID, m.X, m.Y-1))
}

func refusedWith(t *testing.T, g *projtest.Game, c projector.Command, code projector.Code, words ...string) {
	t.Helper()
	r := g.Refused(alice, c, code)
	for _, w := range words {
		if !strings.Contains(r.Reason, w) {
			t.Fatalf("reason %q does not say %q", r.Reason, w)
		}
	}
}

// weapons lists the weapon of each shooter of the attack in progress.
func weapons(g *projtest.Game) []string {
	var out []string
	for _, sh := range g.State.Attack.Shooters {
		out = append(out, sh.Weapon)
	}
	return out
}

func TestNormalShooting(t *testing.T) {
	// Eligible: unengaged, did not advance.
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	if g.State.Attack.Kind != Normal {
		t.Fatalf("kind %q", g.State.Attack.Kind)
	}
	// Every weapon fires by default; the weapons map names some, or none.
	g = newGame(t, squad("a", "alice", 2, 10, gun("bolter", 3, 4), gun("pistol", 3, 4)), squad("b", "bob", 1, 20))
	toShooting(g)
	g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: Normal,
		Weapons: map[string]string{"a-1": "bolter,bolter"}}, projector.CodeBadCommand)
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: Normal,
		Weapons: map[string]string{"a-1": "none", "a-2": "pistol, bolter"}})
	if ws := weapons(g); !slices.Equal(ws, []string{"pistol", "bolter"}) || g.State.Attack.Shooters[0].Model != "a-2" {
		t.Fatalf("shooters %+v", g.State.Attack.Shooters)
	}
	same(t, g)
	// Not after advancing.
	g = newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	doAdvance(g, "a", 3)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	refusedWith(t, g, shoot("a", "b", Normal), projector.CodeNotEligible, "advanced", "10.04")
	// Not engaged.
	g = newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 11.5))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", Normal), projector.CodeNotEligible, "engaged")
	// The type must be named.
	refusedWith(t, g, shoot("a", "b", ""), projector.CodeBadCommand, "shooting type")
	refusedWith(t, g, shoot("a", "b", "rapid"), projector.CodeNotEligible, "not a shooting type")
}

func TestAssaultShooting(t *testing.T) {
	storm := gun("storm", 3, 4, "[ASSAULT]")
	u := squad("a", "alice", 2, 10, gun("bolter", 3, 4), storm)
	g := newGame(t, u, squad("b", "bob", 2, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	doAdvance(g, "a", 4)
	g.Do(alice, move("a", "a-1", 10, 19)) // 9": Move 6 + advance 4
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	refusedWith(t, g, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: Assault,
		Weapons: map[string]string{"a-1": "bolter"}}, projector.CodeNotEligible, "[ASSAULT]", "bolter")
	g.Do(alice, shoot("a", "b", Assault))
	if ws := weapons(g); len(ws) != 2 || ws[0] != "storm" || ws[1] != "storm" {
		t.Fatalf("only [ASSAULT] weapons fire, got %v", ws)
	}
	same(t, g)

	// Not without advancing.
	g = newGame(t, u, squad("b", "bob", 2, 20))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", Assault), projector.CodeNotEligible, "made no advance move")
}

// Bad input: a unit without [ASSAULT] weapons choosing assault shooting
// after advancing.
func TestAssaultShootingWithoutAssaultWeaponRefused(t *testing.T) {
	g := newGame(t, squad("a", "alice", 2, 10, gun("bolter", 3, 4)), squad("b", "bob", 2, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	doAdvance(g, "a", 2)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	refusedWith(t, g, shoot("a", "b", Assault), projector.CodeNotEligible, "no [ASSAULT] weapon", "10.05")
	same(t, g)
}

func TestCloseQuartersShootingInfantry(t *testing.T) {
	pistol := gun("pistol", 3, 4, "[CLOSE-QUARTERS]")
	// a stands 0.5" from b (engaged); c is 10" away.
	u := squad("a", "alice", 1, 10, gun("bolter", 3, 4), pistol)
	g := newGame(t, u, squad("b", "bob", 1, 11.5), squad("c", "bob", 1, 20))
	toShooting(g)
	if e := g.State.Unit("a").Engaged; len(e) != 1 || e[0] != "b" {
		t.Fatalf("engaged %v", e)
	}
	refusedWith(t, g, shoot("a", "b", Normal), projector.CodeNotEligible, "engaged")
	refusedWith(t, g, shoot("a", "c", CloseQuarters), projector.CodeNotEligible, "engaged with its unit")
	refusedWith(t, g, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: CloseQuarters,
		Weapons: map[string]string{"a-1": "bolter"}}, projector.CodeNotEligible, "[CLOSE-QUARTERS]")
	g.Do(alice, shoot("a", "b", CloseQuarters))
	if ws := weapons(g); len(ws) != 1 || ws[0] != "pistol" {
		t.Fatalf("only [CLOSE-QUARTERS] weapons fire, got %v", ws)
	}
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 3) // no −1 for infantry

	// Ineligible: engaged without a [CLOSE-QUARTERS] weapon.
	g = newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 11.5))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", CloseQuarters), projector.CodeNotEligible, "no [CLOSE-QUARTERS] weapon")
	// Ineligible: not engaged.
	g = newGame(t, u, squad("b", "bob", 1, 20))
	toShooting(g)
	refusedWith(t, g, shoot("a", "b", CloseQuarters), projector.CodeNotEligible, "not engaged")
}

// A MONSTER in close quarters: −1 to hit unless a [CLOSE-QUARTERS] weapon
// at a unit it is engaged with; [BLAST] never at an engaged unit.
func TestMonsterInCloseQuarters(t *testing.T) {
	cannon := gun("cannon", 3, 8)
	claws := gun("claw-gun", 3, 6, "[CLOSE-QUARTERS]")
	blast := gun("frag", 3, 5, "[BLAST]")
	beast := squad("beast", "alice", 1, 10, cannon, claws, blast)
	beast.Keywords = []string{"MONSTER"}
	cases := []struct {
		name, target, weapon string
		need                 int
	}{
		{"non-CQ weapon at the engaged unit: −1", "b", "cannon", 4},
		{"CQ weapon at the engaged unit: no −1", "b", "claw-gun", 3},
		{"CQ weapon at a unit it is not engaged with: −1", "c", "claw-gun", 4},
		{"[BLAST] at a unit it is not engaged with: −1", "c", "frag", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGame(t, beast, squad("b", "bob", 1, 11.5), squad("c", "bob", 1, 20))
			toShooting(g)
			g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "beast", Target: c.target, Kind: CloseQuarters,
				Weapons: map[string]string{"beast-1": c.weapon}})
			pending(t, g, projector.WaitRoll, "alice", "hit", 1, c.need)
		})
	}
	// Bad input: [BLAST] at the unit it is engaged with.
	g := newGame(t, beast, squad("b", "bob", 1, 11.5))
	toShooting(g)
	refusedWith(t, g, projector.Command{Type: projector.CmdShoot, Unit: "beast", Target: "b", Kind: CloseQuarters,
		Weapons: map[string]string{"beast-1": "frag"}}, projector.CodeNotEligible, "[BLAST]", "engaged")
	same(t, g)
	// Left to choose, the blast weapon simply does not fire at it.
	g.Do(alice, shoot("beast", "b", CloseQuarters))
	if ws := weapons(g); len(ws) != 2 || ws[0] != "cannon" || ws[1] != "claw-gun" {
		t.Fatalf("weapons %v", ws)
	}
	// A MONSTER without any [CLOSE-QUARTERS] weapon is still eligible.
	plain := squad("beast", "alice", 1, 10, cannon)
	plain.Keywords = []string{"MONSTER"}
	g = newGame(t, plain, squad("b", "bob", 1, 11.5))
	toShooting(g)
	g.Do(alice, shoot("beast", "b", CloseQuarters))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 4)
}

// Modifiers are summed and capped at ±1.
func TestHitModifierCap(t *testing.T) {
	heavy := gun("heavy", 4, 5, "[HEAVY]", KwPlusOneHit)
	g := newGame(t, squad("a", "alice", 1, 10, heavy), squad("b", "bob", 1, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 3) // +2 capped at +1: 3+, not 2+
	if l := g.State.Attack.Steps[0].Label; !strings.Contains(l, "capped at +1") {
		t.Fatalf("label %q", l)
	}
	// Moved: [HEAVY] gives nothing, the ability alone +1.
	g = newGame(t, squad("a", "alice", 1, 10, heavy), squad("b", "bob", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, move("a", "a-1", 11, 10))
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("a", "b", Normal))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 3)
	// −2 capped at −1: a MONSTER's cannon in close quarters at a STEALTH unit.
	beast := squad("beast", "alice", 1, 10, gun("cannon", 3, 8))
	beast.Keywords = []string{"MONSTER"}
	sneaky := squad("b", "bob", 1, 11.5)
	sneaky.Keywords = []string{"STEALTH"}
	g = newGame(t, beast, sneaky)
	toShooting(g)
	g.Do(alice, shoot("beast", "b", CloseQuarters))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 4) // 4+, not 5+
}

// Cover worsens BS by 1, outside the modifier cap.
func TestCoverWorsensBS(t *testing.T) {
	su := setup(squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 20))
	su.Terrain = []events.TerrainSpec{rect("ruin", events.TerrainRuins, 18, 0, 22, 30)}
	g := projtest.New(t, Rules{}, su)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 4)
	// A MONSTER's −1 in close quarters, plus cover: 3+ → 5+.
	beast := squad("beast", "alice", 1, 17, gun("cannon", 3, 8))
	beast.Keywords = []string{"MONSTER"}
	su = setup(beast, squad("b", "bob", 1, 18.5))
	su.Terrain = []events.TerrainSpec{rect("ruin", events.TerrainRuins, 18, 0, 22, 30)}
	g = projtest.New(t, Rules{}, su)
	toShooting(g)
	g.Do(alice, shoot("beast", "b", CloseQuarters))
	pending(t, g, projector.WaitRoll, "alice", "hit", 1, 5)
}

// Wound rolls use S against the target's T (the highest, in a mixed unit).
func TestWoundRollUsesTargetToughness(t *testing.T) {
	tgt := squad("b", "bob", 2, 20)
	tgt.Models[1].T = 8
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), tgt)
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6)
	pending(t, g, projector.WaitRoll, "alice", "wound", 1, 6) // S4 vs T8: S ≤ T/2
}
