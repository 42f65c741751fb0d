package kit

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
)

// Sighting is what the firing models of a declaration see of its target
// unit, asked of a Table: every edition's shooting (and 6e's Overwatch)
// asks it the same questions —
//
//   - Range: how far is the closest target model a firing model sees?
//     (fact range, from the firing model; none when it sees none)
//   - InRange: may a target model take the wounds, in range of a firing
//     model that sees it? (fact target: in-range, out-of-range, hidden)
//   - Cover (6e) and Covered (11e): what cover does it have?
//   - Nearest (11e indirect fire): how far is the closest target model,
//     seen or not? Spotted: does another friendly unit see the target?
//
// From positions each answer is computed as the editions always did (the
// lines of sight of geom, base to base); measured, it is read from the
// facts, and Check finds the contradictions between them.
type Sighting struct {
	tbl     *Table
	u, t    *projector.Unit
	targets []*projector.Model // the target's models on the table, in unit order
	tb      []geom.Body
	firers  []*projector.Model // every firing model whose range was asked, in order
	views   []*View            // positions: the full view of each of firers (lazily)
	ranges  []float64          // measured: each firer's range (+Inf: none)
	reaches []float64          // each firer's reach, as the rule gave it (InRange; 0 = unknown)
	stand   []string           // measured: each target's standing, once asked
	order   []Near             // positions: Range's buffer, reused from firer to firer
}

// Sighting is what u's models see of t.
func (t *Table) Sighting(u, target *projector.Unit) *Sighting {
	sg := &Sighting{tbl: t, u: u, t: target, targets: target.AliveModels()}
	if !t.measured {
		sg.tb = t.s.UnitBodies(target) // the cached table's: read, never changed
	}
	sg.stand = make([]string, len(sg.targets))
	return sg
}

// Targets are the target's models on the table, the indices InRange and
// Cover take.
func (sg *Sighting) Targets() []*projector.Model { return sg.targets }

// firer is the index of m among the firing models asked about, adding it.
func (sg *Sighting) firer(m *projector.Model) int {
	if i := slices.Index(sg.firers, m); i >= 0 {
		return i
	}
	sg.firers = append(sg.firers, m)
	sg.views = append(sg.views, nil)
	sg.ranges = append(sg.ranges, math.Inf(1))
	sg.reaches = append(sg.reaches, 0)
	return len(sg.firers) - 1
}

// view is the full view from firing model i (positions).
func (sg *Sighting) view(i int) *View {
	if sg.views[i] == nil {
		v := Look(sg.tbl.World(), projector.Body(sg.u, sg.firers[i]), sg.tb, sg.u.Player, sg.t.ID)
		sg.views[i] = &v
	}
	return sg.views[i]
}

// Look makes the full view from m, for rules that read every line of
// sight (6e cover, 11e cover): positions only.
func (sg *Sighting) Look(m *projector.Model) *View {
	if sg.tbl.measured {
		return nil
	}
	return sg.view(sg.firer(m))
}

// Range is the distance from firing model m to the closest target model
// it sees; seen false when it sees none within within (positions may then
// stop looking beyond within, unless they record a transcript: +Inf is
// "none within within").
func (sg *Sighting) Range(m *projector.Model, within float64) (d float64, seen bool) {
	i := sg.firer(m)
	t := sg.tbl
	if t.measured {
		d = t.Inches(projector.FactRange, "", m.ID, 0, nil)
		sg.ranges[i] = d
		return d, d <= within+geom.Eps
	}
	if v := sg.views[i]; v != nil || t.record || math.IsInf(within, 1) {
		d = sg.view(i).Closest()
	} else {
		// Nearest first, stopping at the first one it sees or once they
		// are out of reach: what folds spend most of their time on.
		d = math.Inf(1)
		fb := projector.Body(sg.u, m)
		w := t.World()
		sg.order = ByDistance(sg.order, fb, sg.tb)
		for _, n := range sg.order {
			if n.D > within+geom.Eps {
				break
			}
			if w.CanSee(fb, sg.tb[n.I], sg.u.Player, sg.t.ID) {
				d = n.D
				break
			}
		}
	}
	t.note(projector.FactRange, "", m.ID, InchesValue(d))
	return d, d <= within+geom.Eps
}

