package geom

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// World is everything on the table that can stand between two models.
// Slice order is significant only to break ties, so results are stable.
type World struct {
	Areas  []Area
	Bodies []Body
}

// SightResult is the verdict of World.Sight.
type SightResult struct {
	Visible bool
	// Reason says why, naming the first blocker along the line from the
	// firer, e.g. "blocked by building B1"; for a visible target it is
	// "clear" or lists what obscures it.
	Reason string
	// Obscured is set when the target stands in area terrain or the line
	// crosses a non-blocking obstacle: an area, or an intervening model that
	// does not block. 6e turns this into a cover save. It is a centre-line
	// approximation of "25% obscured", computed whether or not the target is
	// visible, and only meaningful when it is.
	Obscured bool
	// InArea is the id of the first non-blocking area (in World.Areas
	// order) whose polygon, boundary included, holds the target's centre;
	// "" when none.
	InArea string
	// ObscuringAreas and ObscuringBodies are indices into World.Areas and
	// World.Bodies of what made Obscured true, in order from the firer, so
	// an edition can pick the cover its kind gives (woods 5+, ruins 4+, ...).
	ObscuringAreas  []int
	ObscuringBodies []int
}

// obstacle is one thing met along the line of sight. t orders obstacles
// from the firer; order (areas first, then bodies, in slice order) breaks
// ties so the reported blocker never depends on anything but the input.
type obstacle struct {
	t       float64
	order   int
	block   string // non-empty: sight stops here, and this is why
	area    int    // index into World.Areas, or -1
	body    int    // index into World.Bodies, or -1
	obscure bool   // does not block but counts for Obscured
}

// Sight decides whether firer can see target along the straight segment
// between their base centres (3e rules, reused by 6e).
//
// firingSide is the side of the firer and targetUnit the unit of the
// target; empty values default to firer.Side and target.Unit. They are
// separate parameters because the caller, not the Body, owns "who shoots
// at which unit". Models are identified by Unit and ID together.
//
// Rules, applied to everything the segment meets:
//  1. Models of the firing side, its own unit included, never block
//     (vehicles excepted, rule 2). Models of the firing unit do not even
//     obscure; other friendly units do (6e "intervening models"). The
//     firer and target themselves never block.
//  2. Vehicles block for both sides, firing unit and target unit included:
//     the rules say vehicles block, with no exception for anyone's own.
//  3. Any other enemy model (Side != firingSide) blocks when the target is
//     no more than twice its height. Default: models of the target's own
//     unit neither block nor obscure it — a unit does not hide its own
//     members, otherwise the front rank would shield the rear from fire.
//  4. A blocking area (Area.Blocks) blocks as soon as the segment enters its
//     interior, including when the firer or target stands inside it.
//  5. Woods: every stretch of the segment inside the wood must touch the
//     firer or the target (sight never passes through a wood, however
//     narrow), and the total length inside must not exceed Visibility —
//     measured, like every distance, between the closest points of the
//     two bases (the line under either base does not count).
//     Firer and target in the same wood thus see each other up to
//     Visibility apart; a firer inside sees out if within Visibility of the
//     edge along the line.
//
// Ruins, fortifications and razor wire (not Blocking) only obscure.
// Obstacles are taken in order along the line from the firer, so Reason
// names the nearest blocker.
// Bases are circles; a line merely grazing a base (or a model with Radius
// 0) does not cross it.
func (w World) Sight(firer, target Body, firingSide, targetUnit string) SightResult {
	if firingSide == "" {
		firingSide = firer.Side
	}
	if targetUnit == "" {
		targetUnit = target.Unit
	}
	a, b := firer.Pos, target.Pos
	l := Dist(a, b)

	var res SightResult
	var obs []obstacle
	for i, ar := range w.Areas {
		if res.InArea == "" && !ar.Blocks() && PointInPolygon(b, ar.Poly) {
			res.InArea = ar.ID
			// Counted even when the line does not cross the interior, e.g.
			// a target exactly on the edge: it still stands in the piece.
			obs = append(obs, obstacle{t: 1, order: i, area: i, body: -1, obscure: true})
		}
		iv := SegmentInsideIntervals(a, b, ar.Poly)
		if len(iv) == 0 {
			continue
		}
		o := obstacle{t: iv[0].T0, order: i, area: i, body: -1}
		switch {
		case ar.Blocks():
			o.block = "blocked by " + ar.label()
		case ar.isWoods():
			o.block = woodsVerdict(ar, iv, l, firer.Radius, target.Radius)
			o.obscure = true
		default:
			o.obscure = true
		}
		obs = append(obs, o)
	}
	for j, m := range w.Bodies {
		if same(m, firer) || same(m, target) {
			continue
		}
		if !SegmentIntersectsCircle(a, b, m.Pos, m.Radius) {
			continue
		}
		o := obstacle{t: closestParam(m.Pos, a, b), order: len(w.Areas) + j, area: -1, body: j}
		switch bodyVerdict(m, firer, target, firingSide, targetUnit) {
		case bodyIgnored:
			continue
		case bodyObscures:
			o.obscure = true
		case bodyBlocksVehicle:
			who := "enemy"
			if m.Side == firingSide {
				who = "friendly"
			}
			o.block = fmt.Sprintf("blocked by %s vehicle %s", who, m.ID)
		case bodyBlocksModel:
			o.block = fmt.Sprintf("blocked by enemy model %s (height %s ≥ half of %s)",
				m.ID, inches(m.Height), inches(target.Height))
		}
		obs = append(obs, o)
	}

	slices.SortStableFunc(obs, func(x, y obstacle) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		return cmp.Compare(x.order, y.order)
	})

	res.Visible = true
	seenArea := make([]bool, len(w.Areas)) // indexed, never iterated for output order
	var names []string
	for _, o := range obs {
		if o.block != "" && res.Visible {
			res.Visible = false
			res.Reason = o.block
		}
		if !o.obscure {
			continue
		}
		if o.area >= 0 {
			if seenArea[o.area] {
				continue
			}
			seenArea[o.area] = true
			res.ObscuringAreas = append(res.ObscuringAreas, o.area)
			names = append(names, w.Areas[o.area].label())
		} else {
			res.ObscuringBodies = append(res.ObscuringBodies, o.body)
			names = append(names, "model "+w.Bodies[o.body].ID)
		}
	}
	res.Obscured = len(names) > 0
	if res.Visible {
		if res.Obscured {
			res.Reason = "visible, obscured by " + strings.Join(names, ", ")
		} else {
			res.Reason = "clear"
		}
	}
	return res
}

