package ed3e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func TestHitNeedIsSevenMinusBSNeverBetterThanTwo(t *testing.T) {
	want := map[int]int{0: 7, 1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 2, 7: 2, 10: 2}
	for bs, need := range want {
		if got := HitNeed(bs); got != need {
			t.Errorf("BS%d hits on %d+, want %d+", bs, got, need)
		}
	}
}

// The full five-step sequence with the text's numbers: 10 boltguns (BS4,
// S4) at Ork Boyz (T4, Sv6) at half range: 20 shots hitting on 3+, wounding
// on 4+, saved on 6+, owner-chosen casualties.
func TestFiveStepSequence(t *testing.T) {
	g := newGame(t, marines("tac", 10, 10, boltgun()), boyz("boyz", 10, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	p := g.State.Pending
	if p.Kind != projector.WaitRoll || p.Player != "alice" || p.Dice != 20 || p.Need != 3 || p.Purpose != "hit" {
		t.Fatalf("pending after declaration: %+v", p)
	}
	if !strings.Contains(p.Text, "Alice rolls 20 D6 to hit") || !strings.Contains(p.Text, "3+") {
		t.Fatalf("pending text %q", p.Text)
	}
	// 14 hits (values ≥ 3).
	g.Roll(append(ones(14, 3), ones(6, 2)...)...)
	if g.State.Attack.Hits != 14 {
		t.Fatalf("hits = %d, want 14", g.State.Attack.Hits)
	}
	p = g.State.Pending
	if p.Dice != 14 || p.Need != 4 || p.Purpose != "wound" || p.Player != "alice" {
		t.Fatalf("wound step: %+v", p)
	}
	g.Roll(append(ones(7, 4), ones(7, 3)...)...) // 7 wounds
	p = g.State.Pending
	if p.Dice != 7 || p.Need != 6 || p.Purpose != "save" || p.Player != "bob" {
		t.Fatalf("save step: %+v", p)
	}
	g.Roll(6, 6, 5, 1, 1, 1, 1) // 2 saved → 5 unsaved
	p = g.State.Pending
	if p.Kind != projector.WaitCasualties || p.Player != "bob" || p.Count != 5 {
		t.Fatalf("casualty step: %+v", p)
	}
	g.Do(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-10", "boyz-9", "boyz-8", "boyz-7", "boyz-6"}})
	la := g.State.LastAttack
	if g.State.Attack != nil || la == nil || la.Hits != 14 || la.Wounds != 7 || la.Saves != 2 || la.Unsaved != 5 || len(la.Casualties) != 5 {
		t.Fatalf("outcome: %+v", la)
	}
	if alive := len(g.State.Unit("boyz").AliveModels()); alive != 5 {
		t.Fatalf("%d boyz left, want 5", alive)
	}
	if !g.State.Unit("tac").Fired {
		t.Fatal("firing unit not marked as fired")
	}
	if g.State.TallyOf("bob").ModelsLost != 5 || g.State.TallyOf("alice").WoundsCaused != 5 {
		t.Fatalf("tally %+v", g.State.Tally)
	}
	// Expected unsaved: 20 × 2/3 × 1/2 × 5/6.
	if d := la.Expected - 20.0*2/3*0.5*5/6; d > 1e-9 || d < -1e-9 {
		t.Fatalf("expected unsaved %v", la.Expected)
	}
	g.Refused(alice, shoot("tac", "boyz"), projector.CodeAlreadyFired)
	same(t, g)
}

func TestEachModelMeasuresItsOwnRange(t *testing.T) {
	// Heavy bolter (36") fires from 30"; the boltguns (24") do not.
	hb := events.WeaponSpec{ID: "hb", Name: "heavy bolter", Range: 36, Type: Heavy, Shots: 3, S: 5}
	tac := marines("tac", 3, 10, boltgun(), hb)
	tac.Models[0].Weapons = []string{"hb"}
	g := newGame(t, tac, boyz("boyz", 3, 40.99))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	a := g.State.Attack
	if len(a.Shooters) != 1 || a.Shooters[0].Model != "tac-1" || a.Shots != 3 {
		t.Fatalf("shooters %+v, shots %d", a.Shooters, a.Shots)
	}
}

func TestRapidFire(t *testing.T) {
	cases := []struct {
		name  string
		dist  float64 // centre-to-centre; 25mm bases take ~0.98" off
		moved bool
		shots int // 0 = refused out of range
	}{
		{"half range, stationary", 12.9, false, 2},
		{"full range, stationary", 24.9, false, 1},
		{"beyond range", 25.1, false, 0},
		{"half range, moved", 12.9, true, 2},
		{"beyond half range, moved", 13.1, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGame(t, marines("tac", 1, 10, boltgun()), boyz("boyz", 1, 10+c.dist))
			g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
			if c.moved {
				g.Do(alice, projector.Command{Type: projector.CmdMove, Unit: "tac", Model: "tac-1", X: projtest.Ptr(10), Y: projtest.Ptr(10.5)})
			}
			g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
			if c.shots == 0 {
				g.Refused(alice, shoot("tac", "boyz"), projector.CodeOutOfRange)
				return
			}
			g.Do(alice, shoot("tac", "boyz"))
			if got := g.State.Attack.Shots; got != c.shots {
				t.Fatalf("shots = %d, want %d", got, c.shots)
			}
		})
	}
}

func TestHeavyWeaponAfterMovingIsRefused(t *testing.T) {
	lc := events.WeaponSpec{ID: "lc", Name: "lascannon", Range: 48, Type: Heavy, Shots: 1, S: 9}
	g := newGame(t, marines("dev", 2, 10, lc), boyz("boyz", 2, 30))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-1", X: projtest.Ptr(12), Y: projtest.Ptr(10)})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	r := g.Refused(alice, shoot("dev", "boyz"), projector.CodeHeavyMoved)
	if !strings.Contains(r.Reason, "lascannon") {
		t.Fatalf("reason %q should name the weapon", r.Reason)
	}
	// Next turn, stationary: Heavy 1 fires one shot per model.
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(bob, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("dev", "boyz"))
	if g.State.Attack.Shots != 2 {
		t.Fatalf("shots = %d, want 2", g.State.Attack.Shots)
	}
}

// Seed 002: «Фактически существует оружие настолько тяжёлое и мощное, что из
// него можно стрелять, только остановившись» — only the Heavy weapon is
// barred after moving, not the rest of the unit: a moved squad fires its
// boltguns, the heavy bolter stays silent, a model carrying a pistol too
// fires the pistol, and "none" leaves a model out.
func TestMovedSquadFiresAllButItsHeavyWeapon(t *testing.T) {
	hb := events.WeaponSpec{ID: "hb", Name: "heavy bolter", Range: 36, Type: Heavy, Shots: 3, S: 5}
	bp := events.WeaponSpec{ID: "bp", Name: "bolt pistol", Range: 12, Type: Pistol, S: 4}
	u := marines("tac", 5, 10, boltgun(), hb, bp)
	u.Models[3].Weapons = []string{"hb"}
	u.Models[4].Weapons = []string{"hb", "bp"}
	g := newGame(t, u, boyz("boyz", 5, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdMove, Unit: "tac", Model: "tac-1", X: projtest.Ptr(11), Y: projtest.Ptr(10)})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	named := shoot("tac", "boyz")
	named.Weapons = map[string]string{"tac-4": "hb"}
	if r := g.Refused(alice, named, projector.CodeHeavyMoved); !strings.Contains(r.Reason, "heavy bolter") || !strings.Contains(r.Reason, `"none"`) {
		t.Fatalf("reason %q should name the weapon and the way to leave the model out", r.Reason)
	}
	named.Weapons = map[string]string{"tac-2": "none"}
	g.Do(alice, named)
	a := g.State.Attack
	var fired []string
	for _, sh := range a.Shooters {
		fired = append(fired, sh.Model+":"+sh.Weapon)
	}
	if strings.Join(fired, " ") != "tac-1:boltgun tac-3:boltgun tac-5:bp" || a.Shots != 2+2+1 {
		t.Fatalf("fired %v (%d shots): two boltguns at half range and tac-5's pistol; tac-2 left out, tac-4's heavy bolter silent", fired, a.Shots)
	}
	if w := g.Events[len(g.Events)-1].Type; w != events.TypeShootingDeclared {
		t.Fatalf("last event %s", w)
	}
	same(t, g)
}

func TestAssaultAndPistolFireAfterMoving(t *testing.T) {
	st := events.WeaponSpec{ID: "storm", Name: "storm bolter", Range: 24, Type: Assault, Shots: 2, S: 4}
	bp := events.WeaponSpec{ID: "bp", Name: "bolt pistol", Range: 12, Type: Pistol, S: 4}
	u := marines("tac", 2, 10, st, bp)
	u.Models[1].Weapons = []string{"bp"}
	g := newGame(t, u, boyz("boyz", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdMove, Unit: "tac", Model: "tac-1", X: projtest.Ptr(11), Y: projtest.Ptr(10)})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("tac", "boyz"))
	if g.State.Attack.Shots != 3 {
		t.Fatalf("storm bolter 2 + pistol 1 = 3 shots, got %d", g.State.Attack.Shots)
	}
}

func TestDeclarationRefusals(t *testing.T) {
	g := newGame(t, marines("tac", 2, 10, boltgun()), boyz("boyz", 2, 20))
	g.Refused(alice, shoot("tac", "boyz"), projector.CodeWrongPlayer) // no turn started
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Refused(alice, shoot("tac", "boyz"), projector.CodeWrongPhase)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Refused(bob, shoot("boyz", "tac"), projector.CodeWrongPlayer)
	g.Refused(alice, shoot("nope", "boyz"), projector.CodeUnknownUnit)
	g.Refused(alice, shoot("tac", "nope"), projector.CodeUnknownUnit)
	g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-1": "lascannon"}}, projector.CodeUnknownWeapon)
	g.Refused(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseMovement}, projector.CodeWrongPhase)
	g.Do(alice, shoot("tac", "boyz"))
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{3, 3}}, projector.CodeDiceCount)
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{3, 3, 7, 1}}, projector.CodeBadDice)
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{3, 0, 1, 1}}, projector.CodeBadDice)
	g.Refused(bob, projector.Command{Type: projector.CmdRoll, Values: []int{3, 3, 3, 3}}, projector.CodeWrongPlayer)
	g.Refused(alice, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1"}}, projector.CodeWrongStep)
}