// Sees says, for a refusal, whether firing model m sees any target model
// and why not: the first model it cannot see and what is in the way
// (positions), or that the facts say it sees none.
func (sg *Sighting) Sees(m *projector.Model) (bool, string) {
	i := sg.firer(m)
	if sg.tbl.measured {
		if math.IsInf(sg.ranges[i], 1) {
			return false, fmt.Sprintf("%s sees no model of %s, as measured", m.ID, sg.t.DisplayName())
		}
		return true, ""
	}
	v := sg.view(i)
	return v.Seen(), v.Why
}

// FirstSeen names, for a refusal, a target model firing model m sees and
// its distance: the first in unit order (positions), or the closest the
// facts measured.
func (sg *Sighting) FirstSeen(m *projector.Model) (string, float64) {
	i := sg.firer(m)
	if sg.tbl.measured {
		return "the closest model it sees", sg.ranges[i]
	}
	v := sg.view(i)
	if j := v.First(); j >= 0 {
		return sg.tb[j].ID, v.Dist[j]
	}
	return "", math.Inf(1)
}

// Reach is a firing model and how far its weapon reaches.
type Reach struct {
	Model *projector.Model
	Reach float64
}

// InRange reports whether target model j (an index of Targets) is in
// range of one of firers that sees it: whether it may take the wounds.
func (sg *Sighting) InRange(j int, firers []Reach) bool {
	t := sg.tbl
	tm := sg.targets[j]
	for _, f := range firers {
		sg.reaches[sg.firer(f.Model)] = f.Reach
	}
	if t.measured {
		st := t.Choice(projector.FactTarget, tm.ID, "", projector.StandingInRange, nil)
		sg.stand[j] = st
		return st == projector.StandingInRange
	}
	in := false
	for _, f := range firers {
		i := sg.firer(f.Model)
		if v := sg.views[i]; v != nil {
			if v.Sight[j].Visible && v.Dist[j] <= f.Reach+geom.Eps {
				in = true
				break
			}
			continue
		}
		fb := projector.Body(sg.u, f.Model)
		if geom.BaseDistance(fb, sg.tb[j]) <= f.Reach+geom.Eps && t.World().CanSee(fb, sg.tb[j], sg.u.Player, sg.t.ID) {
			in = true
			break
		}
	}
	if t.record {
		st := projector.StandingInRange
		if !in {
			st = projector.StandingHidden
			for i := range sg.firers {
				if sg.view(i).Sight[j].Visible {
					st = projector.StandingOutOfRange
				}
			}
		}
		t.note(projector.FactTarget, tm.ID, "", st)
	}
	return in
}

// Cover is the best cover target model j has from the firing models
// asked about so far — the terrain it stands in, and whatever obscures it
// along the lines of sight that reach it — as a cover fact's kind
// (projector.CoverKinds) and what gives it ("ruins R1", "intervening
// model b-2", "ruins, as measured"); save says what each kind is worth
// (the lowest wins, the first found on a tie). "none" when it has none.
func (sg *Sighting) Cover(j int, save func(kind string) int) (kind, what string) {
	t := sg.tbl
	tm := sg.targets[j]
	if t.measured {
		kind = t.Choice(projector.FactCover, tm.ID, "", projector.ValueNone, nil)
		return kind, kind + ", as measured"
	}
	kind, best := projector.ValueNone, 0
	try := func(k, w string) {
		if sv := save(k); sv > 0 && (best == 0 || sv < best) {
			kind, what, best = k, w, sv
		}
	}
	w := t.World()
	for _, ai := range w.AreasAt(sg.tb[j].Pos) {
		if k := CoverKindOf(w.Areas[ai]); k != "" {
			try(k, AreaWhat(w.Areas[ai]))
		}
	}
	for i := range sg.firers {
		v := sg.view(i)
		if !v.Seen() || !v.Sight[j].Visible {
			continue
		}
		for _, ai := range v.Sight[j].ObscuringAreas {
			if k := CoverKindOf(w.Areas[ai]); k != "" {
				try(k, AreaWhat(w.Areas[ai]))
			}
		}
		for _, bi := range v.Sight[j].ObscuringBodies {
			try(CoverModels, "intervening model "+w.Bodies[bi].ID)
		}
	}
	t.note(projector.FactCover, tm.ID, "", kind)
	return kind, what
}

