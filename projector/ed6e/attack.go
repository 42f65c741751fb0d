package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// Attack stages. An attack (shooting, Overwatch or a unit's blows at one
// Initiative step) goes (marker, while templates and blasts are placed and
// scattered) → hit → wound → order (only with several pools) → alloc,
// where each wound is allocated, possibly offered to Look Out, Sir (offer,
// lookoutsir) and saved (save), until every pool is resolved.
const (
	stageMarker     = "marker"
	stageHit        = "hit"
	stageWound      = "wound"
	stageOrder      = "order"
	stageAlloc      = "alloc"
	stageSave       = "save"
	stageOffer      = "offer"
	stageLookOutSir = "lookoutsir"
)

// stages is the 6e attack sequence (what it waits for is derived after
// every event, in pending.go).
var stages = kit.Machine{Next: next, Waiting: func(a *projector.Attack) bool { return edAttack(a).Measuring != "" }}

// Roll purposes of this edition's attacks.
const (
	purposeHit        = kit.PurposeHit
	purposeWound      = kit.PurposeWound
	purposeSave       = kit.PurposeSave
	purposeLookOutSir = "lookoutsir"
)

// Re-roll rules, recorded as the Reroll.Source of the re-roll's dice.
const (
	ruleBS = "BS6+"           // the re-roll of a 1 that BS6 and above grant
	ruleMC = "master-crafted" // replaces the table, same target as the first roll
)

// hitSpec is how one shooter or striker rolls to hit.
type hitSpec struct {
	key      string // shooters and strikers with the same key roll together
	label    string
	need     int
	bsReroll int    // target of the BS6+ re-roll of 1s, 0 = none
	mc       bool   // master-crafted: failed rolls re-rolled at need
	auto     bool   // hits without a roll
	marker   string // each shot a template or blast marker (markerKind)
}

// start plans the hit rolls of a new attack and makes it the attack in
// progress.
func start(s *projector.State, a *projector.Attack, specs []hitSpec) {
	planHits(s, a, specs)
	s.Attack = a
	stages.Advance(s, a)
}

// shootingSpecs: one group per (weapon, BS, snap); snap shots at SnapBS.
func shootingSpecs(u *projector.Unit, pl plan) []hitSpec {
	out := make([]hitSpec, len(pl.shooters))
	for i, sh := range pl.shooters {
		w := u.Weapon(sh.Weapon)
		label := fmt.Sprintf("%s, BS%d", weaponName(w), sh.BS)
		if pl.snap[i] {
			label = weaponName(w) + ", snap shots"
		}
		out[i] = hitSpec{key: fmt.Sprintf("%s/%d/%t", sh.Weapon, sh.BS, pl.snap[i]), label: label,
			need: HitNeed(sh.BS), bsReroll: RerollNeed(sh.BS), mc: masterCrafted(w), auto: autoHits(w), marker: markerKind(w)}
	}
	return out
}

// planHits creates one hit roll per group of shooters, in the order they
// fire, the automatic hits, the markers of templates and blasts (placed
// first), and the attack's expected unsaved wounds.
func planHits(s *projector.State, a *projector.Attack, specs []hitSpec) {
	idx := map[string]int{} // looked up only, never iterated
	for i, sh := range a.Shooters {
		sp := specs[i]
		a.Shots += sh.Shots
		if sp.marker != "" && round2(s) {
			addMarkers(a, sh, s.Unit(a.Firer).Weapon(sh.Weapon), sp.marker)
			continue
		}
		if sp.marker == markerTemplate && !round2(s) {
			sp.auto = true // before revision 1 a template hit Shots times
		}
		if sp.auto {
			a.Hits += sh.Shots
			edAttack(a).AutoHits = append(edAttack(a).AutoHits, AutoHit{Weapon: sh.Weapon, S: sh.S, AP: sh.AP, Hits: sh.Shots})
			continue
		}
		j, ok := idx[sp.key]
		if !ok {
			j = len(a.Steps)
			idx[sp.key] = j
			info := Step{AP: sh.AP}
			switch {
			case sp.mc: // the weapon's own re-roll wins over the table
				info.Reroll, info.RerollNeed = ruleMC, sp.need
			case sp.bsReroll > 0:
				info.Reroll, info.RerollNeed = ruleBS, sp.bsReroll
			}
			addStep(a, len(a.Steps), projector.DiceStep{Purpose: purposeHit, Label: sp.label, Need: sp.need, S: sh.S, Weapon: sh.Weapon}, info)
		}
		a.Steps[j].Dice += sh.Shots
		if sp.mc {
			edAttack(a).Steps[j].RerollMax += MasterCraftedRerolls
		}
	}
	if len(edAttack(a).Markers) > 0 {
		a.Stage = stageMarker
	}
	a.Expected = expected(s, a)
	a.HitOdds = hitOdds(a)
}

