package ed6e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

var _ projector.RollExplainer = Rules{}

// The rules' sections a 6e roll follows (docs/rules/6e.md).
const (
	docRoot        = "docs/rules/6e.md#"
	docHit         = docRoot + "roll-to-hit"
	docBS6         = docRoot + "bs-6-and-above"
	docMC          = docRoot + "master-crafted-weapons"
	docSnap        = docRoot + "snap-shots"
	docCloseHit    = docRoot + "close-combat-hit-roll"
	docInitiative  = docRoot + "initiative-steps"
	docMarkers     = docRoot + "templates-and-blasts"
	docWound       = docRoot + "wound-chart"
	docSaves       = docRoot + "saves"
	docCover       = docRoot + "cover"
	docAllocate    = docRoot + "allocating-wounds"
	docLookOutSir  = docRoot + "look-out-sir"
	docCharge      = docRoot + "charge-distance"
	docMorale      = docRoot + "morale"
	docShotMorale  = docRoot + "morale-and-pinning-from-shooting"
	docSweep       = docRoot + "sweeping-advances"
	docFallBack    = docRoot + "falling-back"
	docConsolidate = docRoot + "pile-in-and-consolidation"
)

// ExplainRoll states what a 6e roll is for, every input to what it decides
// and the section of docs/rules/6e.md behind it, and what it decided
// (projector.RollExplainer): an attack's hit, re-roll, scatter, wound,
// save and Look Out, Sir rolls, and the charge, Morale, Pinning, sweeping
// advance, fall back and consolidation rolls. The roll goes where
// evolveRoll sends it, read from before.
func (r Rules) ExplainRoll(before, after *projector.State, p *events.DiceRolled) projector.RollReason {
	x := ed(before)
	var why projector.RollReason
	switch {
	case before.Attack != nil:
		why = explainAttackRoll(before, before.Attack, p)
	case falling(before) != nil && falling(before).Seq == 0:
		why = explainFallBack(before, falling(before))
	case falling(before) == nil && dueCheck(before) != nil:
		why = explainCheck(before, dueCheck(before))
	case x.Charge != nil && x.Charge.Stage == chargeRoll:
		why = explainCharge(before, x.Charge)
	case x.Combat != nil:
		why = explainCombatRoll(before, x.Combat)
	default:
		return projector.RollReason{For: "no roll was pending: " + before.Pending.Text, Rule: docRoot + "assault-phase"}
	}
	if why.Decided == "" {
		why.Decided = r.RollOutcome(after, p)
	}
	return why
}

// explainAttackRoll explains the roll attack a waits for.
func explainAttackRoll(before *projector.State, a *projector.Attack, p *events.DiceRolled) projector.RollReason {
	d := a.Current()
	if d == nil {
		return projector.RollReason{For: "no roll of the attack was pending", Rule: docAllocate}
	}
	info := edAttack(a).Steps[a.Next]
	why := projector.RollReason{For: kit.RollFor(before, a, d)}
	switch {
	case d.Purpose == purposeHit && info.IsReroll:
		why.Inputs, why.Rule = rerollInputs(a, d, info)
	case d.Purpose == purposeHit && a.Type == projector.AttackMelee:
		why.Inputs, why.Rule = meleeHitInputs(before, a, d, info)
	case d.Purpose == purposeHit:
		why.Inputs, why.Rule = hitInputs(before, a, d, info)
	case d.Purpose == purposeScatter:
		why.Inputs, why.Rule = scatterInputs(before, a)
	case d.Purpose == purposeWound:
		why.Inputs = []string{fmt.Sprintf("Strength %d against Toughness %d (the most common among the models that may take the wounds, the higher on a tie) on the wound chart: %d+", d.S, d.T, d.Need),
			fmt.Sprintf("the wounds form the pool %s", info.Pool)}
		why.Rule = docWound
	case d.Purpose == purposeSave:
		why.Inputs, why.Rule = saveInputs(before, a, d, info)
	case d.Purpose == purposeLookOutSir:
		why.Inputs, why.Rule = lookOutSirInputs(before, a, d)
		why.Decided = lookOutSirDecided(edAttack(a).Wound, d.Need, p.Values)
	default:
		why.Inputs, why.Rule = []string{fmt.Sprintf("%d+", d.Need)}, docAllocate
	}
	return why
}

