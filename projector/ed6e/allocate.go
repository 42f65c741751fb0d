package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// Allocation (docs/rules/6e.md#allocating-wounds): each wound goes to the target model closest to
// the attackers among those that may take it (in range and sight, and
// allowed by focus fire). A pool whose candidates all share one save and
// hold no character is saved in one batch, its unsaved wounds then
// removing the closest models; otherwise wounds are allocated, offered to
// Look Out, Sir, saved and applied one at a time. Wounds no candidate can
// take are lost.

// allocate resolves the pools in order until a roll or a choice is
// needed, or every wound is resolved.
func allocate(s *projector.State, a *projector.Attack) {
	x := edAttack(a)
	for {
		if x.Wound != nil {
			if !saveSingle(s, a) {
				return
			}
			continue
		}
		if x.Left == 0 {
			if x.Pool >= len(x.Order) {
				finish(s, a)
				return
			}
			startPool(s, a)
			continue
		}
		cands := candidates(s, a)
		if len(cands) == 0 {
			x.Lost += x.Left
			x.Left = 0
			continue
		}
		if x.Batch {
			if !saveBatch(s, a, cands) {
				return
			}
			continue
		}
		m := closest(s, a, cands)
		x.Wound = &Wound{Model: m.ID}
		if isCharacter(m) && !offerLookOutSir(s, a, m) {
			return
		}
	}
}

// offerLookOutSir offers Look Out, Sir for the wound just allocated to
// character m, when another model of its unit is within range: the
// attack then waits (false). Measured, the distances are measured first
// (the attack waits for them); allocation goes on from here once they
// are (resumeLookOutSir).
func offerLookOutSir(s *projector.State, a *projector.Attack, m *projector.Model) bool {
	if len(lookOutSirNeeds(s, a, m)) > 0 {
		edAttack(a).Measuring = measureLookOutSir
		return false
	}
	if len(lookOutSirRecipients(s, a, m)) > 0 {
		edAttack(a).Wound.Character = m.ID
		a.Stage = stageOffer
		return false
	}
	return true
}

// pool is the pool being resolved.
func pool(a *projector.Attack) *Pool {
	return &edAttack(a).Pools[edAttack(a).Order[edAttack(a).Pool-1]]
}

// startPool begins the next pool: batch when every candidate has the same
// best save and none is a character (default).
func startPool(s *projector.State, a *projector.Attack) {
	x := edAttack(a)
	x.Pool++
	pl := pool(a)
	x.Left, x.Batch = pl.Wounds, true
	cands := candidates(s, a)
	first := 0
	for i, m := range cands {
		sv, _ := bestSave(a, m, pl.AP)
		if i == 0 {
			first = sv
		}
		if isCharacter(m) || sv != first {
			x.Batch = false
		}
	}
}

// candidates are the models that may take the next wound: alive, in range
// and sight of the attackers, and allowed by focus fire.
func candidates(s *projector.State, a *projector.Attack) []*projector.Model {
	t := s.Unit(a.Target)
	var out []*projector.Model
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() && focusAllows(edAttack(a).Focus, coverSave(a, id)) {
			out = append(out, m)
		}
	}
	return out
}

// closest is the candidate closest to the attacking models (their bases,
// where they stood when they attacked); the first in unit order on a tie
// (kit.Table.Closest: measured, the order facts).
func closest(s *projector.State, a *projector.Attack, cands []*projector.Model) *projector.Model {
	return kit.ForAttack(s, a, world(s)).Closest(s.Unit(a.Firer), s.Unit(a.Target), a.Shooters, cands)
}

// bestSave is the best of m's armour save (lost to an AP of its value or
// better), invulnerable save and cover save in attack a; 0 = no save.
// The second result names the save ("armour", "invulnerable", "cover").
func bestSave(a *projector.Attack, m *projector.Model, ap int) (int, string) {
	best, why := 0, ""
	try := func(sv int, what string) {
		if sv >= 1 && sv <= 6 && (best == 0 || sv < best) {
			best, why = sv, what
		}
	}
	if ap <= 0 || ap > m.Sv {
		try(m.Sv, "armour")
	}
	try(m.Inv, "invulnerable")
	try(coverSave(a, m.ID), "cover")
	return best, why
}

// saveSingle asks for the save of the wound allocated on its own, or
// applies it when the model has no save. It reports whether allocation
// may go on without a roll.
func saveSingle(s *projector.State, a *projector.Attack) bool {
	x := edAttack(a)
	m := targetModel(s, a, x.Wound.Model)
	sv, why := bestSave(a, m, pool(a).AP)
	if sv == 0 {
		a.Unsaved++
		pool(a).Unsaved++
		applyWound(s, a, m)
		x.Left--
		x.Wound = nil
		return true
	}
	addStep(a, len(a.Steps), projector.DiceStep{Purpose: purposeSave, Label: fmt.Sprintf("%s, %s %d+", modelLabel(m), why, sv),
		Dice: 1, Need: sv, Models: []string{m.ID}, Weapon: poolWeapon(a, pool(a).Key)}, Step{AP: pool(a).AP})
	a.Stage = stageSave
	return false
}

