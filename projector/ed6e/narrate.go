package ed6e

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

var (
	_ projector.Narration       = Rules{}
	_ projector.RollNarration   = Rules{}
	_ projector.AttackNarration = Rules{}
)

// Narrate tells this edition's events (projector.Narration): a shooting
// declaration with its focus fire, snap shots and markers; the assault
// phase's declarations and the moves it derives (charge, pile-in, fall
// back, consolidation); Look Out, Sir; the markers placed; the order of
// the wound pools.
func (Rules) Narrate(s *projector.State, actor string, p events.Payload) (string, bool) {
	switch p := p.(type) {
	case *events.ShootingDeclared:
		return declared(s, actor, p)
	case *events.ModelMoved:
		return moved(s, actor, p)
	case *ChargeDeclared:
		return fmt.Sprintf("%s: %s %s", actor, kit.Does(s.UnitName(p.Unit), "charges", "charge"), s.UnitName(p.Target)), true
	case *OverwatchDeclared:
		return fmt.Sprintf("%s: %s Overwatch at %s (snap shots)", actor, kit.Does(s.UnitName(p.Unit), "fires", "fire"), s.UnitName(p.Target)), true
	case *OverwatchDeclined:
		return fmt.Sprintf("%s: %s (no Overwatch)", actor, kit.Does(s.UnitName(p.Unit), "holds its fire", "hold their fire")), true
	case *LookOutSirDeclared:
		return fmt.Sprintf("%s: Look Out, Sir! %s tries to pass the wound to %s", actor, p.Character, p.Model), true
	case *LookOutSirDeclined:
		return fmt.Sprintf("%s: %s takes the wound himself (no Look Out, Sir)", actor, p.Character), true
	case *WoundPoolsOrdered:
		return fmt.Sprintf("%s orders the wound pools: %s", actor, strings.Join(p.Pools, ", ")), true
	case *CombatChosen:
		return fmt.Sprintf("%s chooses the combat of %s", actor, s.UnitName(p.Unit)), true
	case *StrikeDeclared:
		return fmt.Sprintf("%s: %s at %s", actor, kit.Does(s.UnitName(p.Unit), "strikes", "strike"), s.UnitName(p.Target)), true
	case *MarkerPlaced:
		return placed(s, actor, p), true
	case *MarkerDeclined:
		return fmt.Sprintf("%s does not fire %s's %s: the shot is declined and hits nothing", actor, p.Model, weaponName(unitOfAttack(s).Weapon(p.Weapon))), true
	}
	return "", false
}

// declared tells a shooting declaration: what fires, how many shots, the
// target models in range and sight, focus fire and snap shots.
func declared(s *projector.State, actor string, p *events.ShootingDeclared) (string, bool) {
	a := s.Attack
	if s.Unit(p.Unit) == nil || s.Unit(p.Target) == nil || a == nil || a.Seq != s.Seq {
		return "", false
	}
	line := kit.Declared(s, actor, p)
	if p.Snap {
		line += "; every shot a snap shot (BS1)"
	}
	if p.FocusFire != "" {
		line += fmt.Sprintf("; %s: %s may take the wounds", focusName(p.FocusFire), kit.Count(len(candidates(s, a)), "model", "models"))
	}
	blasts, templates := 0, 0
	for _, m := range edAttack(a).Markers {
		if m.Kind == markerBlast {
			blasts++
		} else {
			templates++
		}
	}
	if blasts > 0 {
		line += fmt.Sprintf("; %s to place", kit.Count(blasts, "blast marker", "blast markers"))
	}
	if templates > 0 {
		line += fmt.Sprintf("; %s to lay", kit.Count(templates, "template", "templates"))
	}
	return line, true
}

// focusName tells a focus-fire declaration.
func focusName(v string) string {
	if v == FocusNone {
		return "focus fire on the models with no cover"
	}
	return fmt.Sprintf("focus fire on the models with a cover save of %s or worse, or none", v)
}

