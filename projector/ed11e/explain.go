package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

var _ projector.RollExplainer = Rules{}

// The rules' sections an 11e roll follows (docs/rules/11e.md).
const docRoot = "docs/rules/11e.md#"

// ExplainRoll states what an 11e roll is for, every input to what it
// decides and the section of docs/rules/11e.md behind it, and what it
// decided (projector.RollExplainer): an advance, and an attack's number of
// attacks, hit, wound, save, damage and re-roll dice.
func (Rules) ExplainRoll(before, after *projector.State, p *events.DiceRolled) projector.RollReason {
	if id := ed(before).AdvancePending; id != "" && before.Attack == nil {
		return explainAdvance(before, after, id)
	}
	a := before.Attack
	if a == nil {
		return projector.RollReason{For: "no roll was pending: " + before.Pending.Text, Rule: docRoot + "making-attacks"}
	}
	x := edAttack(a)
	if r := x.Rerolling; r != nil {
		d := a.Steps[r.Step]
		return projector.RollReason{For: fmt.Sprintf("the re-roll of %s", kit.RollFor(before, a, &d)),
			Inputs: []string{fmt.Sprintf("%s: dice %v of the roll of event %d (%v), chosen by %s", r.Rule, r.Indices, r.Seq, d.Values, before.PlayerName(a.Attacker)),
				fmt.Sprintf("re-rolls come before modifiers; each die is re-rolled once at most; the new die needs %d+, as the first", d.Need)},
			Rule: docRoot + "rerolls"}
	}
	d := a.Current()
	if d == nil {
		return projector.RollReason{For: "no roll of the attack was pending", Rule: docRoot + "making-attacks"}
	}
	why := projector.RollReason{For: kit.RollFor(before, a, d)}
	g := groupOf(x, a.Next)
	switch {
	case d.Purpose == PurposeAttacks && g != nil:
		why.Inputs = []string{fmt.Sprintf("%s makes %s attacks a model (its Attacks), rolled for each of its %d firing models", g.Name, g.Attacks, len(g.Shooters))}
		why.Rule = docRoot + "number-of-attacks"
		why.Decided = fmt.Sprintf("%d attacks in all", attacksOf(after, g))
	case d.Purpose == stageHit && g != nil:
		why.Inputs, why.Rule = hitInputs(g, d)
	case d.Purpose == stageWound && g != nil:
		why.Inputs = []string{fmt.Sprintf("Strength %d against Toughness %d (the highest among the target's models, engine): %d+", d.S, d.T, d.Need),
			"an unmodified 1 fails, an unmodified 6 succeeds"}
		if g.WReroll != "" {
			why.Inputs = append(why.Inputs, g.WReroll+": the failures may be re-rolled after the roll")
		}
		why.Rule = docRoot + "wound-roll"
	case d.Purpose == stageSave:
		why.Inputs, why.Rule = saveInputs(before, a)
	case d.Purpose == PurposeDamage:
		why.Inputs, why.Rule = damageInputs(before, a)
		why.Decided = damageDecided(after, a.Seq)
	default:
		why.Inputs, why.Rule = []string{fmt.Sprintf("%d+", d.Need)}, docRoot+"making-attacks"
	}
	return why
}

// hitInputs: the weapon's BS, cover, capped modifiers, the indirect
// threshold and the re-roll rule.
func hitInputs(g *Group, d *projector.DiceStep) ([]string, string) {
	in := []string{fmt.Sprintf("%s: BS %d+ (the weapon's)", g.Name, g.BS)}
	rule := docRoot + "hit-roll"
	if g.Cover {
		in = append(in, fmt.Sprintf("the target has the benefit of cover: the BS worsens by %d", CoverBSPenalty))
		rule += " and " + docRoot + "cover"
	}
	if g.Mod != 0 {
		in = append(in, fmt.Sprintf("hit modifiers sum to %+d (%s), counted at most ±%d: %+d", g.Mod, g.Label, HitModCap, capMod(g.Mod)))
		rule += " and " + docRoot + "hit-modifiers"
	}
	if g.Indirect {
		in = append(in, fmt.Sprintf("[INDIRECT FIRE] in indirect shooting: an unmodified roll below %d fails, and hit rolls cannot be re-rolled", g.MinUnmod))
		rule += " and " + docRoot + "indirect-shooting"
	}
	in = append(in, fmt.Sprintf("an unmodified 1 fails, an unmodified 6 hits: %d+", d.Need))
	if g.Reroll != "" {
		in = append(in, g.Reroll+": offered after the roll, on the dice that rule allows")
	}
	return in, rule
}

