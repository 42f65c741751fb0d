package ed6e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// Measured matches (docs/rules/6e.md#measured-matches). Each declaration
// asks its facts of a kit.Table (shoot and overwatch: range, target,
// cover, order; charge: distance and first; strike: fights and order;
// place: centre, distance and visible for a blast, under and friendly for
// a template), and five steps wait for a measurement of their own:
//
//   - lookoutsir: a wound allocated to a character in a measured attack
//     — the distances from it to the other models of its unit (whether
//     one is within LookOutSirRange);
//   - under: the models of the target a blast covers where it landed,
//     and from revision 2 the models of other units it covers (strays);
//   - stray: the cover of the models a blast hit off its target, where
//     they stand, and their order of closeness to the firing models,
//     before the attack of its own that resolves those hits (strays.go);
//   - charge: a charge's distance and first charger again, when the first
//     charger fell to Overwatch before the roll;
//   - edge: how far a unit falling back is from its table edge.
//
// The moves a positioned match records in the assault phase (charge,
// pile-in, consolidation and fall-back moves) are made at the table in a
// measured one, and recorded by none: a charge that reaches locks the
// units at its roll.

// What a measure step of this edition is for (Pending.Purpose, and the
// geometry.measured event's For).
const (
	measureLookOutSir = "lookoutsir"
	measureUnder      = "under"
	measureEdge       = "edge"
	measureStray      = "stray"
)

var _ projector.Measurer = Rules{}

// PositionsOnly are the steps only a positioned match has: the first
// charger's move, the fall-back moves.
func (Rules) PositionsOnly() []string { return []string{WaitChargeMove, WaitFallBack} }

// Answer is what the positions of s say of a fact a measure step asks
// for: a distance between two models (Look Out, Sir), a unit's distance
// and first charger (a charge measured again), its distance to its table
// edge, a model under the blast that has just landed.
func (Rules) Answer(s *projector.State, n projector.FactNeed) (string, bool) {
	tbl := kit.NewPositions(s, world(s))
	switch n.Kind {
	case projector.FactDistance:
		fu, from := s.FindModel(n.From)
		tu, to := s.FindModel(n.Model)
		if from != nil && to != nil {
			return kit.InchesValue(tbl.Distance(fu, from, tu, to)), true
		}
		if u, t := s.Unit(n.From), s.Unit(n.Model); u != nil && t != nil {
			_, d := kit.Nearest(u, t)
			return kit.InchesValue(d), true
		}
	case projector.FactFirst:
		if u, t := s.Unit(n.Model), chargedUnit(s); u != nil && t != nil {
			if m, _ := kit.Nearest(u, t); m != nil {
				return m.ID, true
			}
		}
	case projector.FactEdge:
		if fb := ed(s).FallBack; fb != nil && fb.Unit == n.From {
			if fb.Off {
				return "0", true // it fell off: its roll reached the edge
			}
			u := s.Unit(fb.Unit)
			d := math.Inf(1)
			for _, m := range u.AliveModels() {
				left, _ := toEdge(s, projector.Body(u, m), fb.Edge)
				d = min(d, left)
			}
			return kit.InchesValue(d), true
		}
	case projector.FactUnder, projector.FactStrays:
		for _, a := range []*projector.Attack{s.Attack, s.LastAttack} {
			if a == nil {
				continue
			}
			if m := lastLanded(a); m != nil && n.Kind == projector.FactUnder {
				return kit.YesNoValue(slices.Contains(m.Under, n.Model)), true
			} else if m != nil {
				var ids []string
				for _, h := range m.Others {
					ids = append(ids, h.Models...)
				}
				return projector.ModelList(ids), true
			}
		}
	case projector.FactCover, projector.FactOrder:
		if a := s.Attack; a != nil && a.Kind == KindStray {
			return strayAnswer(s, a, n)
		}
	}
	return "", false
}

// strayAnswer is what the positions say of a stray attack's measurement:
// the cover a model hit has where it stands, its rank of closeness to the
// firing models among the models hit.
func strayAnswer(s *projector.State, a *projector.Attack, n projector.FactNeed) (string, bool) {
	u, m := s.FindModel(n.Model)
	if m == nil || u.ID != a.Target {
		return "", false
	}
	if n.Kind == projector.FactCover {
		kind, _ := standingCoverOf(s.World(WoodsVisibility), projector.Body(u, m))
		return kind, true
	}
	var hit []*projector.Model
	for _, id := range a.Eligible {
		if h := u.Model(id); h != nil && h.Alive() {
			hit = append(hit, h)
		}
	}
	tbl, _ := kit.ForCommand(s, projector.Command{Transcribe: true}, world(s))
	tbl.Order(s.Unit(a.Firer), u, a.Shooters, hit)
	for _, f := range tbl.Measurement(measureStray).Facts {
		if f.Model == n.Model {
			return f.Value, true
		}
	}
	return "", false
}

