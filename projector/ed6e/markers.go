package ed6e

import (
	"fmt"
	"math"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/rules"
)

// Templates and blasts (docs/rules/6e.md#templates-and-blasts): each shot
// of such a weapon is a marker. The attacker places it — a template laid
// from the firer's base toward a point, covering a model of the target
// unit and no friendly model; a blast centred over a target model the
// firer sees within range — and a blast then scatters: the scatter roll's
// dice (ScatterDice) say whether it stays, and if not which way and how
// far it moves. The models of the target unit under the marker where it
// lies are hit, one hit each. The markers are placed one at a time, before
// the attack's hit rolls; a shot the attacker cannot or will not place is
// declined and hits nothing.

// Marker kinds.
const (
	markerTemplate = "template"
	markerBlast    = "blast"
)

const purposeScatter = "scatter"

// markerKind is the kind of marker each shot of w is, or "" for a weapon
// that rolls to hit.
func markerKind(w *events.WeaponSpec) string {
	switch {
	case w == nil:
		return ""
	case projector.HasKeyword(w.Keywords, KwTemplate):
		return markerTemplate
	case projector.HasKeyword(w.Keywords, KwBlast), projector.HasKeyword(w.Keywords, KwLargeBlast), projector.HasKeyword(w.Keywords, KwLargeBlastAlt):
		return markerBlast
	}
	return ""
}

// blastDiameter is the marker a blast weapon fires: the large one for a
// LARGE BLAST.
func blastDiameter(w *events.WeaponSpec) float64 {
	if projector.HasKeyword(w.Keywords, KwLargeBlast) || projector.HasKeyword(w.Keywords, KwLargeBlastAlt) {
		return BlastLarge
	}
	return BlastSmall
}

// addMarkers adds a marker for each of a shooter's shots.
func addMarkers(a *projector.Attack, sh projector.Shooter, w *events.WeaponSpec, kind string) {
	for range sh.Shots {
		m := Marker{Model: sh.Model, Weapon: sh.Weapon, Kind: kind}
		if kind == markerBlast {
			m.Radius = blastDiameter(w) / 2
		}
		edAttack(a).Markers = append(edAttack(a).Markers, m)
	}
}

// currentMarker is the marker the attack waits for, or nil once every
// marker is resolved.
func currentMarker(a *projector.Attack) *Marker {
	for i := range edAttack(a).Markers {
		if m := &edAttack(a).Markers[i]; !m.Done {
			return m
		}
	}
	return nil
}

// markerShape is where marker m lies once placed: a blast at pos, a
// template laid from its firer toward (m.X, m.Y).
func markerShape(s *projector.State, a *projector.Attack, m *Marker, pos geom.Point) (geom.Marker, error) {
	if m.Kind == markerBlast {
		return geom.Blast(pos, 2*m.Radius), nil
	}
	u := s.Unit(a.Firer)
	tm, ok := geom.Template(projector.Body(u, u.Model(m.Model)), pos, TemplateLength, TemplateNarrow, TemplateWide)
	if !ok {
		return geom.Marker{}, fmt.Errorf("a template is aimed at a point away from its firer, not at the firer itself")
	}
	return tm, nil
}

// under are the target unit's models the marker covers, in unit order.
func under(s *projector.State, a *projector.Attack, mk geom.Marker) []string {
	t := s.Unit(a.Target)
	var out []string
	for _, m := range t.AliveModels() {
		if mk.Covers(projector.Body(t, m)) {
			out = append(out, m.ID)
		}
	}
	return out
}

// modelsUnderMarker are the models on the table the marker covers, friend
// or foe, unit by unit in the setup's order, each unit's in its order:
// the geometric fact a marker's hits are read from.
func modelsUnderMarker(s *projector.State, mk geom.Marker) []UnitHits {
	var out []UnitHits
	for _, u := range s.Units {
		var ids []string
		for _, m := range u.AliveModels() {
			if mk.Covers(projector.Body(u, m)) {
				ids = append(ids, m.ID)
			}
		}
		if len(ids) > 0 {
			out = append(out, UnitHits{Unit: u.ID, Models: ids})
		}
	}
	return out
}

func decidePlace(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a, err := attackerStep(s, actor, WaitPlace, "template or blast waits to be placed", "places the marker")
	if err != nil {
		return nil, err
	}
	m := currentMarker(a)
	if c.Model != "" && c.Model != m.Model {
		return nil, projector.Refuse(projector.CodeWrongStep, "the marker of %s's shot is placed first", m.Model)
	}
	if c.X == nil || c.Y == nil {
		return nil, projector.Refuse(projector.CodeBadCommand, "place needs x and y: %s", placeWhat(m))
	}
	pos := geom.Point{X: *c.X, Y: *c.Y}
	if math.IsNaN(pos.X) || math.IsNaN(pos.Y) {
		return nil, projector.Refuse(projector.CodeBadCommand, "x and y must be numbers")
	}
	if why := placementProblem(s, a, m, pos); why != "" {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s", why)
	}
	return []events.Payload{&MarkerPlaced{Model: m.Model, Weapon: m.Weapon, X: pos.X, Y: pos.Y}}, nil
}