// moved tells a move the assault phase or a fall back gives its meaning;
// other moves are the narrator's.
func moved(s *projector.State, actor string, p *events.ModelMoved) (string, bool) {
	u := s.Unit(p.Unit)
	if u == nil || u.Model(p.Model) == nil {
		return "", false
	}
	who := fmt.Sprintf("%s (%s)", modelLabel(u.Model(p.Model)), u.DisplayName())
	if fb := ed(s).FallBack; fb != nil && fb.Unit == p.Unit && slices.Contains(fb.Moved, p.Model) && fb.Moved[len(fb.Moved)-1] == p.Model {
		return fmt.Sprintf("%s: %s falls back %g\" toward the %s table edge, to (%s, %s)", actor, who, fb.Distance, fb.Edge, kit.Inches(p.X), kit.Inches(p.Y)), true
	}
	if mv := openMove(s, p.Unit, p.Model); mv != nil && s.Phase == projector.PhaseAssault {
		what := map[string]string{moveCharge: "charge move", movePileIn: "pile-in", moveConsolidate: "consolidation move"}[mv.Kind]
		return fmt.Sprintf("%s: %s makes a %s of %s\" (up to %g\") to (%s, %s)", actor, who, what, kit.Inches(math.Hypot(p.X-mv.X, p.Y-mv.Y)), mv.Allow, kit.Inches(p.X), kit.Inches(p.Y)), true
	}
	return "", false
}

// placed tells a marker placed and, for a template, what it covers (a
// blast's roll tells where it lands).
func placed(s *projector.State, actor string, p *MarkerPlaced) string {
	u := unitOfAttack(s)
	w := weaponName(u.Weapon(p.Weapon))
	m := placedMarker(s, p)
	if m == nil || m.Kind == markerBlast {
		return fmt.Sprintf("%s centres %s's %s blast on (%s, %s); it scatters next", actor, p.Model, w, kit.Inches(p.X), kit.Inches(p.Y))
	}
	return fmt.Sprintf("%s lays %s's %s template toward (%s, %s): %s", actor, p.Model, w, kit.Inches(p.X), kit.Inches(p.Y), underWords(s, m))
}

// unitOfAttack is the firing unit of the attack in progress, or of the
// last one.
func unitOfAttack(s *projector.State) *projector.Unit {
	a := s.Attack
	if a == nil {
		a = s.LastAttack
	}
	if a == nil {
		return &projector.Unit{}
	}
	return s.Unit(a.Firer)
}

// placedMarker is the marker p placed, in the attack in progress or the
// last one.
func placedMarker(s *projector.State, p *MarkerPlaced) *Marker {
	for _, a := range []*projector.Attack{s.Attack, s.LastAttack} {
		if a == nil {
			continue
		}
		for i := range edAttack(a).Markers {
			if m := &edAttack(a).Markers[i]; m.Placed && m.Model == p.Model && m.Weapon == p.Weapon && m.X == p.X && m.Y == p.Y {
				return m
			}
		}
	}
	return nil
}

// underWords tells the models a marker covers: the target's, then those
// of other units it hits too (s may be nil when there are none).
func underWords(s *projector.State, m *Marker) string {
	out := "no model of the target under it"
	if len(m.Under) > 0 {
		out = fmt.Sprintf("%s under it (%s)", kit.Count(len(m.Under), "model", "models"), strings.Join(m.Under, ", "))
	}
	for _, h := range m.Others {
		out += fmt.Sprintf("; and %s of %s (%s)", kit.Count(len(h.Models), "model", "models"), s.UnitName(h.Unit), strings.Join(h.Models, ", "))
	}
	return out
}

