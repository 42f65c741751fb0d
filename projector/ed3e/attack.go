package ed3e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// Attack stages: hit → (distribute, for mixed Toughness) → wound → save →
// casualties, each moved on by next (stages).
const (
	stageHit        = "hit"
	stageDistribute = "distribute"
	stageWound      = "wound"
	stageSave       = "save"
	stageCasualties = "casualties"
)

// stages is the 3e attack sequence.
var stages = kit.Machine{Next: next, Pending: setPending}

// planHits creates one to-hit roll per (weapon, BS) group of shooters, in
// the order the models fire, and the exact expected unsaved wounds.
func planHits(s *projector.State, a *projector.Attack) {
	type key struct {
		weapon string
		bs     int
	}
	idx := map[key]int{}
	u := s.Unit(a.Firer)
	for _, sh := range a.Shooters {
		k := key{sh.Weapon, sh.BS}
		i, ok := idx[k]
		if !ok {
			i = len(a.Steps)
			idx[k] = i
			a.Steps = append(a.Steps, projector.DiceStep{
				Purpose: kit.PurposeHit, Label: u.Weapon(sh.Weapon).DisplayName(), Need: HitNeed(sh.BS), S: sh.S, Weapon: sh.Weapon,
			})
		}
		a.Steps[i].Dice += sh.Shots
		a.Shots += sh.Shots
	}
	t := s.Unit(a.Target)
	for _, st := range a.Steps {
		var perHit float64
		for _, id := range a.Eligible {
			m := t.Model(id)
			perHit += rules.P(rules.WoundChart(st.S, m.T)) * rules.SaveFails(m.Sv)
		}
		if len(a.Eligible) > 0 {
			a.Expected += float64(st.Dice) * rules.P(st.Need) * perHit / float64(len(a.Eligible))
		}
	}
	a.HitOdds = kit.Odds(a, kit.PurposeHit)
}

// mixed reports whether the eligible target models differ in Toughness or
// save: then the owner distributes the hits one per model in turn and each
// hit is resolved against its own model (docs/rules/3e.md#mixed-toughness; a mixed
// save is treated the same way, as the only reading that keeps every save
// tied to the model that takes it).
func mixed(s *projector.State, a *projector.Attack) bool {
	t := s.Unit(a.Target)
	var first *projector.Model
	for _, id := range a.Eligible {
		m := t.Model(id)
		if !m.Alive() {
			continue
		}
		if first == nil {
			first = m
		} else if m.T != first.T || m.Sv != first.Sv {
			return true
		}
	}
	return false
}

func evolveRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	a := s.Attack
	if a == nil {
		return fmt.Errorf("no roll is pending")
	}
	d, err := kit.Awaited(a, p)
	if err != nil {
		return err
	}
	kit.Rolled(a, d, seq, p)
	switch d.Purpose {
	case kit.PurposeHit:
		a.Hits += d.Successes
	case kit.PurposeWound:
		a.Wounds += d.Successes
	case kit.PurposeSave:
		a.Saves += d.Successes
		if d.Models != nil { // mixed: each failed save wounds its own model
			t := s.Unit(a.Target)
			for i, v := range d.Values {
				if v < d.Need {
					a.Unsaved++
					wound(s, a, t, d.Models[i])
				}
			}
		}
	}
	stages.Advance(s, a)
	return nil
}

// next moves the attack on once every roll of its stage is made.
func next(s *projector.State, a *projector.Attack) bool {
	switch a.Stage {
	case stageHit:
		if a.Hits == 0 {
			finish(s, a)
			return false
		}
		if mixed(s, a) {
			a.Stage = stageDistribute
			return true
		}
		planUniformWounds(s, a)
		return false
	case stageWound:
		if a.Wounds == 0 {
			finish(s, a)
			return false
		}
		return planSaves(s, a)
	case stageSave:
		if a.Assigned != nil { // mixed: wounds already applied per model
			finish(s, a)
			return false
		}
		a.Unsaved = a.Wounds - a.Saves
		return planCasualties(s, a)
	case stageDistribute, stageCasualties:
		return true // the defender's choice moves it on
	}
	finish(s, a)
	return false
}

// planUniformWounds: one wound roll per hit group against the unit's T.
func planUniformWounds(s *projector.State, a *projector.Attack) {
	t := s.Unit(a.Target)
	tough := t.Model(a.Eligible[0]).T
	hits := a.Steps[:a.Next]
	for _, h := range hits {
		need := rules.WoundChart(h.S, tough)
		if h.Successes == 0 || need == 0 { // N: these hits cannot wound
			continue
		}
		a.Steps = append(a.Steps, projector.DiceStep{Purpose: kit.PurposeWound, Label: fmt.Sprintf("S%d vs T%d", h.S, tough),
			Dice: h.Successes, Need: need, S: h.S, T: tough, Weapon: h.Weapon})
	}
	a.Stage = stageWound
	a.WoundOdds = kit.Odds(a, kit.PurposeWound)
}

