package ed6e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func heavyBolter(kw ...string) events.WeaponSpec {
	return events.WeaponSpec{ID: "hb", Name: "heavy bolter", Range: 36, Type: Heavy, Shots: 3, S: 5, AP: 4, Keywords: kw}
}

// movedThenShoot: alice's unit moves one model, then declares c.
func movedThenShoot(t *testing.T, u events.UnitSpec, c projector.Command) (*projtest.Game, error) {
	g := newGame(t, u, boyz("boyz", 5, 25))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, move(u.ID, u.Models[0].ID, u.Models[0].X+1, u.Models[0].Y))
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	return g, g.Try(alice, c)
}

// A Heavy weapon fired after moving makes snap shots at BS1 (6s hit), and
// BS6+ re-rolls do not apply to them.
func TestHeavyAfterMovingSnapFires(t *testing.T) {
	u := marines("dev", 1, 10, heavyBolter())
	u.Models[0].BS = 8
	g, err := movedThenShoot(t, u, shoot("dev", "boyz"))
	if err != nil {
		t.Fatal(err)
	}
	p := g.State.Pending
	if p.Need != 6 || p.Dice != 3 || !strings.Contains(p.Text, "snap") {
		t.Fatalf("snap shots: %+v", p)
	}
	g.Roll(1, 1, 1)
	if g.State.Attack != nil {
		t.Fatalf("snap shots at BS8 must not re-roll 1s: %+v", g.State.Pending)
	}
	// Stationary, the same model hits on 2+ and re-rolls 1s.
	g = newGame(t, u, boyz("boyz", 5, 25))
	toShooting(g)
	g.Do(alice, shoot("dev", "boyz"))
	if p := g.State.Pending; p.Need != 2 {
		t.Fatalf("stationary BS8: %+v", p)
	}
}

// Forced snap fire: every model fires at BS1.
func TestForcedSnapFire(t *testing.T) {
	g := newGame(t, marines("tac", 3, 10, bolter()), boyz("boyz", 5, 25))
	toShooting(g)
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Snap: true})
	if p := g.State.Pending; p.Need != 6 || p.Dice != 3 || g.State.Attack.Kind != KindSnap {
		t.Fatalf("forced snap: %+v", p)
	}
	same(t, g)
}

// Templates, Blast weapons and weapons that do not use BS cannot snap
// fire: after moving (Heavy) or when forced, the declaration is refused
// with that reason.
func TestWeaponsThatCannotSnapFireAreRefused(t *testing.T) {
	kinds := []struct{ kw, why string }{
		{"TEMPLATE", "template"}, {"BLAST", "blast"}, {"NO-BS", "does not use BS"},
	}
	for _, k := range kinds {
		t.Run(k.kw, func(t *testing.T) {
			u := marines("dev", 1, 10, heavyBolter(k.kw))
			g, err := movedThenShoot(t, u, shoot("dev", "boyz"))
			r, ok := projector.AsRefusal(err)
			if !ok || r.Code != CodeCannotSnap || !strings.Contains(r.Reason, k.why) || !strings.Contains(r.Reason, "moved") {
				t.Fatalf("heavy %s after moving: %v", k.kw, err)
			}
			g.Refused(alice, shoot("dev", "boyz"), CodeCannotSnap)
			// Forced snap fire with an Assault weapon of the kind.
			a := events.WeaponSpec{ID: "gun", Name: "gun", Range: 24, Type: Assault, Shots: 1, S: 4, Keywords: []string{k.kw}}
			g = newGame(t, marines("tac", 1, 10, a), boyz("boyz", 5, 25))
			toShooting(g)
			r = g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Snap: true}, CodeCannotSnap)
			if !strings.Contains(r.Reason, k.why) {
				t.Fatalf("forced snap with %s: %q", k.kw, r.Reason)
			}
			// Fired normally, the weapon is accepted.
			g.Do(alice, shoot("tac", "boyz"))
		})
	}
}

func TestWeaponTypes(t *testing.T) {
	salvo := events.WeaponSpec{ID: "salvo", Range: 24, Type: Salvo, Shots: 4, S: 5}
	rf := boltgun()
	cases := []struct {
		name  string
		w     events.WeaponSpec
		dist  float64 // centre to centre; 25mm bases take ~0.98"
		moved bool
		shots int // 0 = out of range
	}{
		{"rapid fire half range, moved", rf, 12.9, true, 2},
		{"rapid fire full range, moved", rf, 24.9, true, 1},
		{"salvo stationary full range", salvo, 24.9, false, 4},
		{"salvo moved half range", salvo, 12.9, true, 2},
		{"salvo moved beyond half range", salvo, 13.1, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGame(t, marines("tac", 1, 10, c.w), boyz("boyz", 1, 10+c.dist))
			g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
			if c.moved {
				g.Do(alice, move("tac", "tac-1", 10, 10.5))
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

// Close-combat weapons do not shoot.
func TestMeleeWeaponsDoNotShoot(t *testing.T) {
	fist := events.WeaponSpec{ID: "fist", Name: "power fist", Type: Melee, S: 8, AP: 2}
	u := marines("tac", 1, 10, bolter(), fist)
	u.Models[0].Weapons = []string{"fist", "bolter"}
	g := newGame(t, u, boyz("boyz", 1, 20))
	toShooting(g)
	g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-1": "fist"}}, projector.CodeUnknownWeapon)
	g.Do(alice, shoot("tac", "boyz")) // the default skips the fist
	if g.State.Attack.Shooters[0].Weapon != "bolter" {
		t.Fatalf("shooters %+v", g.State.Attack.Shooters)
	}
}