// woodsVerdict applies the woods rule to the interior stretches iv of a
// segment of length l between the centres of bases of radii rf (firer) and
// rt (target), returning "" when sight passes and the reason otherwise.
// Like every distance, the depth is measured between the closest points of
// the two bases: the parts of the line under either base do not count.
func woodsVerdict(ar Area, iv []Interval, l, rf, rt float64) string {
	if l <= rf+rt+Eps {
		return "" // the bases touch: nothing of the wood lies between them
	}
	from, to := rf/l, 1-rt/l // the line between the base edges, as fractions
	var depth float64
	var firerIn, targetIn bool
	for _, v := range iv {
		t0, t1 := max(v.T0, from), min(v.T1, to)
		if t1 <= t0 {
			continue // under the firer's or the target's base
		}
		atFirer := (t0-from)*l <= Eps
		atTarget := (to-t1)*l <= Eps
		if !atFirer && !atTarget {
			return "sight cannot pass through " + ar.label()
		}
		firerIn = firerIn || atFirer
		targetIn = targetIn || atTarget
		depth += (t1 - t0) * l
	}
	if depth <= ar.Visibility+Eps {
		return ""
	}
	vis, got := inches(ar.Visibility), fmt.Sprintf("%.1f", depth)
	switch {
	case firerIn && targetIn:
		return fmt.Sprintf("more than %s\" of %s between firer and target (%s\")", vis, ar.label(), got)
	case firerIn:
		return fmt.Sprintf("firer more than %s\" inside %s (%s\")", vis, ar.label(), got)
	}
	return fmt.Sprintf("more than %s\" inside %s (%s\")", vis, ar.label(), got)
}

// inches formats a measurement without trailing zeros: 6, 2.5.
func inches(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// AreasAt returns the indices into w.Areas of every area whose polygon,
// boundary included, holds p, in slice order. Editions use it for "in area
// terrain" questions beyond the single InArea of a sight check.
func (w World) AreasAt(p Point) []int {
	var out []int
	for i, ar := range w.Areas {
		if PointInPolygon(p, ar.Poly) {
			out = append(out, i)
		}
	}
	return out
}
