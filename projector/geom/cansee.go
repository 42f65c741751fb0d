package geom

// What a body crossed by the line of sight does to it (see World.Sight).
const (
	bodyIgnored       = iota // the firing unit, or the target's own unit
	bodyObscures             // in the way, but does not block
	bodyBlocksVehicle        // vehicles of either side block
	bodyBlocksModel          // an enemy model at least half the target's height
)

// bodyVerdict classifies body m crossed by the line from firer to target.
// Sight and CanSee share it, so the quick answer and the explained one
// can never disagree.
func bodyVerdict(m, firer, target Body, firingSide, targetUnit string) int {
	switch {
	case m.Vehicle:
		return bodyBlocksVehicle
	case m.Unit == firer.Unit && m.Side == firingSide:
		// The firing unit neither blocks nor gives cover: it is the one
		// doing the looking.
		return bodyIgnored
	case m.Unit == targetUnit && m.Side != firingSide:
		return bodyIgnored // default: a unit does not hide its own models
	case m.Side == firingSide:
		return bodyObscures // another friendly unit: see past it, but it is in the way
	case target.Height <= 2*m.Height+Eps:
		return bodyBlocksModel
	}
	return bodyObscures // too short to hide the target, tall enough to obscure it
}

// CanSee is Sight's verdict alone: the same rules, without ordering the
// obstacles or explaining them, and without allocating when sight is
// clear. Folds call it for every firer and target model, so it must be cheap.
func (w World) CanSee(firer, target Body, firingSide, targetUnit string) bool {
	if firingSide == "" {
		firingSide = firer.Side
	}
	if targetUnit == "" {
		targetUnit = target.Unit
	}
	a, b := firer.Pos, target.Pos
	minX, maxX := min(a.X, b.X), max(a.X, b.X)
	minY, maxY := min(a.Y, b.Y), max(a.Y, b.Y)
	for _, m := range w.Bodies {
		r := m.Radius
		if m.Pos.X+r < minX || m.Pos.X-r > maxX || m.Pos.Y+r < minY || m.Pos.Y-r > maxY {
			continue // its base is nowhere near the line
		}
		if same(m, firer) || same(m, target) || !SegmentIntersectsCircle(a, b, m.Pos, m.Radius) {
			continue
		}
		if v := bodyVerdict(m, firer, target, firingSide, targetUnit); v == bodyBlocksVehicle || v == bodyBlocksModel {
			return false
		}
	}
	l := Dist(a, b)
	for _, ar := range w.Areas {
		if !ar.Blocks() && !ar.isWoods() {
			continue // ruins, wire, fortifications only obscure
		}
		if !ar.Poly.overlapsBox(minX, minY, maxX, maxY) {
			continue
		}
		iv := SegmentInsideIntervals(a, b, ar.Poly)
		if len(iv) == 0 {
			continue
		}
		if ar.Blocks() || woodsVerdict(ar, iv, l, firer.Radius, target.Radius) != "" {
			return false
		}
	}
	return true
}

// overlapsBox reports whether the polygon's bounding box meets the box.
func (poly Polygon) overlapsBox(minX, minY, maxX, maxY float64) bool {
	if len(poly) == 0 {
		return false
	}
	pminX, pmaxX, pminY, pmaxY := poly[0].X, poly[0].X, poly[0].Y, poly[0].Y
	for _, p := range poly[1:] {
		pminX, pmaxX = min(pminX, p.X), max(pmaxX, p.X)
		pminY, pmaxY = min(pminY, p.Y), max(pmaxY, p.Y)
	}
	return pmaxX >= minX-Eps && pminX <= maxX+Eps && pmaxY >= minY-Eps && pminY <= maxY+Eps
}
