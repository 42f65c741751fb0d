package analytics

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// rollWeapon is the weapon a roll's dice are for, by name, and its AP:
// the weapon the edition names on the roll's step (projector.DiceStep.
// Weapon; for a re-roll, the step of the dice it replaces), nil for a
// roll outside an attack (charge, Morale, advance) or one for several
// weapons at once. The AP is the one the weapon fired with (the attack's
// shooter), else its profile's. s is the state before the roll.
func rollWeapon(s *projector.State, a *projector.Attack, step projector.DiceStep, p *events.DiceRolled) (name, ap any) {
	if a == nil {
		return nil, nil
	}
	id := step.Weapon
	if r := p.Reroll; r != nil {
		id = ""
		for _, st := range a.Steps {
			if st.Seq == r.Seq {
				id = st.Weapon
			}
		}
	}
	if id == "" {
		return nil, nil
	}
	name, fired := id, false
	var spec *events.WeaponSpec
	if u := s.Unit(a.Firer); u != nil {
		spec = u.Weapon(id)
	}
	if spec != nil {
		name = spec.DisplayName()
	}
	for _, sh := range a.Shooters {
		if sh.Weapon == id {
			ap, fired = int64(sh.AP), true
			break
		}
	}
	if !fired {
		ap = int64(0)
		if spec != nil {
			ap = int64(spec.AP)
		}
	}
	return name, ap
}
