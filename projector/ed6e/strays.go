package ed6e

import (
	"slices"

	"github.com/matchrec/matchrec/projector"
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
			Ext: &Attack{Pinning: st.Pinning, Cover: standingCover(s, t)}}
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
		a.HitOdds = rules.Fixed(float64(a.Hits)) // scored where the blasts landed
		a.Expected = expected(s, a)
		_, a.ExpectedDamage = projector.CappedExpectation(s, a, a.Hits, a.Expected, 1)
		s.Attack = a
		planWounds(s, a) // its hits are all scored: its wound rolls are next
	}
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

// standingCover is the cover each model of t has from the area terrain it
// stands in (and from having gone to ground), for hits that came from no
// line of fire at it: a blast that scattered onto it (engine).
func standingCover(s *projector.State, t *projector.Unit) []Cover {
	world := s.World(WoodsVisibility)
	var out []Cover
	for _, m := range t.AliveModels() {
		c := Cover{Model: m.ID}
		for _, ai := range world.AreasAt(projector.Body(t, m).Pos) {
			improve(&c, areaCover(world.Areas[ai]))
		}
		if goneToGround(s, t.ID) {
			groundCover(&c)
		}
		out = append(out, c)
	}
	return out
}