// planMixedWounds: after the owner's distribution, one wound roll per
// (S, T) pair, each die tied to the model its hit was given to; the
// attack goes on from there.
func planMixedWounds(s *projector.State, a *projector.Attack) {
	t := s.Unit(a.Target)
	var (
		strengths []int    // strength of each hit, in hit order
		weapons   []string // and its weapon
	)
	for _, h := range a.Steps[:a.Next] {
		for i := 0; i < h.Successes; i++ {
			strengths, weapons = append(strengths, h.S), append(weapons, h.Weapon)
		}
	}
	type key struct{ s, t int }
	idx := map[key]int{}
	of := map[int][]string{} // the weapons of each wound roll's dice
	for i, mid := range a.Assigned {
		m := t.Model(mid)
		k := key{strengths[i], m.T}
		need := rules.WoundChart(k.s, k.t)
		if need == 0 {
			continue
		}
		j, ok := idx[k]
		if !ok {
			j = len(a.Steps)
			idx[k] = j
			a.Steps = append(a.Steps, projector.DiceStep{Purpose: kit.PurposeWound, Label: fmt.Sprintf("S%d vs T%d", k.s, k.t),
				Need: need, S: k.s, T: k.t, Models: []string{}})
		}
		a.Steps[j].Dice++
		a.Steps[j].Models = append(a.Steps[j].Models, mid)
		of[j] = append(of[j], weapons[i])
	}
	for j, ws := range of {
		a.Steps[j].Weapon = projector.OneWeapon(ws)
	}
	a.Stage = stageWound
	a.WoundOdds = kit.Odds(a, kit.PurposeWound)
	stages.Advance(s, a)
}

// planSaves: one armour save per wound (D6 ≥ Sv). Uniform units roll one
// batch; in the mixed case each wounded model saves with its own Sv. It
// reports whether the attack waits for a choice (a Stage's waits).
func planSaves(s *projector.State, a *projector.Attack) bool {
	t := s.Unit(a.Target)
	a.Stage = stageSave
	if a.Assigned == nil {
		sv := t.Model(a.Eligible[0]).Sv
		if sv <= 0 || sv > 6 {
			a.Unsaved = a.Wounds
			return planCasualties(s, a)
		}
		var ws []string
		for _, w := range a.Steps[:a.Next] {
			if w.Purpose == kit.PurposeWound && w.Successes > 0 {
				ws = append(ws, w.Weapon)
			}
		}
		a.Steps = append(a.Steps, projector.DiceStep{Purpose: kit.PurposeSave, Label: fmt.Sprintf("Sv%d+", sv), Dice: a.Wounds, Need: sv,
			Weapon: projector.OneWeapon(ws)})
		return false
	}
	idx := map[int]int{}
	of := map[int][]string{} // the weapons of each save roll's dice
	for _, w := range a.Steps[:a.Next] {
		if w.Purpose != kit.PurposeWound {
			continue
		}
		for i, v := range w.Values {
			if v < w.Need {
				continue
			}
			m := t.Model(w.Models[i])
			if m.Sv <= 0 || m.Sv > 6 { // no save: the wound goes straight through
				a.Unsaved++
				wound(s, a, t, m.ID)
				continue
			}
			j, ok := idx[m.Sv]
			if !ok {
				j = len(a.Steps)
				idx[m.Sv] = j
				a.Steps = append(a.Steps, projector.DiceStep{Purpose: kit.PurposeSave, Label: fmt.Sprintf("Sv%d+", m.Sv), Need: m.Sv, Models: []string{}})
			}
			a.Steps[j].Dice++
			a.Steps[j].Models = append(a.Steps[j].Models, m.ID)
			of[j] = append(of[j], w.Weapon)
		}
	}
	for j, ws := range of {
		a.Steps[j].Weapon = projector.OneWeapon(ws)
	}
	return false
}

// planCasualties: the owner chooses which eligible models take the
// unsaved wounds, unless there is no choice to make. It reports whether
// the attack waits for that choice.
func planCasualties(s *projector.State, a *projector.Attack) bool {
	a.Stage = stageCasualties
	if a.Unsaved == 0 {
		finish(s, a)
		return false
	}
	t := s.Unit(a.Target)
	capacity := 0
	for _, id := range a.Eligible {
		if m := t.Model(id); m.Alive() {
			capacity += m.WoundsLeft
		}
	}
	if a.Unsaved >= capacity { // every eligible model is lost: nothing to choose
		for _, id := range a.Eligible {
			for m := t.Model(id); m.Alive(); {
				wound(s, a, t, id)
			}
		}
		finish(s, a)
		return false
	}
	return true
}

// wound takes one wound off a model, removing it at zero.
func wound(s *projector.State, a *projector.Attack, t *projector.Unit, id string) {
	m := t.Model(id)
	if !m.Alive() {
		return // excess wounds on a dead model are lost
	}
	m.WoundsLeft--
	s.Inflict(a, 1)
	if m.WoundsLeft <= 0 {
		m.Removed = true
		a.Casualties = append(a.Casualties, id)
		s.AddTally(a.Defender, func(t *projector.Tally) { t.ModelsLost++ })
	}
}

// finish closes the attack: the unit has fired, the outcome is kept for
// viewers, and the turn goes on.
func finish(s *projector.State, a *projector.Attack) {
	kit.Fired(s, a)
	s.Pending = s.PendingDeclare()
}

// setPending says what the attack waits for.
func setPending(s *projector.State, a *projector.Attack) {
	t := s.Unit(a.Target)
	switch a.Stage {
	case stageDistribute:
		s.Pending = projector.Pending{Kind: projector.WaitDistribute, Player: a.Defender, Count: a.Hits,
			Text: fmt.Sprintf("%s distributes %s over %s (mixed Toughness): one per model in turn", s.PlayerName(a.Defender), kit.Count(a.Hits, "hit", "hits"), t.DisplayName())}
	case stageCasualties:
		s.Pending = projector.Pending{Kind: projector.WaitCasualties, Player: a.Defender, Count: a.Unsaved,
			Text: fmt.Sprintf("%s chooses %s from %s among models in range and sight", s.PlayerName(a.Defender), kit.Count(a.Unsaved, "casualty", "casualties"), t.DisplayName())}
	default:
		d := a.Current()
		s.Pending = s.PendingRoll(kit.Roller(a, d), d)
	}
}
