package ed6e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// A blast hits every model under it where it lands, friend or foe
// (docs/rules/6e.md#templates-and-blasts; default, the 6th-edition
// rulebook, from revision 2). The hits on the target unit are the attack's
// own; those on any other unit — the firer's side's included — are
// resolved once the attack is over, one unit at a time in the setup's
// order, each as an attack of its own (kind KindStray): wound rolls,
// wound pools allocated to the closest of the models hit, saves by that
// unit's owner, Look Out, Sir, casualties, and Morale and Pinning as from
// shooting. Hits that cannot wound anyone in the unit are dropped without
// a roll, as in every attack.

// KindStray is the kind (Attack.Kind) of the attack that resolves a
// blast's hits on a unit other than its target.
const KindStray = "stray"

// Stray is the hits of one shooting attack's blasts on a unit other than
// its target.
type Stray struct {
	Unit     string    `json:"unit"`
	Firer    string    `json:"firer"`
	Attacker string    `json:"attacker"`
	Hits     []AutoHit `json:"hits"`   // by weapon, in the order the markers landed
	Models   []string  `json:"models"` // the unit's models hit, in its order
	// Shooters are the models whose markers hit the unit, with no shots:
	// their shots are the attack's they came from.
	Shooters []projector.Shooter `json:"shooters"`
	Pinning  bool                `json:"pinning,omitempty"`
	// After is the last roll of the attack it comes from: the stray
	// attack is named by it (Attack.Seq), so attacks keep growing seqs.
	After uint64 `json:"after"`
}