// placeWhat says what a placement of m names.
func placeWhat(m *Marker) string {
	if m.Kind == markerBlast {
		return "the centre of the blast marker, over a target model"
	}
	return "the point the template is aimed at from its firer's base"
}

// placementProblem says why marker m may not be placed at pos, or "".
func placementProblem(s *projector.State, a *projector.Attack, m *Marker, pos geom.Point) string {
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	firer := u.Model(m.Model)
	fb := projector.Body(u, firer)
	if m.Kind == markerBlast {
		w := u.Weapon(m.Weapon)
		world := s.World(WoodsVisibility)
		for _, tm := range t.AliveModels() {
			tb := projector.Body(t, tm)
			if geom.Dist(pos, tb.Pos) > max(tb.Radius, BaseContact)+eps {
				continue
			}
			switch {
			case geom.BaseDistance(fb, tb) > w.Range+eps:
				return fmt.Sprintf("the blast is centred over %s, %.1f\" from %s: beyond the %s's %g\"", tm.ID, geom.BaseDistance(fb, tb), firer.ID, w.DisplayName(), w.Range)
			case !world.CanSee(fb, tb, u.Player, t.ID):
				return fmt.Sprintf("the blast is centred over %s, which %s cannot see", tm.ID, firer.ID)
			}
			return ""
		}
		return fmt.Sprintf("a blast marker is centred over the base of a model of %s; (%.1f, %.1f) is over none", t.DisplayName(), pos.X, pos.Y)
	}
	mk, err := markerShape(s, a, m, pos)
	if err != nil {
		return err.Error()
	}
	if len(under(s, a, mk)) == 0 {
		return fmt.Sprintf("a template aimed at (%.1f, %.1f) from %s covers no model of %s", pos.X, pos.Y, firer.ID, t.DisplayName())
	}
	for _, o := range s.Units {
		if o.Player != u.Player {
			continue
		}
		for _, f := range o.AliveModels() {
			if (o != u || f != firer) && mk.Covers(projector.Body(o, f)) {
				return fmt.Sprintf("a template aimed at (%.1f, %.1f) from %s would touch %s, a friendly model", pos.X, pos.Y, firer.ID, f.ID)
			}
		}
	}
	return ""
}

// awaitedMarker is the marker the attack waits to be placed, when it is
// model's weapon: an error for the fold otherwise.
func awaitedMarker(s *projector.State, model, weapon string) (*projector.Attack, *Marker, error) {
	a := s.Attack
	if a == nil || a.Stage != stageMarker {
		return nil, nil, fmt.Errorf("no marker waits to be placed")
	}
	m := currentMarker(a)
	if m.Model != model || m.Weapon != weapon || m.Placed {
		return nil, nil, fmt.Errorf("the marker waiting is %s's %s, not %s's %s", m.Model, m.Weapon, model, weapon)
	}
	return a, m, nil
}

func evolvePlaced(s *projector.State, p *MarkerPlaced) error {
	a, m, err := awaitedMarker(s, p.Model, p.Weapon)
	if err != nil {
		return err
	}
	m.Placed, m.X, m.Y = true, p.X, p.Y
	if m.Kind == markerBlast {
		addStep(a, a.Next, projector.DiceStep{Purpose: purposeScatter, Label: fmt.Sprintf("%s's %s blast", m.Model, weaponName(s.Unit(a.Firer).Weapon(m.Weapon))),
			Dice: ScatterDice, Weapon: m.Weapon}, Step{})
		a.HitOdds = a.HitOdds.Plus(blastOdds(s, a, m))
		return nil
	}
	mk, err := markerShape(s, a, m, geom.Point{X: p.X, Y: p.Y})
	if err != nil {
		return err
	}
	hit := under(s, a, mk)
	a.HitOdds = a.HitOdds.Plus(rules.Fixed(float64(len(hit)))) // a template's hits are not random
	markerLands(s, a, m, hit)
	stages.Advance(s, a)
	return nil
}

func evolveDeclinedMarker(s *projector.State, p *MarkerDeclined) error {
	a, m, err := awaitedMarker(s, p.Model, p.Weapon)
	if err != nil {
		return err
	}
	m.Declined = true
	markerLands(s, a, m, nil)
	stages.Advance(s, a)
	return nil
}