// CoverModels is the cover kind of intervening models.
const CoverModels = "models"

// CoverKindOf is the cover fact's kind a terrain piece gives ("" for a
// piece that blocks sight: it gives no cover, it hides): its own kind when
// it is one of the cover kinds, else "area".
func CoverKindOf(a geom.Area) string {
	if a.Blocks() {
		return ""
	}
	switch a.Kind {
	case events.TerrainWoods, events.TerrainRuins, events.TerrainFort, events.TerrainWire:
		return a.Kind
	}
	return "area"
}

// AreaWhat names the piece that gives cover: "woods W1", "area A1" for a
// piece of no kind.
func AreaWhat(a geom.Area) string {
	kind := a.Kind
	if kind == "" {
		kind = "area"
	}
	return kind + " " + a.ID
}

// Covered reports whether the target has the benefit of cover against
// firing model m for a weapon reaching reach (11e): every target model it
// sees within reach is obscured. Measured, it is one fact per firing
// model, whatever the weapon.
func (sg *Sighting) Covered(m *projector.Model, reach float64) bool {
	t := sg.tbl
	if t.measured {
		return t.YesNo(projector.FactCovered, "", m.ID, false, nil)
	}
	v := sg.view(sg.firer(m))
	cover := true
	for j := range sg.tb {
		if v.Dist[j] <= reach+geom.Eps && v.Sight[j].Visible {
			cover = cover && v.Sight[j].Obscured
		}
	}
	t.note(projector.FactCovered, "", m.ID, YesNoValue(cover))
	return cover
}

// Nearest is the distance from firing model m to the closest target
// model, seen or not (11e indirect fire).
func (sg *Sighting) Nearest(m *projector.Model) float64 {
	return sg.tbl.Inches(projector.FactDistance, sg.t.ID, m.ID, 0, func() float64 {
		v := sg.view(sg.firer(m))
		d := math.Inf(1)
		for _, x := range v.Dist {
			d = min(d, x)
		}
		return d
	})
}

// Spotted reports whether another unit of the firing side sees a model
// of the target (11e indirect fire); pos is the positions' answer.
func (sg *Sighting) Spotted(pos func() bool) bool {
	return sg.tbl.YesNo(projector.FactSpotted, "", "", false, pos)
}

