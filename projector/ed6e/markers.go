package ed6e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
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

// under are the target unit's models the marker covers, in unit order
// (asked of tbl: measured, the under facts; mk is then not read).
func under(tbl *kit.Table, a *projector.Attack, mk geom.Marker) []string {
	t := tbl.State().Unit(a.Target)
	var out []string
	for _, m := range t.AliveModels() {
		if tbl.YesNo(projector.FactUnder, m.ID, "", false, func() bool { return mk.Covers(projector.Body(t, m)) }) {
			out = append(out, m.ID)
		}
	}
	return out
}

// othersUnder are the models of units other than a's target that the
// marker covers, friend or foe, unit by unit in the setup's order, each
// unit's in its order (asked of tbl: measured, the strays fact, one list
// of model ids for the whole marker; mk is then not read).
func othersUnder(tbl *kit.Table, a *projector.Attack, mk geom.Marker) []UnitHits {
	s := tbl.State()
	ids := projector.FactUnits(tbl.Choice(projector.FactStrays, a.Target, "", projector.ValueNone, func() string {
		var ids []string
		for _, u := range s.Units {
			if u.ID == a.Target {
				continue
			}
			for _, m := range u.AliveModels() {
				if mk.Covers(projector.Body(u, m)) {
					ids = append(ids, m.ID)
				}
			}
		}
		return projector.ModelList(ids)
	}))
	var out []UnitHits
	for _, u := range s.Units {
		var hit []string
		for _, m := range u.AliveModels() {
			if u.ID != a.Target && slices.Contains(ids, m.ID) {
				hit = append(hit, m.ID)
			}
		}
		if len(hit) > 0 {
			out = append(out, UnitHits{Unit: u.ID, Models: hit})
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
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	var pos geom.Point
	switch {
	case tbl.Measured() && (c.X != nil || c.Y != nil):
		return nil, projector.Refuse(projector.CodeMeasuredMatch, "a marker placed with the tape gives the facts of where it lies, not x and y: %s", placeWhat(m))
	case tbl.Measured():
	case c.X == nil || c.Y == nil:
		return nil, projector.Refuse(projector.CodeBadCommand, "place needs x and y: %s", placeWhat(m))
	default:
		pos = geom.Point{X: *c.X, Y: *c.Y}
		if math.IsNaN(pos.X) || math.IsNaN(pos.Y) {
			return nil, projector.Refuse(projector.CodeBadCommand, "x and y must be numbers")
		}
	}
	var bad error
	if why := placementProblem(tbl, a, m, pos); why != "" {
		bad = projector.Refuse(projector.CodeNotEligible, "%s", why)
	}
	if err := tbl.Err("the placement of "+m.Model+"'s marker", bad); err != nil {
		return nil, err
	}
	return tbl.Record(CmdPlace, &MarkerPlaced{Model: m.Model, Weapon: m.Weapon, X: pos.X, Y: pos.Y}), nil
}

// placeWhat says what a placement of m names.
func placeWhat(m *Marker) string {
	if m.Kind == markerBlast {
		return "the centre of the blast marker, over a target model"
	}
	return "the point the template is aimed at from its firer's base"
}

// placementProblem says why marker m may not be placed at pos (from
// positions), or as tbl's facts say it lies (measured), or "".
func placementProblem(tbl *kit.Table, a *projector.Attack, m *Marker, pos geom.Point) string {
	s := tbl.State()
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	firer := u.Model(m.Model)
	fb := projector.Body(u, firer)
	at := fmt.Sprintf("(%.1f, %.1f)", pos.X, pos.Y)
	if tbl.Measured() {
		at = "where it is laid"
	}
	if m.Kind == markerBlast {
		w := u.Weapon(m.Weapon)
		id := tbl.Choice(projector.FactCentre, "", m.Model, "", func() string {
			for _, tm := range t.AliveModels() {
				if tb := projector.Body(t, tm); geom.Dist(pos, tb.Pos) <= max(tb.Radius, BaseContact)+eps {
					return tm.ID
				}
			}
			return projector.ValueNone
		})
		tm := t.Model(id)
		switch {
		case id == projector.ValueNone:
			return fmt.Sprintf("a blast marker is centred over the base of a model of %s; %s is over none", t.DisplayName(), at)
		case tm == nil || !tm.Alive():
			tbl.Inconsistent("the blast is centred over %s, which is no model of %s on the table", id, t.DisplayName())
			return ""
		}
		d := tbl.Distance(u, firer, t, tm)
		switch {
		case d > w.Range+eps:
			return fmt.Sprintf("the blast is centred over %s, %.1f\" from %s: beyond the %s's %g\"", tm.ID, d, firer.ID, w.DisplayName(), w.Range)
		case !tbl.YesNo(projector.FactVisible, tm.ID, firer.ID, true, func() bool {
			return tbl.World().CanSee(fb, projector.Body(t, tm), u.Player, t.ID)
		}):
			return fmt.Sprintf("the blast is centred over %s, which %s cannot see", tm.ID, firer.ID)
		}
		return ""
	}
	var mk geom.Marker
	if !tbl.Measured() {
		var err error
		if mk, err = markerShape(s, a, m, pos); err != nil {
			return err.Error()
		}
	}
	if len(under(tbl, a, mk)) == 0 {
		return fmt.Sprintf("a template aimed at %s from %s covers no model of %s", at, firer.ID, t.DisplayName())
	}
	friend := ""
	if tbl.YesNo(projector.FactFriendly, "", m.Model, false, func() bool {
		for _, o := range s.Units {
			if o.Player != u.Player {
				continue
			}
			for _, f := range o.AliveModels() {
				if (o != u || f != firer) && mk.Covers(projector.Body(o, f)) {
					friend = f.ID
					return true
				}
			}
		}
		return false
	}) {
		if friend == "" {
			friend = "a model of " + s.PlayerName(u.Player)
		}
		return fmt.Sprintf("a template aimed at %s from %s would touch %s, a friendly model", at, firer.ID, friend)
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
	tbl, mm := kit.ForDeclared(s, CmdPlace, world(s))
	if mm != nil {
		m.Measure = mm.Seq
		a.Measures = append(a.Measures, mm.Seq)
	}
	if m.Kind == markerBlast {
		addStep(a, a.Next, projector.DiceStep{Purpose: purposeScatter, Label: fmt.Sprintf("%s's %s blast", m.Model, weaponName(s.Unit(a.Firer).Weapon(m.Weapon))),
			Dice: ScatterDice, Weapon: m.Weapon}, Step{})
		if !tbl.Measured() {
			a.HitOdds = a.HitOdds.Plus(blastOdds(s, a, m))
		} // measured: no positions to scatter it over; its hits count as they land (blastLands)
		return nil
	}
	var mk geom.Marker
	if !tbl.Measured() {
		if mk, err = markerShape(s, a, m, geom.Point{X: p.X, Y: p.Y}); err != nil {
			return err
		}
	}
	hit := under(tbl, a, mk)
	if err := tbl.Err("the placement of "+m.Model+"'s marker", nil); err != nil {
		return fmt.Errorf("placement no longer valid: %w", err)
	}
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
	if len(underNeeds(s, a, m)) > 0 {
		edAttack(a).Measuring = measureUnder // at the table: the models under it where it landed
		return
	}
	blastLands(s, a, m, kit.ForMeasure(s, m.Measure, world(s)))
}

// blastLands resolves blast m where it landed, the models under it asked
// of tbl (positions, or the measurement taken there): the target's take
// the attack's hits; from revision 2 every other model under it, friend
// or foe, takes a hit of its own (Marker.Others, strays.go). Measured,
// the blast's hits enter the attack's odds as they landed, as a
// template's do: with no positions its scatter cannot be enumerated
// (blastOdds).
func blastLands(s *projector.State, a *projector.Attack, m *Marker, tbl *kit.Table) {
	var mk geom.Marker
	if !tbl.Measured() {
		mk, _ = markerShape(s, a, m, geom.Point{X: m.FinalX, Y: m.FinalY}) // a blast: never an error
	}
	hit := under(tbl, a, mk)
	if round3(s) {
		m.Others = othersUnder(tbl, a, mk)
	}
	if tbl.Measured() {
		a.HitOdds = a.HitOdds.Plus(rules.Fixed(float64(len(hit))))
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
	tbl := kit.NewPositions(s, world(s))
	const outcomes = 6 * 6 * 6 * 6
	for k := range outcomes {
		for i, r := 0, k; i < ScatterDice; i, r = i+1, r/6 {
			v[i] = r%6 + 1
		}
		_, _, _, to := scatterLanding(v, bs, from)
		p[len(under(tbl, a, geom.Blast(to, 2*m.Radius)))] += 1.0 / outcomes
	}
	return rules.Distribution(p)
}

// underNeeds are the facts a measured blast needs where it landed: is
// each model of the target under it, and from revision 2 which models of
// other units it covers (none from positions).
func underNeeds(s *projector.State, a *projector.Attack, m *Marker) []projector.FactNeed {
	var needs []projector.FactNeed
	for _, tm := range s.Unit(a.Target).AliveModels() {
		needs = append(needs, projector.Need(projector.FactUnder, tm.ID, ""))
	}
	if round3(s) {
		needs = append(needs, projector.Need(projector.FactStrays, a.Target, ""))
	}
	return kit.ForMeasure(s, m.Measure, world(s)).Lacks(needs)
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