// chargedUnit is the target of the charge being resolved.
func chargedUnit(s *projector.State) *projector.Unit {
	if ch := ed(s).Charge; ch != nil {
		return s.Unit(ch.Target)
	}
	return nil
}

// lastLanded is the marker of a that landed last (a blast's: it scattered).
func lastLanded(a *projector.Attack) *Marker {
	var last *Marker
	for i := range edAttack(a).Markers {
		if m := &edAttack(a).Markers[i]; m.Done && m.Kind == markerBlast && !m.Declined {
			last = m
		}
	}
	return last
}

// evolveMeasured folds a measurement: a measured move (the models that
// moved, for their Heavy weapons), or the one a step of this edition
// waits for. A declaration's own measurement is read by its event.
func evolveMeasured(s *projector.State, seq uint64, p *events.Measured) error {
	if p.For == projector.CmdMove || p.For == projector.MeasuredAdvance {
		if s.Phase == projector.PhaseMovement {
			for _, f := range p.Facts {
				u, ms := projector.MovedModels(s, f)
				for _, m := range ms {
					if k := modelKey(u.ID, m.ID); !slices.Contains(ed(s).Moved, k) {
						ed(s).Moved = append(ed(s).Moved, k)
					}
				}
			}
		}
		return nil
	}
	if s.Pending.Kind != projector.WaitMeasure {
		return nil
	}
	switch p.For {
	case measureLookOutSir:
		a := s.Attack
		if a == nil || edAttack(a).Measuring != measureLookOutSir || edAttack(a).Wound == nil {
			return fmt.Errorf("no Look Out, Sir distances are asked for")
		}
		a.Measures = append(a.Measures, seq)
		edAttack(a).Measuring = ""
		if offerLookOutSir(s, a, targetModel(s, a, edAttack(a).Wound.Model)) {
			allocate(s, a)
		}
	case measureUnder:
		a := s.Attack
		m := currentMarker(a)
		if a == nil || edAttack(a).Measuring != measureUnder || m == nil {
			return fmt.Errorf("no blast waits to be measured where it landed")
		}
		m.Measure = seq
		a.Measures = append(a.Measures, seq)
		edAttack(a).Measuring = ""
		blastLands(s, a, m, kit.ForMeasure(s, seq, world(s)))
		stages.Advance(s, a)
	case measureStray:
		a := s.Attack
		if a == nil || edAttack(a).Measuring != measureStray {
			return fmt.Errorf("no stray blast hits wait to be measured")
		}
		a.Measures = append(a.Measures, seq)
		edAttack(a).Measuring = ""
		strayLands(s, a, kit.ForAttack(s, a, world(s)))
	case purposeCharge:
		ch := ed(s).Charge
		if ch == nil || ch.Stage != chargeRoll {
			return fmt.Errorf("no charge waits to be measured again")
		}
		ch.Measure = seq
		if first, _ := chargeGap(s, ch); first == nil || !first.Alive() {
			return fmt.Errorf("the first charger measured is no model of %s on the table", ch.Unit)
		}
	case measureEdge:
		fb := falling(s)
		if fb == nil || fb.Seq == 0 {
			return fmt.Errorf("no fall back waits to be measured")
		}
		fb.Measure = seq
		fellTo(s, fb)
	default:
		return fmt.Errorf("6e measures nothing for %q", p.For)
	}
	return nil
}

// measurePending is the measure step attack a waits for.
func measurePending(s *projector.State, a *projector.Attack) projector.Pending {
	x := edAttack(a)
	if x.Measuring == measureUnder {
		m := currentMarker(a)
		return s.PendingMeasure(a.Attacker, measureUnder, underNeeds(s, a, m),
			fmt.Sprintf("which models of %s the blast of %s's %s covers where it landed", s.UnitName(a.Target), m.Model, weaponName(s.Unit(a.Firer).Weapon(m.Weapon))))
	}
	if x.Measuring == measureStray {
		return s.PendingMeasure(a.Attacker, measureStray, strayNeeds(s, a),
			fmt.Sprintf("where the models of %s a blast hit stand: the cover each has from the terrain it is in%s", s.UnitName(a.Target),
				map[bool]string{true: ", and their order of closeness to the firing models (1 the closest)"}[len(strayModels(s, a)) > 1]))
	}
	ch := targetModel(s, a, x.Wound.Model)
	return s.PendingMeasure(a.Defender, measureLookOutSir, lookOutSirNeeds(s, a, ch),
		fmt.Sprintf("how far %s, who takes a wound, is from each model of %s (Look Out, Sir reaches %g\")", modelLabel(ch), s.UnitName(a.Target), LookOutSirRange))
}