// hitInputs: the BS table, its BS 6+ re-roll, snap shots and a
// master-crafted weapon, for the shooters the step rolls for.
func hitInputs(s *projector.State, a *projector.Attack, d *projector.DiceStep, info Step) ([]string, string) {
	var in []string
	rule := docHit
	snap := strings.HasSuffix(d.Label, "snap shots")
	for _, sh := range stepShooters(s, a, d) {
		in = append(in, fmt.Sprintf("%s fires %s: %s", sh.Model, kit.Count(sh.Shots, "shot", "shots"), sh.Weapon))
	}
	switch {
	case snap:
		in = append(in, fmt.Sprintf("snap shots (%s) are fired at BS%d: only a 6 hits, and a BS 6+ re-roll does not apply", snapWhy(s, a), SnapBS))
		rule += " and " + docSnap
	default:
		bs := stepBS(a, d)
		in = append(in, fmt.Sprintf("BS%d on the BS table: %d+", bs, d.Need))
		if info.Reroll == ruleBS {
			in = append(in, fmt.Sprintf("BS%d re-rolls a 1, the re-roll hitting on %d+ (the table's second column): %.3f a shot", bs, info.RerollNeed, PHit(bs)))
			rule += " and " + docBS6
		}
	}
	if info.Reroll == ruleMC {
		in = append(in, fmt.Sprintf("master-crafted: up to %s re-rolled at %d+, the same as the first roll (the BS table's re-roll is not used)", kit.Count(info.RerollMax, "failed die", "failed dice"), info.RerollNeed))
		rule += " and " + docMC
	}
	return in, rule
}

// meleeHitInputs: the Weapon Skill table and the charge bonus.
func meleeHitInputs(s *projector.State, a *projector.Attack, d *projector.DiceStep, info Step) ([]string, string) {
	var in []string
	for _, sh := range stepShooters(s, a, d) {
		in = append(in, fmt.Sprintf("%s strikes %s with %s", sh.Model, kit.Count(sh.Shots, "blow", "blows"), weaponName(s.Unit(a.Firer).Weapon(sh.Weapon))))
	}
	rule := docCloseHit + " and " + docInitiative
	if b := chargeBonus(s, s.Unit(a.Firer)); b > 0 {
		in = append(in, fmt.Sprintf("its Attacks count +%d: %s charged this turn and reached its target (the rulebook's charge bonus, default)", b, s.UnitName(a.Firer)))
	}
	in = append(in, fmt.Sprintf("%s (the target's most common WS) on the close-combat table: %d+", strings.TrimPrefix(d.Label[strings.LastIndex(d.Label, ",")+1:], " "), d.Need))
	if info.Reroll == ruleMC {
		in = append(in, fmt.Sprintf("master-crafted: up to %s re-rolled at %d+", kit.Count(info.RerollMax, "failed die", "failed dice"), info.RerollNeed))
		rule += " and " + docMC
	}
	return in, rule
}

// rerollInputs: which dice of which roll are re-rolled, and why.
func rerollInputs(a *projector.Attack, d *projector.DiceStep, info Step) ([]string, string) {
	of := a.Steps[info.Of]
	in := []string{fmt.Sprintf("dice %v of the roll of event %d (%v) are re-rolled, once: no die is re-rolled twice", info.Indices, of.Seq, of.Values)}
	if info.Reroll == ruleMC {
		return append(in, fmt.Sprintf("master-crafted: a failed die is re-rolled at %d+, as the first roll", d.Need)), docMC
	}
	return append(in, fmt.Sprintf("BS 6 and above re-roll a 1: the re-roll hits on %d+", d.Need)), docBS6
}

