package ed11e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// Attack stages (Attack.Stage), each moved on by next (stages).
const (
	stageAttacks  = "attacks"  // variable numbers of attacks are rolled
	stageHit      = "hit"      // hit rolls, one per group
	stageWound    = "wound"    // wound rolls, one per group that hit
	stageAllocate = "allocate" // the defender allocates the current wound
	stageSave     = "save"     // its save roll
	stageDamage   = "damage"   // its variable damage roll
)

// stages is the 11e attack sequence; besides its rolls, an attack waits
// for the roller's answer to a re-roll offered, and for the re-roll's dice.
var stages = kit.Machine{Next: next, Pending: setPending, Waiting: func(a *projector.Attack) bool {
	x := edAttack(a)
	return x.Offer != nil || x.Rerolling != nil
}}

// start plans the attacks rolls (variable attacks are rolled as their own
// dice, one expression per firing model) and goes on.
func start(s *projector.State, a *projector.Attack) {
	x := edAttack(a)
	for i := range x.Groups {
		g := &x.Groups[i]
		e, _ := rules.ParseExpr(g.Attacks) // checked by the plan
		if !e.Variable() {
			g.Count = len(g.Shooters) * e.Plus
			continue
		}
		g.AttStep = len(a.Steps)
		a.Steps = append(a.Steps, projector.DiceStep{Purpose: PurposeAttacks,
			Label: fmt.Sprintf("%s: %s attacks per model", g.Name, g.Attacks), Dice: len(g.Shooters) * e.Dice(), Weapon: g.Weapon})
	}
	a.Stage = stageAttacks
	stages.Advance(s, a)
}

// next moves the attack on once every roll of its stage is made: the hit
// rolls once the numbers of attacks are known, the wound rolls once the
// hits are, then each wound through allocation, save and damage.
func next(s *projector.State, a *projector.Attack) bool {
	switch a.Stage {
	case stageAttacks:
		planHits(a)
		if a.Shots == 0 {
			finish(s, a)
		}
	case stageHit:
		a.Hits = successes(a, stageHit)
		planWounds(a)
		if a.Hits == 0 {
			finish(s, a)
		}
	case stageWound:
		a.Wounds = successes(a, stageWound)
		queueWounds(a)
		if a.Wounds == 0 {
			finish(s, a)
		}
	default:
		if resolveWounds(s, a) {
			return true
		}
		finish(s, a)
	}
	return false
}

// planHits: one hit roll per group, BS as a target number with the
// group's cover, capped modifiers and indirect threshold folded in.
func planHits(a *projector.Attack) {
	x := edAttack(a)
	for i := range x.Groups {
		g := &x.Groups[i]
		if g.Count == 0 {
			continue
		}
		g.HitStep = len(a.Steps)
		a.Steps = append(a.Steps, projector.DiceStep{Purpose: stageHit, Label: g.Label, Dice: g.Count, Need: g.Need, S: g.S, Weapon: g.Weapon})
		a.Shots += g.Count
		a.HitOdds = a.HitOdds.Plus(rules.Binomial(g.Count, pReroll(g.Need, g.Reroll)))
	}
	a.Stage = stageHit
}

// planWounds: one wound roll per group that hit, S against the target's T.
func planWounds(a *projector.Attack) {
	x := edAttack(a)
	for i := range x.Groups {
		g := &x.Groups[i]
		if g.HitStep < 0 || a.Steps[g.HitStep].Successes == 0 {
			continue
		}
		g.WndStep = len(a.Steps)
		d := projector.DiceStep{Purpose: stageWound, Label: fmt.Sprintf("%s S%d vs T%d", g.Name, g.S, x.T),
			Dice: a.Steps[g.HitStep].Successes, Need: WoundNeed(g.S, x.T), S: g.S, T: x.T, Weapon: g.Weapon}
		a.Steps = append(a.Steps, d)
		a.WoundOdds = a.WoundOdds.Plus(rules.Binomial(d.Dice, pReroll(d.Need, g.WReroll)))
	}
	a.Stage = stageWound
}

// queueWounds lines up the successful wound rolls, in roll order, for
// allocation one at a time.
func queueWounds(a *projector.Attack) {
	x := edAttack(a)
	for i, g := range x.Groups {
		if g.WndStep < 0 {
			continue
		}
		d := a.Steps[g.WndStep]
		for _, v := range d.Values {
			if v >= d.Need {
				x.Wounds = append(x.Wounds, Wound{Group: i})
			}
		}
	}
	a.Stage = stageAllocate
}

func successes(a *projector.Attack, purpose string) int {
	n := 0
	for _, d := range a.Steps {
		if d.Purpose == purpose {
			n += d.Successes
		}
	}
	return n
}

// groupOf returns the group whose attacks, hit or wound roll is step i.
func groupOf(x *Attack, i int) *Group {
	for k := range x.Groups {
		if g := &x.Groups[k]; g.AttStep == i || g.HitStep == i || g.WndStep == i {
			return g
		}
	}
	return nil
}

