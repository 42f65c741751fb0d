package ed11e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

var (
	_ projector.Narration       = Rules{}
	_ projector.AttackNarration = Rules{}
)

// Narrate tells this edition's events (projector.Narration): the shooting
// phase's steps, a shooting declaration with its shooting type, advances,
// actions, allocations and re-rolls.
func (Rules) Narrate(s *projector.State, actor string, p events.Payload) (string, bool) {
	switch p := p.(type) {
	case *ShootingPhaseStep:
		return stepLine(s, p.Step), true
	case *events.ShootingDeclared:
		return declared(s, actor, p)
	case *AdvanceDeclared:
		return fmt.Sprintf("%s: %s", actor, kit.Does(s.UnitName(p.Unit), "advances", "advance")), true
	case *ActionStarted:
		return fmt.Sprintf("%s: %s the action %s", actor, kit.Does(s.UnitName(p.Unit), "starts", "start"), p.Action), true
	case *AttackAllocated:
		return fmt.Sprintf("%s allocates the attack to %s", actor, p.Model), true
	case *RerollChosen:
		return fmt.Sprintf("%s re-rolls %s of event %d", actor, kit.Count(len(p.Indices), "die", "dice"), p.Seq), true
	case *RerollDeclined:
		return fmt.Sprintf("%s keeps the dice of event %d", actor, p.Seq), true
	}
	return "", false
}

// stepLine tells a step of the shooting phase (docs/rules/11e.md#shooting-phase).
func stepLine(s *projector.State, step string) string {
	who := s.PlayerName(s.Active)
	switch step {
	case StepStart:
		return fmt.Sprintf("%s's shooting phase starts (step 1 of 3): start-of-phase rules resolve", who)
	case StepShoot:
		return fmt.Sprintf("%s's shooting phase goes to its shoot step (step 2 of 3): units are selected to shoot one at a time", who)
	case StepEnd:
		return fmt.Sprintf("%s's shooting phase ends (step 3 of 3): end-of-phase rules resolve", who)
	}
	return fmt.Sprintf("%s's shooting phase goes to step %q", who, step)
}

// declared tells a shooting declaration: the unit, its shooting type and
// target, what it fires, and what the type does to its attacks.
func declared(s *projector.State, actor string, p *events.ShootingDeclared) (string, bool) {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return "", false
	}
	line := fmt.Sprintf("%s: %s %s shooting at %s", actor, kit.Does(u.DisplayName(), "makes", "make"), kindName(p.Kind), t.DisplayName())
	a := s.Attack
	if a == nil || a.Seq != s.Seq {
		return line, true
	}
	line += " — " + kit.Firing(u, a) + ", " + attackCount(a)
	if notes := typeNotes(s, a); len(notes) > 0 {
		line += "; " + strings.Join(notes, "; ")
	}
	return line, true
}

// kindName is a shooting type as the seed names it: "normal",
// "close-quarters", …
func kindName(kind string) string {
	if kind == "" {
		return Normal
	}
	return kind
}

// attackCount says how many attacks the declaration makes: "10 attacks",
// or "2 attacks + D6" when some are rolled.
func attackCount(a *projector.Attack) string {
	parts := []string{}
	if a.Shots > 0 || len(edAttack(a).Groups) == 0 {
		parts = append(parts, kit.Count(a.Shots, "attack", "attacks"))
	}
	for _, g := range edAttack(a).Groups {
		if e, err := rules.ParseExpr(g.Attacks); err == nil && e.Variable() {
			for range g.Shooters {
				parts = append(parts, e.String())
			}
		}
	}
	out := strings.Join(parts, " + ")
	if a.Shots == 0 && len(parts) > 0 {
		out += " attacks"
	}
	return out
}

// typeNotes says what the shooting type does to the attacks declared:
// the weapons it allows, and indirect fire's cover and thresholds, naming
// why (no friendly unit sees the target, or the unit moved).
func typeNotes(s *projector.State, a *projector.Attack) []string {
	var notes []string
	switch a.Kind {
	case Assault:
		notes = append(notes, "only [ASSAULT] weapons")
	case CloseQuarters:
		if edAttack(a).Engaged {
			notes = append(notes, "at a unit it is engaged with")
		}
	}
	for _, g := range edAttack(a).Groups {
		if !g.Indirect {
			continue
		}
		why := "no other friendly unit sees the target"
		switch {
		case g.MinUnmod == IndirectSpottedMinUnmod:
			why = "stationary, and another friendly unit sees the target"
		case !stationary(s.Unit(a.Firer)):
			why = "the unit did not remain stationary"
		}
		notes = append(notes, fmt.Sprintf("%s fires indirectly: the target has cover, hit rolls cannot be re-rolled, an unmodified 1–%d fails (%s)",
			g.Name, g.MinUnmod-1, why))
	}
	return notes
}

// AttackNotes names the shooting type in an attack's summary
// (projector.AttackNarration).
func (Rules) AttackNotes(s *projector.State, a *projector.Attack) []string {
	if a.Type != projector.AttackShooting {
		return nil
	}
	return []string{kindName(a.Kind) + " shooting"}
}
