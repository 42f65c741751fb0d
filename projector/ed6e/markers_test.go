package ed6e

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func place(x, y float64) projector.Command {
	return projector.Command{Type: CmdPlace, X: projtest.Ptr(x), Y: projtest.Ptr(y)}
}

func flamer() events.WeaponSpec {
	return events.WeaponSpec{ID: "flamer", Name: "flamer", Range: 8, Type: Assault, Shots: 1, S: 4, AP: 5, Keywords: []string{"TEMPLATE"}}
}

func fragMissile() events.WeaponSpec {
	return events.WeaponSpec{ID: "frag", Name: "frag missile", Range: 48, Type: Heavy, Shots: 1, S: 4, AP: 6, Keywords: []string{"BLAST"}}
}

// Seed 000 names the weapons that cannot snap fire, «comme pour
// l'artillerie et les armes à souffle, ou celles qui suivent des règles
// spéciales, comme explosion», and is silent on how they hit: the standard
// 6e template (default) is laid from the firer's base, may not touch a
// friendly model, must cover a model of the target, and hits each target
// model under it once, with no hit roll.
func TestTemplateIsLaidAndHitsTheModelsUnderIt(t *testing.T) {
	tac := marines("tac", 2, 10, flamer())
	tac.Models[1].X, tac.Models[1].Y = 12.5, 10 // a Marine in front of the flamer
	g := newGame(t, tac, boyz("boyz", 5, 15))
	toShooting(g)
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-2": "none"}})
	p := pending(t, g, WaitPlace, "alice")
	if !strings.Contains(p.Text, "template") || g.State.Attack.Shots != 1 {
		t.Fatalf("pending %+v", p)
	}
	g.Refused(bob, place(15, 12.4), projector.CodeWrongPlayer)
	if r := g.Refused(alice, place(10, 30), projector.CodeNotEligible); !strings.Contains(r.Reason, "covers no model") {
		t.Fatalf("reason %q", r.Reason)
	}
	if r := g.Refused(alice, place(15, 10), projector.CodeNotEligible); !strings.Contains(r.Reason, "tac-2, a friendly model") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{6}}, projector.CodeWrongStep)
	g.Do(alice, place(15, 12.4))
	mk := edAttack(g.State.Attack).Markers[0]
	if !slices.Equal(mk.Under, []string{"boyz-2", "boyz-3", "boyz-4"}) || g.State.Attack.Hits != 3 {
		t.Fatalf("under the template: %v, hits %d", mk.Under, g.State.Attack.Hits)
	}
	if p := pending(t, g, projector.WaitRoll, "alice"); p.Purpose != purposeWound || p.Dice != 3 {
		t.Fatalf("wound roll: %+v", p)
	}
	same(t, g)
}

// The standard 6e blast (default): centred over a target model the firer
// sees within range, then scattered — a hit keeps it there, an arrow moves
// it 2D6" less the firer's BS along the arrow's bearing — and every
// target model under it takes a hit.
func TestBlastIsPlacedThenScatters(t *testing.T) {
	play := func(scatter ...int) *projtest.Game {
		g := newGame(t, marines("dev", 1, 10, fragMissile()), boyz("boyz", 5, 30))
		toShooting(g)
		g.Do(alice, shoot("dev", "boyz"))
		if r := g.Refused(alice, place(30, 20), projector.CodeNotEligible); !strings.Contains(r.Reason, "over none") {
			t.Fatalf("reason %q", r.Reason)
		}
		g.Do(alice, place(30, 10))
		p := pending(t, g, projector.WaitRoll, "alice")
		if p.Purpose != purposeScatter || p.Dice != ScatterDice {
			t.Fatalf("scatter roll %+v", p)
		}
		g.Roll(scatter...)
		return g
	}
	// A hit (1 on the scatter die): the 3" marker stays on boyz-1 and
	// covers boyz-2, 1.2" away, but not boyz-3.
	g := play(1, 6, 6, 6)
	mk := edAttack(g.State.Attack).Markers[0]
	if !mk.Hit || mk.FinalX != 30 || !slices.Equal(mk.Under, []string{"boyz-1", "boyz-2"}) || g.State.Attack.Hits != 2 {
		t.Fatalf("a hit: %+v", mk)
	}
	same(t, g)
	// An arrow: bearing ((4 − 3) × 6 + (2 − 1)) × 15° = 105°, distance
	// 5 + 4 − BS4 = 5": from (30, 10) to (34.83, 8.71), clear of the Orks.
	g = play(4, 2, 5, 4)
	mk = g.State.LastAttack.Ext.(*Attack).Markers[0]
	if mk.Hit || mk.Bearing != 105 || mk.Drift != 5 || math.Abs(mk.FinalX-34.83) > 0.01 || math.Abs(mk.FinalY-8.71) > 0.01 || len(mk.Under) != 0 {
		t.Fatalf("an arrow: %+v", mk)
	}
	if g.State.Attack != nil || g.State.LastAttack.Hits != 0 {
		t.Fatal("a blast that lands on nobody hits nobody")
	}
	same(t, g)
}

// A blast's marker must go over a model its firer sees within range; a
// shot may be declined (nothing is hit).
func TestBlastPlacementRefusalsAndDecline(t *testing.T) {
	short := fragMissile()
	short.Range = 21
	b := boyz("boyz", 5, 30)
	b.Models[4].X = 31.5 // boyz-5 stands beyond 21"
	g := newGame(t, marines("dev", 1, 10, short), b)
	toShooting(g)
	g.Do(alice, shoot("dev", "boyz"))
	if r := g.Refused(alice, place(31.5, 14.8), projector.CodeNotEligible); !strings.Contains(r.Reason, "beyond") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Do(alice, projector.Command{Type: projector.CmdDecline})
	if g.State.Attack != nil || g.State.LastAttack.Hits != 0 || !edAttack(g.State.LastAttack).Markers[0].Declined {
		t.Fatal("a declined shot hits nothing")
	}
	same(t, g)
}