// stepShooters are the shooters hit step d rolls for.
func stepShooters(s *projector.State, a *projector.Attack, d *projector.DiceStep) []projector.Shooter {
	u := s.Unit(a.Firer)
	var out []projector.Shooter
	for _, sh := range a.Shooters {
		name := weaponName(u.Weapon(sh.Weapon))
		if sh.Weapon == CloseCombatWeapon {
			name = CloseCombatWeapon
		}
		if sh.S == d.S && strings.HasPrefix(d.Label, name+",") && (a.Type == projector.AttackMelee || HitNeed(sh.BS) == d.Need) {
			out = append(out, sh)
		}
	}
	return out
}

// stepBS is the BS of the shooters a hit step rolls for.
func stepBS(a *projector.Attack, d *projector.DiceStep) int {
	for _, sh := range a.Shooters {
		if HitNeed(sh.BS) == d.Need && strings.HasSuffix(d.Label, fmt.Sprintf("BS%d", sh.BS)) {
			return sh.BS
		}
	}
	return 0
}

// snapWhy says why an attack's shots are snap shots.
func snapWhy(s *projector.State, a *projector.Attack) string {
	switch {
	case a.Type == projector.AttackOverwatch:
		return "Overwatch is all snap shots"
	case a.Kind == KindSnap && goneToGround(s, a.Firer):
		return s.UnitName(a.Firer) + " has gone to ground"
	case a.Kind == KindSnap:
		return "forced snap fire"
	}
	return "a Heavy weapon fired by a model that moved"
}

// scatterInputs: how the scatter roll is read.
func scatterInputs(s *projector.State, a *projector.Attack) ([]string, string) {
	m := currentMarker(a)
	hit := "every model of the target under the marker where it lands takes a hit (revision 0 and 1)"
	if round3(s) {
		hit = "every model under the marker where it lands takes a hit, friend or foe (the rulebook's, default)"
	}
	placed := fmt.Sprintf("%s's blast marker (%g\" across) was placed at (%s, %s)", m.Model, 2*m.Radius, kit.Inches(m.X), kit.Inches(m.Y))
	if m.Measure != 0 || s.Measured() {
		centre := kit.ForMeasure(s, m.Measure, world(s)).Choice(projector.FactCentre, "", m.Model, "", nil)
		placed = fmt.Sprintf("%s's blast marker (%g\" across) was centred over %s, as measured at the table, where the models under it are measured once it lands", m.Model, 2*m.Radius, centre)
	}
	return []string{
		placed,
		fmt.Sprintf("the first die is the scatter die: 1 to %d is a hit, the marker stays", ScatterHitFaces),
		fmt.Sprintf("otherwise the first two dice give the arrow's bearing, ((first − 3) × 6 + (second − 1)) × 15° clockwise from the table's +y (%d bearings)", ScatterBearings),
		fmt.Sprintf("and the last two, less the firer's BS%d (never below 0), the inches it moves", firerBS(a, m.Model)),
		hit,
	}, docMarkers
}

// saveInputs: each save a model may use against the pool's AP, and the
// best.
func saveInputs(s *projector.State, a *projector.Attack, d *projector.DiceStep, info Step) ([]string, string) {
	var ms []*projector.Model
	if len(d.Models) > 0 {
		ms = append(ms, targetModel(s, a, d.Models[0]))
	} else {
		ms = candidates(s, a)
	}
	if len(ms) == 0 || ms[0] == nil {
		return []string{fmt.Sprintf("D6 ≥ %d saves", d.Need)}, docSaves
	}
	m := ms[0]
	in := []string{}
	if len(d.Models) == 0 {
		in = append(in, "one roll for the whole pool: every model that may take its wounds has the same best save and none is a character (default); each failure removes the closest model")
	} else {
		in = append(in, fmt.Sprintf("the wound is allocated to %s, the closest model that may take it", modelLabel(m)))
	}
	switch {
	case m.Sv == 0:
		in = append(in, "no armour save")
	case info.AP > 0 && info.AP <= m.Sv:
		in = append(in, fmt.Sprintf("armour %d+ is removed by AP%d (AP equal to or better than the save)", m.Sv, info.AP))
	default:
		in = append(in, fmt.Sprintf("armour %d+ (AP%s does not remove it)", m.Sv, apLabel(info.AP)))
	}
	if m.Inv > 0 {
		in = append(in, fmt.Sprintf("invulnerable %d+ (AP does not affect it)", m.Inv))
	}
	rule := docSaves
	if c := coverOf6e(a, m.ID); c.Save > 0 {
		in = append(in, "cover "+c.Why)
		rule += " and " + docCover
	}
	in = append(in, fmt.Sprintf("the best of them: D6 ≥ %d saves", d.Need))
	return in, rule
}