func TestCasualtiesOnlyAmongModelsInRangeAndSight(t *testing.T) {
	// Boyz 1-3 within 24"; boyz-4 stands 30" away: it cannot be a casualty.
	b := boyz("boyz", 4, 30)
	b.Models[3].X, b.Models[3].Y = 40, 10
	g := newGame(t, marines("tac", 5, 10, boltgun()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	if el := g.State.Attack.Eligible; len(el) != 3 {
		t.Fatalf("eligible %v", el)
	}
	g.Roll(ones(5, 6)...)
	g.Roll(ones(5, 6)...)
	g.Roll(1, 1, 6, 6, 6) // 2 unsaved
	r := g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-4", "boyz-1"}}, projector.CodeBadCasualty)
	if !strings.Contains(r.Reason, "out of range or sight") {
		t.Fatalf("reason %q", r.Reason)
	}
	// "He may not put every wound on one model."
	g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1", "boyz-1"}}, projector.CodeBadCasualty)
	g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1"}}, projector.CodeBadCasualty)
	g.Refused(alice, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1", "boyz-2"}}, projector.CodeWrongPlayer)
	g.Do(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1", "boyz-3"}})
	u := g.State.Unit("boyz")
	if u.Model("boyz-1").Alive() || u.Model("boyz-3").Alive() || !u.Model("boyz-2").Alive() || !u.Model("boyz-4").Alive() {
		t.Fatal("wrong models removed")
	}
	same(t, g)
}

func TestUnsavedWoundsThatLeaveNoChoiceRemoveEveryEligibleModel(t *testing.T) {
	g := newGame(t, marines("tac", 5, 10, boltgun()), boyz("boyz", 2, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	g.Roll(ones(10, 6)...)
	g.Roll(ones(10, 6)...)
	g.Roll(ones(10, 1)...)
	if g.State.Attack != nil || !g.State.Unit("boyz").Destroyed() {
		t.Fatalf("unit should be wiped out without a choice; pending %+v", g.State.Pending)
	}
	if g.State.LastAttack.Unsaved != 10 || len(g.State.LastAttack.Casualties) != 2 {
		t.Fatalf("outcome %+v", g.State.LastAttack)
	}
}

func TestMultiWoundModelTakesWoundsUpToItsWoundsLeft(t *testing.T) {
	b := boyz("nob", 2, 20)
	b.Models[0].W = 2
	g := newGame(t, marines("tac", 5, 10, boltgun()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "nob"))
	g.Roll(6, 6, 1, 1, 1, 1, 1, 1, 1, 1)
	g.Roll(6, 6)
	g.Roll(1, 1)
	g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"nob-2", "nob-2"}}, projector.CodeBadCasualty)
	g.Do(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"nob-1", "nob-1"}})
	if g.State.Unit("nob").Model("nob-1").Alive() {
		t.Fatal("two wounds on a W2 model must remove it")
	}
}

func TestStrengthTooLowCannotWound(t *testing.T) {
	// S3 lasguns against T7: N on the chart; the hits are lost, no wound roll.
	las := events.WeaponSpec{ID: "las", Range: 24, Type: RapidFire, S: 3}
	b := boyz("dread", 1, 20)
	b.Models[0].T = 7
	g := newGame(t, marines("gd", 2, 10, las), b)
	toShooting(g)
	g.Do(alice, shoot("gd", "dread"))
	g.Roll(6, 6, 6, 6)
	if g.State.Attack != nil || g.State.LastAttack.Hits != 4 || g.State.LastAttack.Wounds != 0 {
		t.Fatalf("attack should end after hits: %+v pending %+v", g.State.LastAttack, g.State.Pending)
	}
}

func TestNoSaveMeansEveryWoundIsUnsaved(t *testing.T) {
	b := boyz("grots", 5, 20)
	for i := range b.Models {
		b.Models[i].Sv = 0
	}
	g := newGame(t, marines("tac", 2, 10, boltgun()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "grots"))
	g.Roll(6, 6, 6, 1)
	g.Roll(6, 6, 1)
	if p := g.State.Pending; p.Kind != projector.WaitCasualties || p.Count != 2 {
		t.Fatalf("pending %+v", p)
	}
}

// Seed 002: «Вы можете распределить попадания только по одному на модель,
// пока все модели в юните не получат по одному попаданию» — the rotation
// fixes how many hits each model takes (with 5 hits over 3 models: 2, 2
// and 1), not the order the owner writes them in: [a, a, b, c, b] is as
// good as [a, b, c, a, b].
func TestMixedToughnessAnyOrderOfABalancedDistribution(t *testing.T) {
	b := boyz("nobz", 3, 20)
	b.Models[2].T = 5
	g := newGame(t, marines("tac", 3, 10, boltgun()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "nobz"))
	g.Roll(6, 6, 6, 6, 6, 1) // 5 hits
	g.Do(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"nobz-1", "nobz-1", "nobz-2", "nobz-3", "nobz-2"}})
	if a := g.State.Attack; len(a.Assigned) != 5 || a.Stage != stageWound {
		t.Fatalf("distribution not taken: %+v", a)
	}
	same(t, g)
}

