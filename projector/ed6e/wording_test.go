package ed6e

import (
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// Every 6e refusal's words, one table: the command, the code and the exact
// message a player reads, with units named singular ("Squad S", "Squad
// M") and plural ("Ork Boyz", "Gretchin"), so the verbs must agree.
func TestRefusalWording(t *testing.T) {
	names := map[string]bool{"Squad S": false, "Squad M": false, "Ork Boyz": true, "Gretchin": true}
	fresh := func(t *testing.T) *projtest.Game {
		s := marines("squad", 2, 10, bolter(), flamer())
		s.Name = "Squad S"
		s.Models[1].Weapons = []string{"flamer"}
		s.Models[1].X, s.Models[1].Y = 8, 10 // behind squad-1
		m := marines("m", 1, 10, fragMissile())
		m.Name, m.Models[0].Y = "Squad M", 30
		b := boyz("boyz", 3, touch, shoota())
		b.Name = "Ork Boyz"
		b.Models[0].Keywords = []string{"CHARACTER"}
		g := boyz("grots", 2, 40, shoota())
		g.Name = "Gretchin"
		return newGame(t, s, m, b, g)
	}
	shooting := func(g *projtest.Game) { toShooting(g) }
	assault := func(g *projtest.Game) { toAssault(g) }
	cmd := func(typ string) projector.Command { return projector.Command{Type: typ} }
	fightChosen := func(g *projtest.Game) { // Squad S charged the Boyz, no Overwatch; the fight begins
		toAssault(g)
		g.Do(alice, charge("squad", "boyz"))
		g.Do(bob, cmd(projector.CmdDecline))
		g.Roll(1, 1)
		g.Do(alice, move("squad", "squad-1", 10, 10))
		g.Do(alice, projector.Command{Type: CmdFight, Unit: "squad"})
	}
	projtest.CheckRefusals(t, fresh, names, []projtest.Refusal{
		{Name: "forced snap fire with a template", Before: shooting, As: alice,
			Cmd: projector.Command{Type: projector.CmdShoot, Unit: "squad", Target: "boyz", Snap: true, Weapons: map[string]string{"squad-1": "none"}}, Code: CodeCannotSnap, Reason: "no model of Squad S can fire: squad-2's flamer is a template weapon and cannot snap fire (Squad S is forced to snap fire)"},
		{Name: "a bad focus fire", Before: shooting, As: alice, Cmd: projector.Command{Type: projector.CmdShoot, Unit: "squad", Target: "boyz", FocusFire: "1+"}, Code: CodeBadFocusFire, Reason: "focus fire names a cover save from 2+ to 6+, or \"none\" for no cover; \"1+\" is none of them"},
		{Name: "a charge too far", Before: assault, As: alice, Cmd: charge("m", "grots"), Code: projector.CodeOutOfRange, Reason: "Squad M is 34.4\" from Gretchin: a charge reaches at most 12\""},
		{Name: "a charge in the shooting phase", Before: shooting, As: alice, Cmd: charge("squad", "boyz"), Code: projector.CodeWrongPhase, Reason: "charges are declared in the assault phase, not the shooting phase"},
		{Name: "Overwatch when none is offered", Before: assault, As: bob, Cmd: projector.Command{Type: CmdOverwatch, Unit: "boyz"}, Code: projector.CodeWrongStep, Reason: "Overwatch is fired by a charged unit when its charge is declared; the match waits for: Alice, in the charge sub-phase of the assault phase of turn 1: declare a charge (charge); end the turn (next-turn)"},
		{Name: "Overwatch by the charger's side", Before: func(g *projtest.Game) { toAssault(g); g.Do(alice, charge("squad", "boyz")) }, As: alice,
			Cmd: projector.Command{Type: CmdOverwatch, Unit: "boyz"}, Code: projector.CodeWrongPlayer, Reason: "Bob decides on Overwatch"},
		{Name: "a fight with no combat", Before: assault, As: alice, Cmd: projector.Command{Type: CmdFight, Unit: "squad"}, Code: projector.CodeNotEligible, Reason: "Squad S is not locked in combat"},
		{Name: "a strike before a combat", Before: assault, As: alice, Cmd: strike("squad"), Code: projector.CodeWrongStep, Reason: "blows are struck at a combat's Initiative steps; the match waits for: Alice, in the charge sub-phase of the assault phase of turn 1: declare a charge (charge); end the turn (next-turn)"},
		{Name: "Look Out, Sir with no wound", Before: shooting, As: bob, Cmd: projector.Command{Type: CmdLookOutSir, Model: "boyz-2"}, Code: CodeNoLookOutSir, Reason: "no Look Out, Sir is allowed now: no wound is allocated to a character; the match waits for: Alice declares in the shooting phase of turn 1"},
		{Name: "a placement with no marker", Before: shooting, As: alice, Cmd: place(20, 20), Code: projector.CodeWrongStep, Reason: "no template or blast waits to be placed; the match waits for: Alice declares in the shooting phase of turn 1"},
		{Name: "a blast off the target", Before: func(g *projtest.Game) { toShooting(g); g.Do(alice, shoot("m", "grots")) }, As: alice, Cmd: place(20, 20),
			Code: projector.CodeNotEligible, Reason: "a blast marker is centred over the base of a model of Gretchin; (20.0, 20.0) is over none"},
		{Name: "a template on a friend", Before: func(g *projtest.Game) {
			toShooting(g)
			g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "squad", Target: "boyz", Weapons: map[string]string{"squad-1": "none"}})
		}, As: alice, Cmd: place(touch, 10), Code: projector.CodeNotEligible, Reason: "a template aimed at (11.0, 10.0) from squad-2 would touch squad-1, a friendly model"},
		{Name: "a distribution", Before: shooting, As: bob, Cmd: projector.Command{Type: projector.CmdDistribute, Models: []string{"boyz-1"}}, Code: projector.CodeWrongStep, Reason: "in 6e wounds go to the closest model: there is no distribution or casualty choice; the match waits for: Alice declares in the shooting phase of turn 1"},
		{Name: "a re-roll command", Before: shooting, As: alice, Cmd: cmd(projector.CmdReroll), Code: projector.CodeWrongStep, Reason: "in 6e the re-rolls a rule grants are asked for by the match itself; the match waits for: Alice declares in the shooting phase of turn 1"},
		{Name: "an assault move with none open", Before: assault, As: alice, Cmd: move("squad", "squad-1", 11, 10), Code: projector.CodeWrongStep, Reason: "squad-1 may not move now: in the assault phase models make only charge, pile-in and consolidation moves; the match waits for: Alice, in the charge sub-phase of the assault phase of turn 1: declare a charge (charge); end the turn (next-turn)"},
		{Name: "the turn's end before the blows", Before: fightChosen, As: alice, Cmd: cmd(projector.CmdNextTurn), Code: projector.CodeWrongStep, Reason: "the turn cannot end yet: Initiative 4: Squad S piles in (models not in base contact move up to 3\") and strikes (strike)"},
		{Name: "blows out of Initiative order", Before: fightChosen, As: bob, Cmd: strike("boyz"), Code: CodeInitiativeOrder, Reason: "out of Initiative order: Ork Boyz have no model of Initiative 4, the step being fought (their models fight at Initiative [2])"},
	})
}
