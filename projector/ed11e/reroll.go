package ed11e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// Re-rolls are their own events: the roller's choice (reroll.chosen, or
// reroll.declined), then a dice.rolled linked by its Reroll field to the
// roll whose dice it replaces. They replace unmodified values, so they
// come before modifiers; each die is re-rolled at most once, because a
// step is offered a re-roll once, right after its first roll.

// offer makes a re-roll available on step i under rule, if any die
// qualifies: 1s for "re-roll hit rolls of 1", failures otherwise.
func offer(a *projector.Attack, i int, rule string) {
	if rule == "" {
		return
	}
	d := a.Steps[i]
	var idx []int
	for k, v := range d.Values {
		if (rule == RuleHitOnes && v == 1) || (rule != RuleHitOnes && v < d.Need) {
			idx = append(idx, k)
		}
	}
	if len(idx) > 0 {
		edAttack(a).Offer = &Reroll{Step: i, Seq: d.Seq, Rule: rule, Indices: idx}
	}
}

// decideReroll takes the offered re-roll on the dice named by Indices, or
// on every die the rule allows when none are named (so a script with
// digital dice can say "re-roll the 1s" before knowing where they are).
func decideReroll(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a := s.Attack
	if a == nil || edAttack(a).Offer == nil {
		return nil, noReroll(s)
	}
	o := edAttack(a).Offer
	if actor.Kind != events.ActorPlayer || actor.ID != a.Attacker {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides this re-roll", s.PlayerName(a.Attacker))
	}
	d := a.Steps[o.Step]
	idx := slices.Clone(c.Indices)
	if len(idx) == 0 {
		idx = slices.Clone(o.Indices)
	}
	allowed := slices.Clone(o.Indices)
	if o.Rule == RuleHits { // any hit roll may be re-rolled, not only a failure
		allowed = allowed[:0]
		for k := range d.Values {
			allowed = append(allowed, k)
		}
	}
	slices.Sort(idx)
	for k, i := range idx {
		switch {
		case i < 0 || i >= len(d.Values):
			return nil, projector.Refuse(projector.CodeBadDice, "the %s roll has dice 0 to %d, not %d", d.Purpose, len(d.Values)-1, i)
		case k > 0 && idx[k-1] == i:
			return nil, projector.Refuse(projector.CodeBadDice, "die %d is named twice: a die is re-rolled at most once", i)
		case !slices.Contains(allowed, i):
			return nil, projector.Refuse(projector.CodeBadDice, "die %d shows %d: %s does not re-roll it (it may re-roll %s)",
				i, d.Values[i], o.Rule, diceList(d.Values, o.Indices))
		}
	}
	return []events.Payload{&RerollChosen{Seq: d.Seq, Indices: idx, Source: o.Rule}}, nil
}

// noReroll explains why no re-roll can be taken now.
func noReroll(s *projector.State) error {
	a := s.Attack
	if a == nil {
		a = s.LastAttack
	}
	if a != nil && a.Next > 0 {
		i := a.Next - 1
		if g := groupOf(edAttack(a), i); g != nil && g.HitStep == i && g.Indirect {
			return projector.Refuse(projector.CodeNotEligible,
				"hit rolls of [INDIRECT FIRE] attacks in indirect shooting cannot be re-rolled (10.07)")
		}
		for _, r := range edAttack(a).Rerolled {
			if r.Step == i {
				return projector.Refuse(projector.CodeNotEligible,
					"the %s roll has been re-rolled already: a die is re-rolled at most once", a.Steps[i].Purpose)
			}
		}
	}
	return projector.Refuse(projector.CodeWrongStep, "no re-roll is offered; the match waits for: %s", s.Pending.Text)
}

func decideDecline(s *projector.State, actor events.Actor) ([]events.Payload, error) {
	a := s.Attack
	if a == nil || edAttack(a).Offer == nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "nothing to decline; the match waits for: %s", s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != a.Attacker {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides this re-roll", s.PlayerName(a.Attacker))
	}
	return []events.Payload{&RerollDeclined{Seq: edAttack(a).Offer.Seq}}, nil
}

func evolveRerollChosen(s *projector.State, p *RerollChosen) error {
	a := s.Attack
	if a == nil || edAttack(a).Offer == nil || edAttack(a).Offer.Seq != p.Seq || len(p.Indices) == 0 {
		return fmt.Errorf("no re-roll of roll %d is offered", p.Seq)
	}
	x := edAttack(a)
	n := len(a.Steps[x.Offer.Step].Values)
	for _, i := range p.Indices {
		if i < 0 || i >= n {
			return fmt.Errorf("roll %d has no die %d", p.Seq, i)
		}
	}
	x.Rerolling = &Reroll{Step: x.Offer.Step, Seq: p.Seq, Rule: p.Source, Indices: slices.Clone(p.Indices)}
	x.Offer = nil
	stages.Advance(s, a)
	return nil
}

func evolveRerollDeclined(s *projector.State, p *RerollDeclined) error {
	a := s.Attack
	if a == nil || edAttack(a).Offer == nil || edAttack(a).Offer.Seq != p.Seq {
		return fmt.Errorf("no re-roll of roll %d is offered", p.Seq)
	}
	edAttack(a).Offer = nil
	stages.Advance(s, a)
	return nil
}

// applyReroll puts the re-rolled values in place of the dice they replace.
func applyReroll(s *projector.State, a *projector.Attack, p *events.DiceRolled) error {
	x := edAttack(a)
	r := x.Rerolling
	if p.Reroll == nil || p.Reroll.Seq != r.Seq || !slices.Equal(p.Reroll.Indices, r.Indices) || len(p.Values) != len(r.Indices) {
		return fmt.Errorf("expected the re-roll of dice %v of roll %d", r.Indices, r.Seq)
	}
	d := &a.Steps[r.Step]
	vals := slices.Clone(d.Values)
	for k, i := range r.Indices {
		vals[i] = p.Values[k]
	}
	d.Values = vals
	d.Successes = projector.CountAtLeast(vals, d.Need)
	x.Rerolled = append(x.Rerolled, *r)
	x.Rerolling = nil
	stages.Advance(s, a)
	return nil
}

// decideRoll is the common roll, with a clear refusal for damage dice
// given when the weapon's damage is fixed.
func decideRoll(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if c.Purpose == PurposeDamage && s.Pending.Purpose != PurposeDamage {
		if w, d := fixedDamage(s); w != "" {
			return nil, projector.Refuse(projector.CodeWrongStep,
				"%s deals fixed damage (D %s): no damage dice are rolled; the match waits for: %s", w, d, s.Pending.Text)
		}
	}
	return projector.DecideRoll(s, actor, c)
}

// fixedDamage names the weapon of the wound just resolved, or being
// resolved, when its damage is a plain number.
func fixedDamage(s *projector.State) (string, string) {
	a := s.Attack
	if a == nil {
		a = s.LastAttack
	}
	if a == nil {
		return "", ""
	}
	x := edAttack(a)
	for _, i := range []int{x.Cur - 1, x.Cur} {
		if i < 0 || i >= len(x.Wounds) {
			continue
		}
		g := x.Groups[x.Wounds[i].Group]
		if e, err := rules.ParseExpr(g.D); err == nil && !e.Variable() {
			return g.Name, g.D
		}
	}
	return "", ""
}