// addStep inserts a dice step and its 6e details at index i.
func addStep(a *projector.Attack, i int, d projector.DiceStep, info Step) {
	a.Steps = append(a.Steps[:i], append([]projector.DiceStep{d}, a.Steps[i:]...)...)
	edAttack(a).Steps = append(edAttack(a).Steps[:i], append([]Step{info}, edAttack(a).Steps[i:]...)...)
}

// evolveAttackRoll folds a roll of the attack in progress.
func evolveAttackRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	a := s.Attack
	d, err := kit.Awaited(a, p)
	if err != nil {
		return err
	}
	i := a.Next
	info := edAttack(a).Steps[i]
	if info.IsReroll && (p.Reroll == nil || p.Reroll.Seq != a.Steps[info.Of].Seq) {
		return fmt.Errorf("a re-roll must name the roll it replaces (event %d)", a.Steps[info.Of].Seq)
	}
	kit.Rolled(a, d, seq, p)
	switch d.Purpose {
	case purposeHit:
		a.Hits += d.Successes
		if !info.IsReroll && info.Reroll != "" {
			queueReroll(a, i)
		}
	case purposeWound:
		a.Wounds += d.Successes
	case purposeSave:
		resolveSave(s, a, d)
	case purposeLookOutSir:
		resolveLookOutSir(a, d)
	case purposeScatter:
		resolveScatter(s, a, d)
	}
	stages.Advance(s, a)
	return nil
}

// queueReroll adds, right after hit step i, the re-roll its rule grants:
// the 1s (BS6+) or failed dice (master-crafted, up to one per model). A
// re-roll step is never re-rolled: no die is re-rolled twice.
func queueReroll(a *projector.Attack, i int) {
	d, info := &a.Steps[i], edAttack(a).Steps[i]
	var idx []int
	for j, v := range d.Values {
		fail := v < d.Need
		if info.Reroll == ruleBS {
			fail = v == 1
		}
		if fail && (info.RerollMax == 0 || len(idx) < info.RerollMax) {
			idx = append(idx, j)
		}
	}
	if len(idx) == 0 {
		return
	}
	label := d.Label + ", re-roll of 1s"
	if info.Reroll == ruleMC {
		label = d.Label + ", master-crafted re-roll"
	}
	addStep(a, i+1, projector.DiceStep{Purpose: purposeHit, Label: label, Dice: len(idx), Need: info.RerollNeed, S: d.S, Weapon: d.Weapon},
		Step{AP: info.AP, Reroll: info.Reroll, IsReroll: true, Of: i, Indices: idx})
}

// next moves the attack on once every roll of its stage is made: wound
// rolls by Strength and AP once the hits are known, then the wound pools,
// then allocation, one wound or one pool at a time. The order of the
// pools and Look Out, Sir wait for a player's choice.
func next(s *projector.State, a *projector.Attack) bool {
	switch a.Stage {
	case stageMarker: // markerLands moves the attack on after its last marker
		return true
	case stageHit:
		planWounds(s, a)
	case stageWound:
		planPools(s, a)
	case stageAlloc, stageSave, stageLookOutSir:
		a.Stage = stageAlloc
		allocate(s, a)
	default: // stageOrder, stageOffer
		return true
	}
	return false
}

// hitsByPool sums the hits of each Strength/AP, in the order they first
// appear.
func hitsByPool(a *projector.Attack) []Pool {
	var out []Pool
	add := func(st, ap, n int) {
		if n == 0 {
			return
		}
		key := poolKey(st, ap)
		for i := range out {
			if out[i].Key == key {
				out[i].Wounds += n
				return
			}
		}
		out = append(out, Pool{Key: key, S: st, AP: ap, Wounds: n})
	}
	for i, d := range a.Steps {
		if d.Purpose == purposeHit {
			add(d.S, edAttack(a).Steps[i].AP, d.Successes)
		}
	}
	for _, h := range edAttack(a).AutoHits {
		add(h.S, h.AP, h.Hits)
	}
	return out
}