// Check finds, once the rule has asked what it needs (or refused the
// declaration), what the measured facts of the sighting contradict: a
// target model in range while no firing model reaches one, a firing model
// that reaches a model while none is in range, a model seen while every
// firing model sees none. Nothing for positions.
func (sg *Sighting) Check() {
	t := sg.tbl
	if !t.measured {
		return
	}
	seesAny, reaches := false, ""
	for i, m := range sg.firers {
		if !math.IsInf(sg.ranges[i], 1) {
			seesAny = true
		}
		if sg.reaches[i] > 0 && sg.ranges[i] <= sg.reaches[i]+geom.Eps && reaches == "" {
			reaches = fmt.Sprintf("%s's closest target model is %s\" away, within its %s\"", m.ID, InchesValue(sg.ranges[i]), InchesValue(sg.reaches[i]))
		}
	}
	inRange, seen := "", ""
	for _, f := range t.facts { // as given: a rule that refused early asked none of them
		if f.Kind != projector.FactTarget || !slices.ContainsFunc(sg.targets, func(m *projector.Model) bool { return m.ID == f.Model }) {
			continue
		}
		switch f.Value {
		case projector.StandingInRange:
			if inRange == "" {
				inRange = f.Model
			}
			fallthrough
		case projector.StandingOutOfRange:
			if seen == "" {
				seen = f.Model
			}
		}
	}
	asked := slices.ContainsFunc(sg.stand, func(s string) bool { return s != "" })
	sg.checkDepth()
	switch {
	case seen != "" && !seesAny:
		t.Inconsistent("%s is seen, but no firing model sees any model of %s (every range is none)", seen, sg.t.DisplayName())
	case inRange != "" && reaches == "" && slices.ContainsFunc(sg.reaches, func(r float64) bool { return r > 0 }):
		t.Inconsistent("%s is in range, but no firing model has a target model within its reach", inRange)
	case asked && reaches != "" && inRange == "":
		t.Inconsistent("%s, yet no model of %s is in range", reaches, sg.t.DisplayName())
	}
}

// checkDepth holds the optional depth facts to the woods they are in: a
// target model more than its wood's visibility inside it cannot be seen
// (docs/rules/3e.md#woods-and-jungle), so it must be hidden.
func (sg *Sighting) checkDepth() {
	t := sg.tbl
	for _, tm := range sg.targets {
		for _, f := range t.facts {
			if f.Kind != projector.FactDepth || f.Model != tm.ID {
				continue
			}
			n := projector.Need(projector.FactDepth, tm.ID, f.From)
			n.Optional = true
			t.lookup(n) // asked: an optional fact of the sighting
			var wood *events.TerrainSpec
			for i := range t.s.Terrain {
				if p := &t.s.Terrain[i]; p.ID == f.From && p.Kind == events.TerrainWoods {
					wood = p
				}
			}
			if wood == nil {
				if !t.s.OnTable(f.From) {
					t.missingModel = append(t.missingModel, f)
				} else {
					t.Inconsistent("%s's depth is measured from %s, which is no woods piece of the table", tm.ID, f.From)
				}
				continue
			}
			vis := wood.Visibility
			if vis == 0 {
				vis = t.WoodsVisibility
			}
			standing := ""
			for _, g := range t.facts {
				if g.Kind == projector.FactTarget && g.Model == tm.ID {
					standing = g.Value
				}
			}
			if projector.FactInches(f.Value) > vis+geom.Eps && standing != projector.StandingHidden {
				t.Inconsistent("%s stands %s\" inside %s, which hides beyond %s\": it cannot be seen, so it is hidden, not %s",
					tm.ID, f.Value, f.From, InchesValue(vis), standing)
			}
		}
	}
}

// Standing is target model j's standing as the facts measured it ("" when
// not asked, or from positions).
func (sg *Sighting) Standing(j int) string { return sg.stand[j] }

// Near is a body's index and its distance from another.
type Near struct {
	I int
	D float64
}

// ByDistance orders bodies tb by base distance from from, nearest first
// (ties by index), into buf's array when it is large enough: folds ask it
// for every firing model of every declaration.
func ByDistance(buf []Near, from geom.Body, tb []geom.Body) []Near {
	ns := buf[:0]
	for i := range tb {
		ns = append(ns, Near{i, geom.BaseDistance(from, tb[i])})
	}
	// An insertion sort: stable, allocation-free, and a unit has a few
	// dozen models at most.
	for i := 1; i < len(ns); i++ {
		x := ns[i]
		j := i
		for ; j > 0 && cmp.Compare(ns[j-1].D, x.D) > 0; j-- { // as slices.SortStableFunc with cmp.Compare
			ns[j] = ns[j-1]
		}
		ns[j] = x
	}
	return ns
}
