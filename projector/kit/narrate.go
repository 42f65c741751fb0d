package kit

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Declared is the common line of a shooting declaration, told from s, the
// state just after it: who shoots at whom, what it fires, how many shots,
// and how many target models are in range and sight of a firer (the ones
// that may take its wounds). An edition whose declarations say more adds
// to it in its own Narration.
func Declared(s *projector.State, actor string, p *events.ShootingDeclared) string {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Sprintf("%s declares that %s shoots at %s", actor, p.Unit, p.Target)
	}
	line := fmt.Sprintf("%s: %s at %s", actor, Does(u.DisplayName(), "shoots", "shoot"), t.DisplayName())
	if a := s.Attack; a != nil && a.Seq == s.Seq {
		line += fmt.Sprintf(" — %s, %s; %d of %d target models in range and sight",
			Firing(u, a), Count(a.Shots, "shot", "shots"), len(a.Eligible), len(t.AliveModels()))
	}
	return line
}

// RollFor says what attack a's step d rolls for, for a judge: "the hit
// roll (boltgun) of Tactical Squad's shooting at Ork Boyz".
func RollFor(s *projector.State, a *projector.Attack, d *projector.DiceStep) string {
	what := d.Purpose + " roll"
	if d.Label != "" {
		what += " (" + d.Label + ")"
	}
	act := map[string]string{projector.AttackOverwatch: "Overwatch", projector.AttackMelee: "blows"}[a.Type]
	if act == "" {
		act = "shooting"
	}
	return fmt.Sprintf("the %s of %s's %s at %s", what, s.UnitName(a.Firer), act, s.UnitName(a.Target))
}