// evolveAttackRoll folds a roll into the attack: the step waiting for
// dice, or the re-roll chosen.
func evolveAttackRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	a := s.Attack
	x := edAttack(a)
	if x.Rerolling != nil {
		return applyReroll(s, a, p)
	}
	if p.Reroll != nil {
		return fmt.Errorf("a re-roll of roll %d, but no re-roll was chosen", p.Reroll.Seq)
	}
	d, err := kit.Awaited(a, p)
	if err != nil {
		return err
	}
	i := a.Next
	kit.Rolled(a, d, seq, p)
	switch d.Purpose {
	case PurposeAttacks:
		g := groupOf(x, i)
		e, _ := rules.ParseExpr(g.Attacks)
		for k, sh := range g.Shooters {
			n := e.Eval(d.Values[k*e.Dice() : (k+1)*e.Dice()])
			a.Shooters[sh].Shots = n
			g.Count += n
		}
	case stageHit:
		offer(a, i, groupOf(x, i).Reroll)
	case stageWound:
		offer(a, i, groupOf(x, i).WReroll)
	case stageSave:
		w := &x.Wounds[x.Cur]
		w.Saved, w.State = d.Successes > 0, woundSaved
		if w.Saved {
			a.Saves++
		}
	case PurposeDamage:
		w := &x.Wounds[x.Cur]
		e, _ := rules.ParseExpr(x.Groups[w.Group].D)
		w.Damage, w.State = e.Eval(d.Values), woundDamaged
	}
	stages.Advance(s, a)
	return nil
}

// finish closes the attack: the unit has shot, the outcome is kept for
// viewers, and engagement follows the casualties.
func finish(s *projector.State, a *projector.Attack) {
	kit.Fired(s, a)
	if len(a.Casualties) > 0 { // only a model removed can end an engagement
		engagementChanged(s, a)
	}
	s.Pending = declare(s)
}

// declare is the active player's free choice, naming the shooting step.
func declare(s *projector.State) projector.Pending {
	if ed(s).Measuring != "" && !s.Ended {
		return engagedPending(s)
	}
	p := s.PendingDeclare()
	if s.Phase == projector.PhaseShooting && s.Active != "" && !s.Ended {
		if step := ed(s).Step; step != "" {
			p.Text += fmt.Sprintf(" (step: %s)", step)
		}
	}
	return p
}

// expected is the attack's expected unsaved wounds (a count, like
// Attack.Unsaved) and damage, from the exact odds of each roll (re-rolls
// included), averaged over the target's models; damage beyond the wounds
// a model has left is lost (Expr.MeanMin). Attacks stop once the target
// is destroyed, and so do the unsaved wounds counted: both are capped by
// the wounds the target has left (projector.CappedExpectation).
func expected(s *projector.State, a *projector.Attack) (unsaved, damage float64) {
	t := s.Unit(a.Target)
	models := t.AliveModels()
	var attacks float64
	for _, g := range edAttack(a).Groups {
		att, _ := rules.ParseExpr(g.Attacks)
		dmg, _ := rules.ParseExpr(g.D)
		var fail, dealt float64
		for _, m := range models {
			f := 1 - rules.P(SaveNeed(m, g.AP))
			fail += f
			dealt += f * dmg.MeanMin(m.WoundsLeft)
		}
		n := float64(len(g.Shooters)) * att.Mean()
		attacks += n
		n *= pReroll(g.Need, g.Reroll) * pReroll(WoundNeed(g.S, edAttack(a).T), g.WReroll)
		unsaved += n * fail / float64(len(models))
		damage += n * dealt / float64(len(models))
	}
	if unsaved <= 0 {
		return 0, 0
	}
	return projector.CappedExpectation(s, a, int(math.Round(attacks)), unsaved, damage/unsaved)
}

// setPending says what the attack waits for.
func setPending(s *projector.State, a *projector.Attack) {
	x := edAttack(a)
	switch {
	case x.Offer != nil:
		d := a.Steps[x.Offer.Step]
		s.Pending = projector.Pending{Kind: WaitReroll, Player: a.Attacker, Purpose: d.Purpose, Need: d.Need, Count: len(x.Offer.Indices),
			Text: fmt.Sprintf("%s may %s: dice %s of the %s roll (reroll, optionally naming indices; or decline)",
				s.PlayerName(a.Attacker), x.Offer.Rule, diceList(d.Values, x.Offer.Indices), d.Purpose)}
	case x.Rerolling != nil:
		r := x.Rerolling
		d := a.Steps[r.Step]
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: a.Attacker, Dice: len(r.Indices), Purpose: d.Purpose, Need: d.Need,
			Reroll: &events.Reroll{Seq: r.Seq, Indices: slices.Clone(r.Indices), Source: r.Rule},
			Text:   fmt.Sprintf("%s re-rolls %d D6 to %s (%s), needing %d+", s.PlayerName(a.Attacker), len(r.Indices), d.Purpose, r.Rule, d.Need)}
	case a.Stage == stageAllocate:
		w := x.Wounds[x.Cur]
		g := x.Groups[w.Group]
		s.Pending = projector.Pending{Kind: WaitAllocate, Player: a.Defender, Count: 1,
			Text: fmt.Sprintf("%s allocates attack %d of %d (%s, AP%d, D %s) to a model of %s",
				s.PlayerName(a.Defender), x.Cur+1, len(x.Wounds), g.Name, -abs(g.AP), g.D, s.Unit(a.Target).DisplayName())}
	default:
		d := a.Current()
		roller := kit.Roller(a, d)
		if d.Need > 0 {
			s.Pending = s.PendingRoll(roller, d)
			return
		}
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: roller, Dice: d.Dice, Purpose: d.Purpose,
			Text: fmt.Sprintf("%s rolls %d D6 for %s (%s)", s.PlayerName(roller), d.Dice, d.Purpose, d.Label)}
	}
}

// diceList names dice by index and face: "#0 (1), #3 (1)".
func diceList(values, idx []int) string {
	out := ""
	for k, i := range idx {
		if k > 0 {
			out += ", "
		}
		out += fmt.Sprintf("#%d (%d)", i, values[i])
	}
	return out
}