// saveBatch asks for the pool's saves in one roll, or applies every wound
// when the candidates have no save.
func saveBatch(s *projector.State, a *projector.Attack, cands []*projector.Model) bool {
	x := edAttack(a)
	sv, why := bestSave(a, cands[0], pool(a).AP)
	if sv == 0 {
		a.Unsaved += x.Left
		pool(a).Unsaved += x.Left
		removeClosest(s, a, x.Left)
		x.Left = 0
		return true
	}
	addStep(a, len(a.Steps), projector.DiceStep{Purpose: purposeSave, Label: fmt.Sprintf("%s, %s %d+", pool(a).Key, why, sv),
		Dice: x.Left, Need: sv, Weapon: poolWeapon(a, pool(a).Key)}, Step{AP: pool(a).AP})
	a.Stage = stageSave
	return false
}

// resolveSave applies a save roll: a batch removes the closest models, a
// single save wounds its model or not.
func resolveSave(s *projector.State, a *projector.Attack, d *projector.DiceStep) {
	x, pl := edAttack(a), pool(a)
	unsaved := d.Dice - d.Successes
	a.Saves += d.Successes
	a.Unsaved += unsaved
	pl.Saves += d.Successes
	pl.Unsaved += unsaved
	if x.Wound == nil {
		removeClosest(s, a, unsaved)
		x.Left = 0
		return
	}
	if unsaved > 0 {
		applyWound(s, a, targetModel(s, a, x.Wound.Model))
	}
	x.Left--
	x.Wound = nil
}

// removeClosest applies n unsaved wounds to the closest candidates, one
// after another; the ones left when no candidate remains are lost.
func removeClosest(s *projector.State, a *projector.Attack, n int) {
	for ; n > 0; n-- {
		cands := candidates(s, a)
		if len(cands) == 0 {
			edAttack(a).Lost += n
			return
		}
		applyWound(s, a, closest(s, a, cands))
	}
}

// applyWound takes one wound off m, removing it at zero.
func applyWound(s *projector.State, a *projector.Attack, m *projector.Model) {
	m.WoundsLeft--
	edAttack(a).Applied++
	s.Inflict(a, 1)
	if m.WoundsLeft > 0 {
		return
	}
	m.Removed = true
	a.Casualties = append(a.Casualties, m.ID)
	s.AddTally(a.Defender, func(t *projector.Tally) { t.ModelsLost++ })
	if u := s.Unit(a.Target); u.Destroyed() {
		unlock(s, u)
	}
}

// targetModel is model id of the attack's target unit (model ids are
// unique only within a unit).
func targetModel(s *projector.State, a *projector.Attack, id string) *projector.Model {
	return s.Unit(a.Target).Model(id)
}

func modelLabel(m *projector.Model) string {
	if m.Name != "" {
		return m.Name + " " + m.ID
	}
	return m.ID
}

// attackerStep is the attack in progress when it waits for its attacker's
// choice kind from actor; else a refusal saying what the match waits for
// (none names what would be chosen, does what the attacker does).
func attackerStep(s *projector.State, actor events.Actor, kind, none, does string) (*projector.Attack, error) {
	a := s.Attack
	if s.Pending.Kind != kind || a == nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "no %s; the match waits for: %s", none, s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != a.Attacker {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s %s", s.PlayerName(a.Attacker), does)
	}
	return a, nil
}

// decidePools checks the attacker's order of the wound pools: Indices is a
// permutation of the pools listed by the pending step.
func decidePools(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a, err := attackerStep(s, actor, WaitPools, "wound pools wait to be ordered", "orders the wound pools")
	if err != nil {
		return nil, err
	}
	pools := edAttack(a).Pools
	if len(c.Indices) != len(pools) {
		return nil, projector.Refuse(projector.CodeBadCommand, "order all %d pools (indices 0..%d), got %d indices", len(pools), len(pools)-1, len(c.Indices))
	}
	seen := make([]bool, len(pools))
	keys := make([]string, len(pools))
	for i, j := range c.Indices {
		if j < 0 || j >= len(pools) || seen[j] {
			return nil, projector.Refuse(projector.CodeBadCommand, "indices must name each pool 0..%d once; %v does not", len(pools)-1, c.Indices)
		}
		seen[j] = true
		keys[i] = pools[j].Key
	}
	return []events.Payload{&WoundPoolsOrdered{Pools: keys}}, nil
}

func evolvePools(s *projector.State, p *WoundPoolsOrdered) error {
	a := s.Attack
	if a == nil || a.Stage != stageOrder || len(p.Pools) != len(edAttack(a).Pools) {
		return fmt.Errorf("no order of %d wound pools is pending", len(p.Pools))
	}
	for _, key := range p.Pools {
		found := false
		for j, pl := range edAttack(a).Pools {
			if pl.Key == key {
				edAttack(a).Order = append(edAttack(a).Order, j)
				found = true
			}
		}
		if !found {
			return fmt.Errorf("no wound pool %s", key)
		}
	}
	a.Stage = stageAlloc
	allocate(s, a)
	return nil
}
