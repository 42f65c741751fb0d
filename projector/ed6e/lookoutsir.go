package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// Look Out, Sir (docs/rules/6e.md#look-out-sir): when a wound is allocated to a character and
// another model of its unit is within 6", the owner may roll a D6; 4+ (2+
// for an independent character) moves the wound to a model of the unit
// within 6" of the owner's choice, even one out of range or sight of the
// attackers. One attempt per wound; a unit of characters only may try too.
// The owner names the model when declaring the attempt: the roll does not
// change what the choice could be. It applies to every attack, shooting,
// Overwatch and close combat alike: docs/rules/6e.md#look-out-sir states it
// for any wound allocated to a character.

// lookOutSirRecipients are the models of m's unit that may take a wound
// moved off m: alive, not m, within LookOutSirRange of it.
func lookOutSirRecipients(s *projector.State, a *projector.Attack, m *projector.Model) []*projector.Model {
	u := s.Unit(a.Target)
	tbl := kit.ForAttack(s, a, world(s))
	var out []*projector.Model
	for _, o := range u.AliveModels() {
		if o.ID != m.ID && tbl.Distance(u, m, u, o) <= LookOutSirRange+eps {
			out = append(out, o)
		}
	}
	return out
}

// lookOutSirNeeds are the distances a measured attack needs before it can
// tell whether a wound on character m may be moved: from m to each other
// model of its unit on the table (none when they are known, or from
// positions).
func lookOutSirNeeds(s *projector.State, a *projector.Attack, m *projector.Model) []projector.FactNeed {
	var needs []projector.FactNeed
	for _, o := range s.Unit(a.Target).AliveModels() {
		if o.ID != m.ID {
			needs = append(needs, projector.Need(projector.FactDistance, o.ID, m.ID))
		}
	}
	return kit.ForAttack(s, a, world(s)).Lacks(needs)
}

// lookOutSirNeed is the roll a character's attempt needs.
func lookOutSirNeed(m *projector.Model) int {
	if isIndependent(m) {
		return LookOutSirNeedIC
	}
	return LookOutSirNeed
}

func decideLookOutSir(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a := s.Attack
	if s.Pending.Kind != WaitLookOutSir || a == nil || edAttack(a).Wound == nil {
		return nil, projector.Refuse(CodeNoLookOutSir, "no Look Out, Sir is allowed now: %s; the match waits for: %s", whyNoLookOutSir(s), s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != a.Defender {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides on Look Out, Sir", s.PlayerName(a.Defender))
	}
	ch := targetModel(s, a, edAttack(a).Wound.Model)
	for _, m := range lookOutSirRecipients(s, a, ch) {
		if m.ID == c.Model {
			return []events.Payload{&LookOutSirDeclared{Character: ch.ID, Model: m.ID}}, nil
		}
	}
	var ids []string
	for _, m := range lookOutSirRecipients(s, a, ch) {
		ids = append(ids, m.ID)
	}
	return nil, projector.Refuse(projector.CodeNotEligible, "%q cannot take the wound off %s: name another model of its unit within %g\" (%v)", c.Model, ch.ID, LookOutSirRange, ids)
}

// whyNoLookOutSir explains a refused attempt from the step the match is at:
// the wound being allocated, or, when none is, why none of the target's
// characters was offered one (no other model of the unit within 6").
func whyNoLookOutSir(s *projector.State) string {
	a := s.Attack
	if a == nil || edAttack(a).Wound == nil {
		if a == nil {
			a = s.LastAttack
		}
		if a == nil || s.Unit(a.Target) == nil {
			return "no wound is allocated to a character"
		}
		for _, m := range s.Unit(a.Target).Models {
			if isCharacter(m) && len(lookOutSirRecipients(s, a, m)) == 0 {
				return fmt.Sprintf("no other model of %s's unit is within %g\" of him, so no Look Out, Sir can be tried for a wound allocated to him", m.ID, LookOutSirRange)
			}
		}
		return "no wound is allocated to a character"
	}
	w := edAttack(a).Wound
	m := targetModel(s, a, w.Model)
	switch {
	case w.Tried:
		return fmt.Sprintf("this wound has had its attempt: one Look Out, Sir per wound (it is on %s)", w.Model)
	case !isCharacter(m):
		return fmt.Sprintf("the wound is allocated to %s, which is not a character", w.Model)
	}
	return fmt.Sprintf("no other model of %s's unit is within %g\"", w.Model, LookOutSirRange)
}

func evolveLookOutSir(s *projector.State, p *LookOutSirDeclared) error {
	a := s.Attack
	if a == nil || a.Stage != stageOffer || edAttack(a).Wound == nil || edAttack(a).Wound.Model != p.Character {
		return fmt.Errorf("no Look Out, Sir is offered for %s", p.Character)
	}
	ch := targetModel(s, a, p.Character)
	if m := targetModel(s, a, p.Model); m == nil || !m.Alive() {
		return fmt.Errorf("unknown model %s", p.Model)
	}
	w := edAttack(a).Wound
	w.Tried, w.Recipient = true, p.Model
	addStep(a, len(a.Steps), projector.DiceStep{Purpose: purposeLookOutSir,
		Label: fmt.Sprintf("Look Out, Sir: %s → %s", p.Character, p.Model), Dice: 1, Need: lookOutSirNeed(ch), Weapon: poolWeapon(a, pool(a).Key)},
		Step{AP: pool(a).AP})
	a.Stage = stageLookOutSir
	return nil
}

// resolveLookOutSir moves the wound on a success; either way it cannot
// move again, and its save comes next.
func resolveLookOutSir(a *projector.Attack, d *projector.DiceStep) {
	if w := edAttack(a).Wound; d.Successes > 0 {
		w.Model, w.Moved = w.Recipient, true
	}
}

func evolveLookOutSirDeclined(s *projector.State, p *LookOutSirDeclined) error {
	a := s.Attack
	if a == nil || a.Stage != stageOffer || edAttack(a).Wound == nil || edAttack(a).Wound.Model != p.Character {
		return fmt.Errorf("no Look Out, Sir is offered for %s", p.Character)
	}
	edAttack(a).Wound.Tried = true
	a.Stage = stageAlloc
	allocate(s, a)
	return nil
}

// decideDecline declines the optional step the match offers: Overwatch,
// Look Out, Sir, or a template or blast shot.
func decideDecline(s *projector.State, actor events.Actor) ([]events.Payload, error) {
	switch s.Pending.Kind {
	case WaitOverwatch:
		if actor.Kind != events.ActorPlayer || actor.ID != s.Pending.Player {
			return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides on Overwatch", s.PlayerName(s.Pending.Player))
		}
		return []events.Payload{&OverwatchDeclined{Unit: ed(s).Charge.Target}}, nil
	case WaitLookOutSir:
		if actor.Kind != events.ActorPlayer || actor.ID != s.Pending.Player {
			return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides on Look Out, Sir", s.PlayerName(s.Pending.Player))
		}
		return []events.Payload{&LookOutSirDeclined{Character: edAttack(s.Attack).Wound.Model}}, nil
	case WaitPlace:
		if actor.Kind != events.ActorPlayer || actor.ID != s.Pending.Player {
			return nil, projector.Refuse(projector.CodeWrongPlayer, "%s places the marker or declines the shot", s.PlayerName(s.Pending.Player))
		}
		m := currentMarker(s.Attack)
		return []events.Payload{&MarkerDeclined{Model: m.Model, Weapon: m.Weapon}}, nil
	}
	return nil, projector.Refuse(projector.CodeWrongStep, "nothing is offered to decline; the match waits for: %s", s.Pending.Text)
}
