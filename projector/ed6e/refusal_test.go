package ed6e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Bad input is refused with a clear reason and leaves the match unchanged
// (projtest's Refused compares the state hash and the event count).
func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	t.Run("look out sir where none is allowed", func(t *testing.T) {
		b := boyz("boyz", 3, 20)
		b.Models[2].X, b.Models[2].Keywords = 22, []string{"CHARACTER"} // saves one at a time, the closest Boy first
		g := newGame(t, marines("tac", 1, 10, bolter()), b)
		toShooting(g)
		g.Do(alice, shoot("tac", "boyz"))
		r := g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "boyz-2"}, CodeNoLookOutSir)
		if !strings.Contains(r.Reason, "no wound is allocated to a character") {
			t.Fatalf("reason %q", r.Reason)
		}
		g.Roll(6)
		g.Roll(6) // the save of a plain Ork Boy is pending
		r = g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "boyz-2"}, CodeNoLookOutSir)
		if !strings.Contains(r.Reason, "not a character") {
			t.Fatalf("reason %q", r.Reason)
		}
	})
	t.Run("focus fire outside 2+..6+", func(t *testing.T) {
		g := newGame(t, marines("tac", 1, 10, bolter()), boyz("boyz", 3, 20))
		toShooting(g)
		g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", FocusFire: "1+"}, CodeBadFocusFire)
		g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", FocusFire: "7+"}, CodeBadFocusFire)
	})
	t.Run("overwatch by a unit that cannot snap fire", func(t *testing.T) {
		burna := events.WeaponSpec{ID: "burna", Name: "burna", Range: 8, Type: Assault, Shots: 1, S: 4, Keywords: []string{"TEMPLATE"}}
		kannon := events.WeaponSpec{ID: "kannon", Name: "kannon", Range: 36, Type: Heavy, Shots: 1, S: 8, Keywords: []string{"BLAST"}}
		b := boyz("boyz", 2, 17, burna, kannon)
		b.Models[1].Weapons = []string{"kannon"}
		g := newGame(t, marines("tac", 1, 10), b)
		toAssault(g)
		g.Do(alice, charge("tac", "boyz"))
		r := g.Refused(bob, projector.Command{Type: CmdOverwatch}, CodeCannotSnap)
		if !strings.Contains(r.Reason, "no model of Ork Boyz can fire") || !strings.Contains(r.Reason, "cannot snap fire") {
			t.Fatalf("reason %q", r.Reason)
		}
		g.Refused(bob, projector.Command{Type: CmdOverwatch, Weapons: map[string]string{"boyz-2": "kannon"}}, CodeCannotSnap)
	})
	t.Run("fight out of Initiative order", func(t *testing.T) {
		g := engaged(t, marines("tac", 1, 10), boyz("boyz", 1, touch), true)
		r := g.Refused(bob, strike("boyz"), CodeInitiativeOrder)
		if !strings.Contains(r.Reason, "Initiative 4") || !strings.Contains(r.Reason, "Initiative [2]") {
			t.Fatalf("reason %q", r.Reason)
		}
		g.Do(alice, strike("tac"))
		g.Roll(1, 1)
		g.Refused(alice, strike("tac"), CodeInitiativeOrder) // I4 is over
	})
}