// queueStrays notes the hits attack a's blasts scored off its target.
func queueStrays(s *projector.State, a *projector.Attack) {
	u := s.Unit(a.Firer)
	var out []Stray
	for _, m := range edAttack(a).Markers {
		w := u.Weapon(m.Weapon)
		for _, h := range m.Others {
			i := slices.IndexFunc(out, func(st Stray) bool { return st.Unit == h.Unit })
			if i < 0 {
				out = append(out, Stray{Unit: h.Unit, Firer: a.Firer, Attacker: a.Attacker, After: lastRoll(a)})
				i = len(out) - 1
			}
			st := &out[i]
			st.Hits = append(st.Hits, AutoHit{Weapon: m.Weapon, S: w.S, AP: w.AP, Hits: len(h.Models)})
			for _, id := range h.Models {
				if !slices.Contains(st.Models, id) {
					st.Models = append(st.Models, id)
				}
			}
			st.Pinning = st.Pinning || projector.HasKeyword(w.Keywords, KwPinning)
			if !slices.ContainsFunc(st.Shooters, func(sh projector.Shooter) bool { return sh.Model == m.Model && sh.Weapon == m.Weapon }) {
				for _, sh := range a.Shooters {
					if sh.Model == m.Model && sh.Weapon == m.Weapon {
						sh.Shots = 0
						st.Shooters = append(st.Shooters, sh)
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Stray) int { return unitIndex(s, x.Unit) - unitIndex(s, y.Unit) })
	ed(s).Strays = append(ed(s).Strays, out...)
}

// nextStray starts the attack of the first stray hits still to resolve
// on a unit left on the table that they can wound, once the attack prev
// is over: it is named by prev's last roll (Attack.Seq), after every
// attack before it.
func nextStray(s *projector.State, prev *projector.Attack) {
	x := ed(s)
	for len(x.Strays) > 0 && s.Attack == nil {
		st := x.Strays[0]
		x.Strays = x.Strays[1:]
		if len(x.Strays) == 0 {
			x.Strays = nil
		}
		t := s.Unit(st.Unit)
		if t == nil || t.Destroyed() {
			continue
		}
		a := &projector.Attack{Seq: max(st.After, lastRoll(prev)), Type: projector.AttackShooting, Kind: KindStray, Shooters: st.Shooters,
			Firer: st.Firer, Target: t.ID, Attacker: st.Attacker, Defender: t.Player, Stage: stageHit,
			Ext: &Attack{Pinning: st.Pinning}}
		for _, id := range st.Models {
			if m := t.Model(id); m != nil && m.Alive() {
				a.Eligible = append(a.Eligible, id)
			}
		}
		for _, h := range st.Hits {
			edAttack(a).AutoHits = append(edAttack(a).AutoHits, h)
			a.Hits += h.Hits
		}
		if len(a.Eligible) == 0 || !canWound(s, a) {
			continue
		}
		noteShotAt(s, t)
		s.Attack = a
		if len(strayNeeds(s, a)) > 0 {
			edAttack(a).Measuring = measureStray // at the table: where the models hit stand
			return
		}
		strayLands(s, a, kit.ForAttack(s, a, world(s)))
	}
}

// strayLands goes on with stray attack a once the table (tbl: positions,
// or its measurement) says what cover its models have: its expected
// wounds, then its wound rolls (its hits are all scored).
func strayLands(s *projector.State, a *projector.Attack, tbl *kit.Table) {
	edAttack(a).Cover = standingCover(tbl, s.Unit(a.Target), strayModels(s, a))
	a.HitOdds = rules.Fixed(float64(a.Hits)) // scored where the blasts landed
	a.Expected = expected(s, a)
	_, a.ExpectedDamage = projector.CappedExpectation(s, a, a.Hits, a.Expected, 1)
	planWounds(s, a)
}

// strayModels are the models whose cover stray attack a reads: from
// positions every model of its target on the table, as the attacks from
// a line of fire do; measured only the models hit, since no other takes
// its wounds.
func strayModels(s *projector.State, a *projector.Attack) []*projector.Model {
	t := s.Unit(a.Target)
	if !s.Measured() {
		return t.AliveModels()
	}
	var out []*projector.Model
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() {
			out = append(out, m)
		}
	}
	return out
}

// strayNeeds are the facts a measured stray attack needs before its wound
// rolls: the cover each model hit has where it stands and, when more than
// one was hit, their order of closeness to the firing models (which takes
// the wounds first); none from positions.
func strayNeeds(s *projector.State, a *projector.Attack) []projector.FactNeed {
	if !s.Measured() {
		return nil
	}
	ms := strayModels(s, a)
	var needs []projector.FactNeed
	for _, m := range ms {
		needs = append(needs, projector.Need(projector.FactCover, m.ID, ""))
	}
	if len(ms) > 1 {
		for _, m := range ms {
			needs = append(needs, projector.Need(projector.FactOrder, m.ID, ""))
		}
	}
	return kit.ForAttack(s, a, world(s)).Lacks(needs)
}

// canWound reports whether some hit of a can wound the models it may go
// to (the wound chart, against their majority Toughness).
func canWound(s *projector.State, a *projector.Attack) bool {
	tough := majority(a, func(m *projector.Model) int { return m.T }, s.Unit(a.Target))
	for _, h := range hitsByPool(a) {
		if rules.WoundChart(h.S, tough) > 0 {
			return true
		}
	}
	return false
}

// lastRoll is the event of a's last roll (its declaration when it has
// none).
func lastRoll(a *projector.Attack) uint64 {
	seq := a.Seq
	for _, d := range a.Steps {
		seq = max(seq, d.Seq)
	}
	return seq
}

// unitIndex is the position of unit id in the setup.
func unitIndex(s *projector.State, id string) int {
	return slices.IndexFunc(s.Units, func(u *projector.Unit) bool { return u.ID == id })
}

// standingCover is the cover each of models (of t) has from the area
// terrain it stands in (and from having gone to ground), for hits that
// came from no line of fire at it: a blast that scattered onto it
// (engine). Asked of tbl: measured, each model's cover fact.
func standingCover(tbl *kit.Table, t *projector.Unit, models []*projector.Model) []Cover {
	s := tbl.State()
	var out []Cover
	for _, m := range models {
		c := Cover{Model: m.ID}
		what := ""
		kind := tbl.Choice(projector.FactCover, m.ID, "", projector.ValueNone, func() string {
			var k string
			k, what = standingCoverOf(tbl.World(), projector.Body(t, m))
			return k
		})
		if tbl.Measured() {
			what = kind + ", as measured"
		}
		if sv := coverSaveOf(kind); sv > 0 {
			c.Save, c.Why = sv, fmt.Sprintf("%s %d+", what, sv)
		}
		if goneToGround(s, t.ID) {
			groundCover(&c)
		}
		out = append(out, c)
	}
	return out
}

// standingCoverOf is the best cover the area terrain under b gives, as a
// cover fact's kind, and the piece that gives it (the first on a tie);
// none and "" when it stands in none.
func standingCoverOf(w geom.World, b geom.Body) (kind, what string) {
	kind = projector.ValueNone
	best := 0
	for _, ai := range w.AreasAt(b.Pos) {
		k := kit.CoverKindOf(w.Areas[ai])
		if sv := coverSaveOf(k); k != "" && sv > 0 && (best == 0 || sv < best) {
			kind, what, best = k, kit.AreaWhat(w.Areas[ai]), sv
		}
	}
	return kind, what
}