// Mixed Toughness: the owner distributes the hits one per model in turn,
// and each hit rolls to wound against its own model's T.
func TestMixedToughnessRotation(t *testing.T) {
	b := boyz("nobz", 3, 20)
	b.Models[2].T, b.Models[2].Sv = 5, 4 // a tougher, better-armoured Nob
	g := newGame(t, marines("tac", 2, 10, boltgun()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "nobz"))
	g.Roll(6, 6, 6, 6) // 4 hits
	p := g.State.Pending
	if p.Kind != projector.WaitDistribute || p.Player != "bob" || p.Count != 4 {
		t.Fatalf("pending %+v", p)
	}
	r := g.Refused(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"nobz-1", "nobz-1", "nobz-1", "nobz-2"}}, projector.CodeBadDistribute)
	if !strings.Contains(r.Reason, "each model takes 1 or 2, and nobz-1 takes 3") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"nobz-1", "nobz-2", "nobz-3"}}, projector.CodeBadDistribute)
	g.Refused(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"nobz-1", "nobz-2", "tac-1", "nobz-3"}}, projector.CodeBadDistribute)
	g.Do(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"nobz-3", "nobz-1", "nobz-2", "nobz-3"}})
	// Two wound rolls: S4 vs T5 (5+) for the two hits on nobz-3, S4 vs T4 (4+) for the others.
	a := g.State.Attack
	var needs []int
	for _, st := range a.Steps[1:] {
		needs = append(needs, st.Need, st.Dice)
	}
	if len(a.Steps) != 3 || needs[0] != 5 || needs[1] != 2 || needs[2] != 4 || needs[3] != 2 {
		t.Fatalf("wound steps %+v", a.Steps[1:])
	}
	g.Roll(5, 4) // T5: one wound on nobz-3 (5), the 4 fails
	g.Roll(4, 3) // T4: nobz-1 wounded, nobz-2 not
	// Saves per model: nobz-3 on 4+, nobz-1 on 6+.
	p = g.State.Pending
	if p.Need != 4 || p.Dice != 1 {
		t.Fatalf("first save step %+v", p)
	}
	g.Roll(3) // nobz-3 fails its 4+
	if g.State.Pending.Need != 6 {
		t.Fatalf("second save step %+v", g.State.Pending)
	}
	g.Roll(6) // nobz-1 saves
	u := g.State.Unit("nobz")
	if u.Model("nobz-3").Alive() || !u.Model("nobz-1").Alive() || !u.Model("nobz-2").Alive() {
		t.Fatal("the wound must fall on the model the hit was given to")
	}
	if g.State.Attack != nil || g.State.LastAttack.Unsaved != 1 {
		t.Fatalf("outcome %+v", g.State.LastAttack)
	}
	same(t, g)
}

