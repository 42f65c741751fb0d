package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// Each successful wound roll goes through allocation, save and damage on
// its own (steps 3–5 of docs/rules/11e.md#making-attacks:
// docs/rules/11e.md#allocation, docs/rules/11e.md#saves and
// docs/rules/11e.md#damage), because an allocation depends on what the
// previous attack did: a model that has lost wounds must be chosen first.

// Wound states (Wound.State).
const (
	woundNew     = ""        // not yet allocated, or allocated and not yet saving
	woundSave    = "save"    // its save roll is awaited
	woundSaved   = "saved"   // the save is known (Saved), or no save was possible
	woundDamage  = "damage"  // its damage roll is awaited
	woundDamaged = "damaged" // its damage is known
	woundDone    = "done"
)

// resolveWounds resolves the queued wounds until one waits for someone;
// it reports whether one does (false: every wound is resolved).
func resolveWounds(s *projector.State, a *projector.Attack) bool {
	x := edAttack(a)
	t := s.Unit(a.Target)
	for x.Cur < len(x.Wounds) {
		w := &x.Wounds[x.Cur]
		g := &x.Groups[w.Group]
		switch w.State {
		case woundNew:
			if t.Destroyed() { // nothing left to take the remaining attacks: they are lost
				x.Cur = len(x.Wounds)
				return false
			}
			if w.Model == "" {
				if w.Model = forcedModel(t); w.Model == "" {
					a.Stage = stageAllocate
					return true
				}
			}
			m := t.Model(w.Model)
			if w.SaveNeed = SaveNeed(m, g.AP); w.SaveNeed > 6 {
				w.State = woundSaved // no save possible: straight to damage
				continue
			}
			w.State, a.Stage = woundSave, stageSave
			a.Steps = append(a.Steps, projector.DiceStep{Purpose: stageSave, Label: saveLabel(m, g.AP),
				Dice: 1, Need: w.SaveNeed, Models: []string{m.ID}, Weapon: g.Weapon})
			return true
		case woundSaved:
			if w.Saved {
				w.State = woundDone
				x.Cur++
				continue
			}
			a.Unsaved++
			e, _ := rules.ParseExpr(g.D)
			if !e.Variable() {
				w.Damage, w.State = e.Plus, woundDamaged
				continue
			}
			w.State, a.Stage = woundDamage, stageDamage
			a.Steps = append(a.Steps, projector.DiceStep{Purpose: PurposeDamage, Label: fmt.Sprintf("%s: D %s", g.Name, g.D),
				Dice: e.Dice(), Models: []string{w.Model}, Weapon: g.Weapon})
			return true
		case woundDamaged:
			inflict(s, a, t, w)
			w.State = woundDone
			x.Cur++
		default: // a roll is awaited (advance checks Steps first), or done
			if w.State == woundDone {
				x.Cur++
				continue
			}
			return true
		}
	}
	return false
}

// forcedModel is the model an attack must go to when the defender has no
// choice: the only model left, or the one model that has lost wounds.
func forcedModel(t *projector.Unit) string {
	alive := t.AliveModels()
	if len(alive) == 1 {
		return alive[0].ID
	}
	if w := wounded(t); len(w) == 1 {
		return w[0].ID
	}
	return ""
}

// wounded lists the target's models on the table that have lost wounds.
func wounded(t *projector.Unit) []*projector.Model {
	var out []*projector.Model
	for _, m := range t.AliveModels() {
		if m.WoundsLeft < m.W {
			out = append(out, m)
		}
	}
	return out
}

// inflict takes the wound's damage off its model; damage beyond the
// wounds the model has left is lost (it does not spill to another model).
func inflict(s *projector.State, a *projector.Attack, t *projector.Unit, w *Wound) {
	m := t.Model(w.Model)
	if !m.Alive() {
		return
	}
	w.Lost = min(w.Damage, m.WoundsLeft)
	m.WoundsLeft -= w.Lost
	edAttack(a).Damage += w.Lost
	s.Inflict(a, w.Lost)
	if m.WoundsLeft <= 0 {
		m.Removed = true
		a.Casualties = append(a.Casualties, m.ID)
		s.AddTally(a.Defender, func(tl *projector.Tally) { tl.ModelsLost++ })
	}
}

func saveLabel(m *projector.Model, ap int) string {
	l := m.ID
	if m.Sv > 0 {
		l += fmt.Sprintf(", Sv%d+ AP%d", m.Sv, -abs(ap))
	}
	if m.Inv > 0 {
		l += fmt.Sprintf(", invulnerable %d+", m.Inv)
	}
	return l
}

// decideAllocate checks the defender's allocation: a model of the target
// on the table, and a model that has lost wounds if there is one.
func decideAllocate(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a := s.Attack
	if a == nil || s.Pending.Kind != WaitAllocate {
		return nil, projector.Refuse(projector.CodeWrongStep, "no allocation is pending; the match waits for: %s", s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != a.Defender {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s allocates the attacks on %s", s.PlayerName(a.Defender), s.Unit(a.Target).DisplayName())
	}
	t := s.Unit(a.Target)
	m := t.Model(c.Model)
	if m == nil || !m.Alive() {
		return nil, projector.Refuse(projector.CodeBadCasualty, "%q is not a model of %s on the table", c.Model, t.DisplayName())
	}
	if w := wounded(t); len(w) > 0 && m.WoundsLeft == m.W {
		return nil, projector.Refuse(projector.CodeBadCasualty, "%s has lost wounds: the attack must be allocated to it first, not to %s", w[0].ID, m.ID)
	}
	return []events.Payload{&AttackAllocated{Model: m.ID}}, nil
}

func evolveAllocated(s *projector.State, p *AttackAllocated) error {
	a := s.Attack
	if a == nil || a.Stage != stageAllocate {
		return fmt.Errorf("no allocation is pending")
	}
	x := edAttack(a)
	t := s.Unit(a.Target)
	if m := t.Model(p.Model); m == nil || !m.Alive() {
		return fmt.Errorf("%s is not a model of %s on the table", p.Model, t.ID)
	}
	x.Wounds[x.Cur].Model = p.Model
	stages.Advance(s, a)
	return nil
}