// RollOutcome tells what a roll of this edition decided
// (projector.RollNarration): a charge, a Morale check or test, a Pinning
// test, a sweeping advance, a fall back, a consolidation, a scatter.
func (Rules) RollOutcome(s *projector.State, p *events.DiceRolled) string {
	x := ed(s)
	switch p.Purpose {
	case purposeCharge:
		if ch := x.Charge; ch != nil && ch.RollSeq == s.Seq {
			return chargeOutcome(s, ch)
		}
	case purposeMorale, checkPinning:
		for _, c := range x.Checks {
			if c.Seq == s.Seq {
				return checkOutcome(s, c)
			}
		}
		if cb := x.Combat; cb != nil {
			for _, t := range cb.Tests {
				if t.Seq == s.Seq {
					return testOutcome(s, t, cb)
				}
			}
		}
	case purposeSweep:
		if cb := x.Combat; cb != nil && len(cb.Tests) > 0 {
			return sweepOutcome(s, cb)
		}
	case purposeFallBack:
		if fb := x.FallBack; fb != nil && fb.Seq == s.Seq {
			if fb.Off {
				return fmt.Sprintf("%g\": it reaches the %s table edge — %s off the table and %s destroyed", fb.Distance, fb.Edge,
					kit.Does(s.UnitName(fb.Unit), "falls", "fall"), isAre(s.UnitName(fb.Unit)))
			}
			return fmt.Sprintf("%g\" toward the %s table edge", fb.Distance, fb.Edge)
		}
	case purposeConsolidate:
		if cb := x.Combat; cb != nil {
			for _, c := range cb.Consolidate {
				if c.Seq == s.Seq {
					return fmt.Sprintf("%s = %g\": %s up to %g\"", consolidation(s), c.Distance, kit.Does(s.UnitName(c.Unit), "consolidates", "consolidate"), c.Distance)
				}
			}
		}
	case purposeScatter:
		return scatterOutcome(s)
	}
	return ""
}

// chargeOutcome: `7": needed 8.0" — the charge fails`.
func chargeOutcome(s *projector.State, ch *Charge) string {
	rate := ""
	if m, e := slowest(s.Unit(ch.Unit), ch.Dice); chargeRate(s.Unit(ch.Unit)) != "" && m != nil {
		rate = fmt.Sprintf(" (the rate of its slowest model, %s on %s)", m.ID, e)
	}
	if ch.First == "" {
		return fmt.Sprintf("%g\"%s — no model is left to charge: the charge fails", ch.Distance, rate)
	}
	if !ch.Success {
		return fmt.Sprintf("%g\"%s: needed %.1f\" — the charge fails", ch.Distance, rate, ch.Needed)
	}
	return fmt.Sprintf("%g\"%s: needed %.1f\" — the charge reaches; %s moves first", ch.Distance, rate, ch.Needed, ch.First)
}

// checkOutcome: a Morale check or Pinning test from shooting.
func checkOutcome(s *projector.State, c Check) string {
	name := s.UnitName(c.Unit)
	out := fmt.Sprintf("%d: needed %d or less (Ld %d) — ", sum(c.Roll), c.Need, c.Need)
	switch {
	case c.Passed:
		return out + "passed"
	case c.Kind == checkMorale:
		return out + "failed: " + kit.Does(name, "falls", "fall") + " back"
	}
	return out + "failed: " + kit.Does(name, "goes", "go") + " to ground"
}

// testOutcome: a losing unit's Morale test after a combat.
func testOutcome(s *projector.State, t Morale, cb *Combat) string {
	out := fmt.Sprintf("%d: needed %d or less (Ld %d − %d) — ", sum(t.Roll), t.Need, t.Ld, cb.Diff)
	switch {
	case t.Passed:
		return out + "passed: " + kit.Does(s.UnitName(t.Unit), "holds", "hold") + " its ground"
	case t.Sweeper != "":
		return out + "failed: " + kit.Does(s.UnitName(t.Sweeper), "makes", "make") + " a sweeping advance"
	}
	return out + "failed: " + kit.Does(s.UnitName(t.Unit), "falls", "fall") + " back"
}