func poolKey(st, ap int) string { return fmt.Sprintf("S%d/AP%s", st, apLabel(ap)) }

// poolWeapon is the one weapon whose hits make the pool of key, or ""
// when hits of several weapons share its Strength and AP.
func poolWeapon(a *projector.Attack, key string) string {
	var ws []string
	for i, d := range a.Steps {
		if d.Purpose == purposeHit && d.Successes > 0 && poolKey(d.S, edAttack(a).Steps[i].AP) == key {
			ws = append(ws, d.Weapon)
		}
	}
	for _, h := range edAttack(a).AutoHits {
		if h.Hits > 0 && poolKey(h.S, h.AP) == key {
			ws = append(ws, h.Weapon)
		}
	}
	return projector.OneWeapon(ws)
}

// planWounds: one wound roll per Strength/AP against the majority
// Toughness of the models that may take the wounds. Hits that cannot
// wound (N on the chart) are lost.
func planWounds(s *projector.State, a *projector.Attack) {
	a.Stage = stageWound
	tough := majority(a, func(m *projector.Model) int { return m.T }, s.Unit(a.Target))
	for _, h := range hitsByPool(a) {
		need := rules.WoundChart(h.S, tough)
		if need == 0 {
			continue
		}
		label := fmt.Sprintf("S%d vs T%d", h.S, tough)
		if a.Kind == KindStray {
			label = fmt.Sprintf("blast hits on %s, %s", s.UnitName(a.Target), label)
		}
		addStep(a, len(a.Steps), projector.DiceStep{Purpose: purposeWound, Label: label,
			Dice: h.Wounds, Need: need, S: h.S, T: tough, Weapon: poolWeapon(a, h.Key)}, Step{AP: h.AP, Pool: h.Key})
	}
	a.WoundOdds = kit.Odds(a, purposeWound)
	if a.Next == len(a.Steps) {
		finish(s, a)
	}
}

// planPools makes a wound pool of each wound roll's wounds; with more than
// one, the attacker picks their order.
func planPools(s *projector.State, a *projector.Attack) {
	for i, d := range a.Steps {
		info := edAttack(a).Steps[i]
		if d.Purpose == purposeWound && d.Successes > 0 {
			edAttack(a).Pools = append(edAttack(a).Pools, Pool{Key: info.Pool, S: d.S, AP: info.AP, Wounds: d.Successes})
		}
	}
	switch len(edAttack(a).Pools) {
	case 0:
		finish(s, a)
	case 1:
		edAttack(a).Order = []int{0}
		a.Stage = stageAlloc
		allocate(s, a)
	default:
		a.Stage = stageOrder
	}
}

// majority is the most common value of f over the models that may take
// the wounds, the higher on a tie.
func majority(a *projector.Attack, f func(*projector.Model) int, t *projector.Unit) int {
	var ms []*projector.Model
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() {
			ms = append(ms, m)
		}
	}
	return majorityOf(ms, f)
}

// majorityOf is the most common value of f over ms, the higher on a tie.
func majorityOf(ms []*projector.Model, f func(*projector.Model) int) int {
	var vals, counts []int
	for _, m := range ms {
		v, found := f(m), false
		for i := range vals {
			if vals[i] == v {
				counts[i]++
				found = true
			}
		}
		if !found {
			vals, counts = append(vals, v), append(counts, 1)
		}
	}
	best, bc := 0, 0
	for i, v := range vals {
		if counts[i] > bc || (counts[i] == bc && v > best) {
			best, bc = v, counts[i]
		}
	}
	return best
}

// finish closes the attack and hands the turn back to what it was part
// of: the shooting phase, a charge (Overwatch) or a combat.
func finish(s *projector.State, a *projector.Attack) {
	if a.Type == projector.AttackShooting {
		afterShooting(s, a)
		kit.Fired(s, a)
		if round3(s) {
			queueStrays(s, a)
			nextStray(s, a)
		}
		return
	}
	s.CloseAttack(a)
	switch a.Type {
	case projector.AttackOverwatch:
		ed(s).Overwatched = append(ed(s).Overwatched, a.Firer)
		if ch := ed(s).Charge; ch != nil && ch.Stage == chargeOverwatch {
			ch.Stage = chargeRoll
			if s.Unit(ch.Unit).Destroyed() { // shot down: nobody is left to charge
				ch.Stage = chargeFailed
			}
		}
	case projector.AttackMelee:
		struck(s, a)
	}
}