// resolveScatter reads a blast's scatter roll (see ScatterDice): it stays
// on a hit, else moves 2D6" less the firer's BS along the arrow.
func resolveScatter(s *projector.State, a *projector.Attack, d *projector.DiceStep) {
	m := currentMarker(a)
	m.Seq = d.Seq
	var to geom.Point
	m.Hit, m.Bearing, m.Drift, to = scatterLanding(d.Values, firerBS(a, m.Model), geom.Point{X: m.X, Y: m.Y})
	m.FinalX, m.FinalY = to.X, to.Y
	mk, _ := markerShape(s, a, m, to) // a blast: never an error
	all := modelsUnderMarker(s, mk)
	var hit []string
	for _, h := range all {
		switch {
		case h.Unit == a.Target:
			hit = h.Models
		case round3(s): // a blast hits every model under it, friend or foe (strays.go)
			m.Others = append(m.Others, h)
		}
	}
	markerLands(s, a, m, hit)
}

// scatterLanding reads a scatter roll v (ScatterDice D6) for a blast
// placed at from by a firer of BS bs: a hit on the scatter die keeps it
// there; otherwise the first two dice give the arrow's bearing (degrees
// clockwise from +y) and the last two, less bs, the distance it moves.
func scatterLanding(v []int, bs int, from geom.Point) (hit bool, bearing int, drift float64, to geom.Point) {
	if v[0] <= ScatterHitFaces {
		return true, 0, 0, from
	}
	bearing = ((v[0]-ScatterHitFaces-1)*6 + v[1] - 1) * 360 / ScatterBearings
	drift = float64(max(0, v[2]+v[3]-bs))
	return false, bearing, drift, from.Add(geom.Bearing(float64(bearing)).Scale(drift))
}

// blastOdds is the moments of the hits on the target of a blast placed at
// (m.X, m.Y), over every outcome of its scatter roll, each of the 6⁴
// equally likely: the expected hits given the placement.
func blastOdds(s *projector.State, a *projector.Attack, m *Marker) rules.Moments {
	bs := firerBS(a, m.Model)
	from := geom.Point{X: m.X, Y: m.Y}
	p := make([]float64, len(s.Unit(a.Target).AliveModels())+1)
	v := make([]int, ScatterDice)
	const outcomes = 6 * 6 * 6 * 6
	for k := range outcomes {
		for i, r := 0, k; i < ScatterDice; i, r = i+1, r/6 {
			v[i] = r%6 + 1
		}
		_, _, _, to := scatterLanding(v, bs, from)
		p[len(under(s, a, geom.Blast(to, 2*m.Radius)))] += 1.0 / outcomes
	}
	return rules.Distribution(p)
}

// firerBS is the BS of the model that fired a marker.
func firerBS(a *projector.Attack, model string) int {
	for _, sh := range a.Shooters {
		if sh.Model == model {
			return sh.BS
		}
	}
	return 0
}

// markerLands resolves marker m: each target model under it takes a hit.
// Once the last marker has landed the attack goes on to its hit rolls,
// its expected wounds now counting the markers' hits.
func markerLands(s *projector.State, a *projector.Attack, m *Marker, hit []string) {
	m.Done, m.Under = true, hit
	if len(hit) > 0 {
		w := s.Unit(a.Firer).Weapon(m.Weapon)
		edAttack(a).AutoHits = append(edAttack(a).AutoHits, AutoHit{Weapon: m.Weapon, S: w.S, AP: w.AP, Hits: len(hit)})
		a.Hits += len(hit)
	}
	if currentMarker(a) == nil {
		a.Stage = stageHit
		a.Expected = expected(s, a)
		// The damage expected at the declaration counted shots, not the
		// models under the markers: count those now, as the wounds do.
		_, a.ExpectedDamage = projector.CappedExpectation(s, a, max(a.Shots, a.Hits), a.Expected, 1)
	}
}

// placePending is what the attack waits for at a marker: its placement.
func placePending(s *projector.State, a *projector.Attack) projector.Pending {
	m := currentMarker(a)
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	w := u.Weapon(m.Weapon)
	what := fmt.Sprintf("centres %s's %s blast (a %g\" marker) over a model of %s that %s sees within %g\"", m.Model, w.DisplayName(), 2*m.Radius, t.DisplayName(), m.Model, w.Range)
	if m.Kind == markerTemplate {
		what = fmt.Sprintf("lays %s's %s template from its base toward a point, covering a model of %s and no friendly model", m.Model, w.DisplayName(), t.DisplayName())
	}
	return projector.Pending{Kind: WaitPlace, Player: a.Attacker,
		Text: fmt.Sprintf("%s %s (place, x and y), or declines the shot (decline)", s.PlayerName(a.Attacker), what)}
}
