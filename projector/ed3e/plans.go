package ed3e

import (
	"maps"
	"slices"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// plans are the shooting plans worked out on the table as it is
// (State.SetMemo: dropped once a model moves, falls or is replaced), by
// what they were worked out from: the unit, its target, whether it moved,
// the weapons chosen and whether the choice names every firing model
// (exact). A plan is a function of those and of the table alone, so the
// same declaration on the same table is planned once: when the recorder or
// the audit decides a declaration and then folds it, and when a unit
// shoots the same target again before anything on the table changed.
//
// Deciding plans with exact false; the declaration it becomes names every
// model that fires, and only those, with the weapon each fires, so its
// fold (exact, with those weapons) gives the same plan: each model fires
// as decided, at the same closest target (planShooting). The decided plan
// is kept under both keys.
type plans map[planKey][]planned

type planKey struct {
	unit, target string
	moved, exact bool
}

// planned is a plan and the weapons chosen for it.
type planned struct {
	choice map[string]string
	plan   plan
}

// plannedShooting is planShooting through the state's plans. Only a
// table that answers from positions and records nothing is planned
// through them: a measured declaration's plan is a function of its facts
// (which the table's models do not show), and a transcript must be taken
// by asking every question again.
func plannedShooting(tbl *kit.Table, u, t *projector.Unit, choice map[string]string, exact bool) (plan, error) {
	if !tbl.Positioned() {
		return planShooting(tbl, u, t, choice, exact)
	}
	s := tbl.State()
	k := planKey{u.ID, t.ID, u.Moved, exact}
	if ps, _ := s.Memo().(plans); ps != nil {
		for _, p := range ps[k] {
			if maps.Equal(p.choice, choice) {
				return p.plan.clone(), nil
			}
		}
	}
	pl, err := planShooting(tbl, u, t, choice, exact)
	if err != nil {
		return plan{}, err
	}
	ps, _ := s.Memo().(plans)
	if ps == nil { // planShooting read the table: the memo is for it now
		ps = plans{}
		s.SetMemo(ps)
	}
	ps[k] = append(ps[k], planned{maps.Clone(choice), pl})
	if !exact {
		ke := planKey{u.ID, t.ID, u.Moved, true}
		ps[ke] = append(ps[ke], planned{pl.weapons, pl})
	}
	return pl.clone(), nil
}

// clone copies what an attack keeps of a plan, so attacks never share it
// (the weapons become a payload's, which nothing changes).
func (p plan) clone() plan {
	return plan{weapons: p.weapons, shooters: slices.Clone(p.shooters), eligible: slices.Clone(p.eligible)}
}