// coverOf6e is model id's cover in attack a.
func coverOf6e(a *projector.Attack, id string) Cover {
	for _, c := range edAttack(a).Cover {
		if c.Model == id {
			return c
		}
	}
	return Cover{}
}

// lookOutSirInputs: the character, the model named, the roll needed.
func lookOutSirInputs(s *projector.State, a *projector.Attack, d *projector.DiceStep) ([]string, string) {
	w := edAttack(a).Wound
	ch := targetModel(s, a, w.Character)
	if ch == nil {
		return []string{fmt.Sprintf("%d+", d.Need)}, docLookOutSir
	}
	need := fmt.Sprintf("a character's attempt succeeds on %d+", LookOutSirNeed)
	if isIndependent(ch) {
		need = fmt.Sprintf("an independent character's attempt succeeds on %d+ (default)", LookOutSirNeedIC)
	}
	return []string{
		fmt.Sprintf("a wound is allocated to %s, a character, with another model of the unit within %g\"", modelLabel(ch), LookOutSirRange),
		fmt.Sprintf("the owner named %s to take the wound on a success", w.Recipient),
		need,
		"one attempt per wound: success or not, it cannot move again",
	}, docLookOutSir
}

// lookOutSirDecided: where the wound went.
func lookOutSirDecided(w *Wound, need int, values []int) string {
	if w == nil || len(values) == 0 {
		return ""
	}
	if values[0] >= need {
		return fmt.Sprintf("%d: it works — the wound moves to %s", values[0], w.Recipient)
	}
	return fmt.Sprintf("%d: it fails — %s keeps the wound", values[0], w.Character)
}

// explainCharge: the charge dice, the first charger's distance.
func explainCharge(s *projector.State, ch *Charge) projector.RollReason {
	u, t := s.Unit(ch.Unit), s.Unit(ch.Target)
	first, need := chargeGap(s, ch)
	in := []string{fmt.Sprintf("%dD6\": the charge distance, unless a model charges differently (%dD6 is the source's)", chargeDice(u), ChargeDice)}
	if r := chargeRate(u); r != "" {
		in = append(in, strings.TrimPrefix(r, "; "))
	}
	if first != nil {
		how := "base to base"
		if ch.Measure != 0 || s.Measured() {
			how += ", as measured at the table"
		}
		in = append(in, fmt.Sprintf("the first charger is %s, the closest to %s: %.1f\" to cover, %s", first.ID, t.DisplayName(), need, how))
	}
	in = append(in, "short of it the charge fails and nobody moves")
	return projector.RollReason{For: fmt.Sprintf("%s charge distance against %s", kit.Possessive(u.DisplayName()), t.DisplayName()), Inputs: in, Rule: docCharge}
}

// explainCheck: a Morale check or Pinning test from shooting.
func explainCheck(s *projector.State, c *Check) projector.RollReason {
	what := "Morale check at the end of the shooting phase"
	after := "one that fails falls back toward its own table edge"
	if c.Kind == checkPinning {
		what, after = "Pinning test", "one that fails goes to ground"
	}
	return projector.RollReason{For: fmt.Sprintf("%s %s", kit.Possessive(s.UnitName(c.Unit)), what),
		Inputs: []string{c.Why, fmt.Sprintf("%dD6 at most its Ld %d passes (its highest Ld)", MoraleDice, c.Need), after},
		Rule:   docShotMorale}
}