// sweepOutcome: a sweeping advance's roll-off, once both sides rolled.
func sweepOutcome(s *projector.State, cb *Combat) string {
	var t *Morale
	for i := range cb.Tests {
		if cb.Tests[i].SweepWin != 0 {
			t = &cb.Tests[i]
		}
	}
	switch {
	case t == nil:
		return ""
	case t.SweepOwn == 0:
		return fmt.Sprintf("%d + I%d = %d for %s", t.SweepWin, t.WinI, t.SweepWin+t.WinI, s.UnitName(t.Sweeper))
	case t.Caught:
		return fmt.Sprintf("%d + I%d = %d against %d — caught: %s destroyed", t.SweepOwn, t.OwnI, t.SweepOwn+t.OwnI, t.SweepWin+t.WinI, isAre(s.UnitName(t.Unit)))
	}
	return fmt.Sprintf("%d + I%d = %d against %d — %s and %s back", t.SweepOwn, t.OwnI, t.SweepOwn+t.OwnI, t.SweepWin+t.WinI,
		kit.Does(s.UnitName(t.Unit), "escapes", "escape"), fallsWord(s.UnitName(t.Unit)))
}

func fallsWord(name string) string {
	if kit.Plural(name) {
		return "fall"
	}
	return "falls"
}

// isAre is "Ork Boyz are" or "Nob Mob is".
func isAre(name string) string { return kit.Does(name, "is", "are") }

// scatterOutcome: where a blast landed and what is under it.
func scatterOutcome(s *projector.State) string {
	for _, a := range []*projector.Attack{s.Attack, s.LastAttack} {
		if a == nil {
			continue
		}
		for _, m := range edAttack(a).Markers {
			if m.Seq != s.Seq {
				continue
			}
			if !m.Done { // placed with the tape: where it lands is measured next (measure)
				if m.Hit {
					return "a hit: the blast stays where it was placed; the models under it are measured at the table"
				}
				return fmt.Sprintf("an arrow at %d°, 2D6 − BS%d = %g\": the blast moves that far from where it was placed; the models under it where it lands are measured at the table",
					m.Bearing, firerBS(a, m.Model), m.Drift)
			}
			if m.Hit {
				return fmt.Sprintf("a hit: the blast stays on (%s, %s), %s", kit.Inches(m.X), kit.Inches(m.Y), underWords(s, &m))
			}
			return fmt.Sprintf("an arrow at %d°, 2D6 − BS%d = %g\": the blast lands on (%s, %s), %s",
				m.Bearing, firerBS(a, m.Model), m.Drift, kit.Inches(m.FinalX), kit.Inches(m.FinalY), underWords(s, &m))
		}
	}
	return ""
}

// AttackNotes tells what an attack's summary leaves out
// (projector.AttackNarration): snap shots, focus fire and the wounds lost
// for want of a model to take them, where each marker landed.
func (Rules) AttackNotes(s *projector.State, a *projector.Attack) []string {
	x := edAttack(a)
	var notes []string
	if a.Kind == KindSnap && a.Type == projector.AttackShooting {
		notes = append(notes, "snap shots")
	}
	if a.Kind == KindStray {
		notes = append(notes, "the hits of blasts that landed on it: a blast hits every model under it, friend or foe")
	}
	if x.FocusFire != "" {
		notes = append(notes, focusName(x.FocusFire))
	}
	if x.Lost > 0 {
		whom := "in range and sight"
		if x.FocusFire != "" {
			whom += " that focus fire allows"
		}
		notes = append(notes, fmt.Sprintf("%s lost: no model %s was left to take them", kit.Count(x.Lost, "wound", "wounds"), whom))
	}
	u := s.Unit(a.Firer)
	for _, m := range x.Markers {
		w := weaponName(u.Weapon(m.Weapon))
		switch {
		case m.Declined:
			notes = append(notes, fmt.Sprintf("%s's %s shot declined", m.Model, w))
		case m.Kind == markerTemplate:
			notes = append(notes, fmt.Sprintf("%s's %s template: %s", m.Model, w, underWords(s, &m)))
		case m.Hit:
			notes = append(notes, fmt.Sprintf("%s's %s blast stayed on target: %s", m.Model, w, underWords(s, &m)))
		default:
			notes = append(notes, fmt.Sprintf("%s's %s blast scattered %g\": %s", m.Model, w, m.Drift, underWords(s, &m)))
		}
	}
	return notes
}