// saveInputs: the allocated model's armour save worsened by AP, its
// invulnerable save, the better.
func saveInputs(s *projector.State, a *projector.Attack) ([]string, string) {
	x := edAttack(a)
	w := x.Wounds[x.Cur]
	g := x.Groups[w.Group]
	m := s.Unit(a.Target).Model(w.Model)
	in := []string{fmt.Sprintf("the attack is allocated to %s", w.Model)}
	if m.Sv > 0 {
		in = append(in, fmt.Sprintf("armour %d+ worsened by AP%d: %d+", m.Sv, -abs(g.AP), m.Sv+abs(g.AP)))
	} else {
		in = append(in, "no armour save")
	}
	if m.Inv > 0 {
		in = append(in, fmt.Sprintf("invulnerable %d+, which AP does not worsen", m.Inv))
	}
	in = append(in, fmt.Sprintf("the better, an unmodified 1 failing: %d+", w.SaveNeed))
	return in, docRoot + "saves"
}

// damageInputs: the weapon's D, and what the model has left.
func damageInputs(s *projector.State, a *projector.Attack) ([]string, string) {
	x := edAttack(a)
	w := x.Wounds[x.Cur]
	g := x.Groups[w.Group]
	m := s.Unit(a.Target).Model(w.Model)
	return []string{fmt.Sprintf("%s deals D %s damage", g.Name, g.D),
		fmt.Sprintf("%s has %d wounds left: damage beyond them is lost", w.Model, m.WoundsLeft)}, docRoot + "damage"
}

// damageDecided: the damage rolled and the wounds it took.
func damageDecided(after *projector.State, seq uint64) string {
	a := after.Attack
	if a == nil || a.Seq != seq {
		a = after.LastAttack
	}
	if a == nil || a.Seq != seq {
		return ""
	}
	x := edAttack(a)
	for i := len(x.Wounds) - 1; i >= 0; i-- {
		if w := x.Wounds[i]; w.State == woundDone && w.Damage > 0 {
			return fmt.Sprintf("%d damage: %s loses %s", w.Damage, w.Model, kit.Count(w.Lost, "wound", "wounds"))
		}
	}
	return ""
}

// attacksOf is the attacks a group makes, once rolled.
func attacksOf(s *projector.State, g *Group) int {
	a := s.Attack
	if a == nil {
		a = s.LastAttack
	}
	if a == nil {
		return 0
	}
	for _, o := range edAttack(a).Groups {
		if o.Weapon == g.Weapon && o.AttStep == g.AttStep {
			return o.Count
		}
	}
	return 0
}

// explainAdvance: the advance dice added to the unit's Move.
func explainAdvance(before, after *projector.State, id string) projector.RollReason {
	e, _ := rules.ParseExpr(AdvanceDice)
	why := projector.RollReason{For: fmt.Sprintf("%s advance", kit.Possessive(before.UnitName(id))),
		Inputs: []string{fmt.Sprintf("%s added to each model's Move for this move (the standard modern rule, default)", e),
			"the unit has advanced once it makes the move: it cannot then shoot but in assault shooting"},
		Rule: docRoot + "movement-and-advancing"}
	if n, ok := advanceOf(after, id); ok {
		why.Decided = fmt.Sprintf("%d: its models may move up to their Move + %d\"", n, n)
	}
	return why
}