// explainFallBack: the distance toward the own edge.
func explainFallBack(s *projector.State, fb *FallBack) projector.RollReason {
	u := s.Unit(fb.Unit)
	in := []string{fb.Why, fmt.Sprintf("%dD6\": every model moves that far straight toward %s's own table edge, the %s edge", FallBackDice, s.PlayerName(u.Player), fb.Edge)}
	if s.Measured() {
		in = append(in, "how far its model closest to that edge is from it is measured at the table once rolled: a roll of that or more takes the unit off the table, destroyed")
		return projector.RollReason{For: fmt.Sprintf("%s fall-back move", kit.Possessive(u.DisplayName())), Inputs: in, Rule: docFallBack}
	}
	best := -1.0
	for _, m := range u.AliveModels() {
		if d, _ := toEdge(s, projector.Body(u, m), fb.Edge); best < 0 || d < best {
			best = d
		}
	}
	if best >= 0 {
		in = append(in, fmt.Sprintf("its model closest to that edge is %.1f\" from it: a roll of that or more takes the unit off the table, destroyed", best))
	}
	return projector.RollReason{For: fmt.Sprintf("%s fall-back move", kit.Possessive(u.DisplayName())), Inputs: in, Rule: docFallBack}
}

// explainCombatRoll: a Morale test, a sweeping advance or a consolidation
// after a combat.
func explainCombatRoll(s *projector.State, cb *Combat) projector.RollReason {
	switch cb.Stage {
	case stageMorale:
		t := cb.Tests[cb.Test]
		return projector.RollReason{For: fmt.Sprintf("%s Morale test after losing its combat", kit.Possessive(s.UnitName(t.Unit))),
			Inputs: []string{fmt.Sprintf("the combat result: %d unsaved wounds against %d, lost by %d", cb.wounds(cb.Winner), cb.wounds(cb.Loser), cb.Diff),
				fmt.Sprintf("Ld %d (its highest) − %d: %dD6 at most %d passes (default)", t.Ld, cb.Diff, MoraleDice, t.Need),
				"a unit that fails falls back, unless the winner's sweeping advance catches it"},
			Rule: docMorale}
	case stageSweep:
		t := cb.Tests[cb.Test]
		roller, ini := t.Sweeper, t.WinI
		if t.SweepWin != 0 {
			roller, ini = t.Unit, t.OwnI
		}
		in := []string{fmt.Sprintf("%s rolls %dD6 + I%d (its lowest Initiative)", s.UnitName(roller), SweepDice, ini),
			fmt.Sprintf("%s catches %s if its total equals or beats theirs: caught, they are destroyed; else they fall back", s.UnitName(t.Sweeper), s.UnitName(t.Unit))}
		if t.SweepWin != 0 {
			in = append(in, fmt.Sprintf("%s rolled %d + I%d = %d", s.UnitName(t.Sweeper), t.SweepWin, t.WinI, t.SweepWin+t.WinI))
		}
		return projector.RollReason{For: fmt.Sprintf("the sweeping advance of %s against %s", s.UnitName(t.Sweeper), s.UnitName(t.Unit)), Inputs: in, Rule: docSweep}
	case stageConsolidate:
		c := consolidationDue(cb)
		e := consolidation(s)
		in := []string{fmt.Sprintf("%s: up to that many inches, its enemies in the combat gone", diceWords(e))}
		if round3(s) {
			in = append(in, fmt.Sprintf("no model may end within %g\" of an enemy (the 6th-edition rulebook's D6\" and 1\", default, revision 2)", ConsolidateEnemyGap))
		} else {
			in = append(in, "no model may end in base contact with an enemy (revision 1)")
		}
		return projector.RollReason{For: fmt.Sprintf("%s consolidation move", kit.Possessive(s.UnitName(c.Unit))), Inputs: in, Rule: docConsolidate}
	}
	return projector.RollReason{For: "the combat waited for no roll", Rule: docRoot + "fight-sub-phase"}
}

// wounds is the unsaved wounds player caused in the combat.
func (cb *Combat) wounds(player string) int {
	for _, c := range cb.Caused {
		if c.Player == player {
			return c.Wounds
		}
	}
	return 0
}