// Seed 002 speaks of one-wound models only: «Обычно модели в отряде имеют
// 1 жизнь, т.е. за каждое ранение убирается одна модель. Обратите
// внимание, что вы не можете назначить все ранения на одну модель!»
// (usually a model has one wound, so each wound removes one model; you may
// not put every wound on one model). For models with more than one wound
// the 3rd-edition rulebook is followed (default, from revision 1): the
// owner's casualties must remove whole models where possible — wounds
// spread over two Nobz, removing neither, are refused when they could
// remove one. Before revision 1 the owner's choice stood.
func TestWoundsRemoveWholeModelsWherePossible(t *testing.T) {
	b := boyz("nob", 3, 20)
	b.Models[0].W, b.Models[1].W = 2, 2 // nob-1 and nob-2 have two wounds, nob-3 one
	play := func(g *projtest.Game) {
		toShooting(g)
		g.Do(alice, shoot("tac", "nob"))
		g.Roll(6, 6, 1, 1, 1, 1, 1, 1, 1, 1)
		g.Roll(6, 6)
		g.Roll(1, 1) // two unsaved wounds
	}
	g := newGame(t, marines("tac", 5, 10, boltgun()), b)
	play(g)
	if g.State.Rules != revisionRound3 {
		t.Fatalf("revision %d", g.State.Rules)
	}
	r := g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"nob-1", "nob-2"}}, projector.CodeBadCasualty)
	if want := "unsaved wounds must remove whole models where possible: 2 unsaved wounds can remove 1 model (the fewest wounds left first), this choice removes 0"; r.Reason != want {
		t.Fatalf("reason %q\nwant   %q", r.Reason, want)
	}
	g.Do(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"nob-2", "nob-2"}}) // a Nob, whole
	if g.State.Unit("nob").Model("nob-2").Alive() || !g.State.Unit("nob").Model("nob-1").Alive() {
		t.Fatal("nob-2 should be removed, nob-1 untouched")
	}
	same(t, g)

	old := projtest.Recorded(t, Rules{}, setup(marines("tac", 5, 10, boltgun()), b)) // revision 0
	play(old)
	old.Do(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"nob-1", "nob-2"}})
	if m := old.State.Unit("nob").Model("nob-1"); !m.Alive() || m.WoundsLeft != 1 {
		t.Fatalf("revision 0: the owner's spread stands: %+v", m)
	}
}
