package ed6e

import (
	"fmt"
	"math"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
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
			Dice: ScatterDice}, Step{})
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
	v := d.Values
	m.Seq = d.Seq
	m.FinalX, m.FinalY = m.X, m.Y
	if v[0] <= ScatterHitFaces {
		m.Hit = true
	} else {
		m.Bearing = ((v[0]-ScatterHitFaces-1)*6 + v[1] - 1) * 360 / ScatterBearings
		m.Drift = float64(max(0, v[2]+v[3]-firerBS(a, m.Model)))
		to := geom.Point{X: m.X, Y: m.Y}.Add(geom.Bearing(float64(m.Bearing)).Scale(m.Drift))
		m.FinalX, m.FinalY = to.X, to.Y
	}
	if len(underNeeds(s, a, m)) > 0 {
		edAttack(a).Measuring = measureUnder // at the table: the models under it where it landed
		return
	}
	mk, _ := markerShape(s, a, m, geom.Point{X: m.FinalX, Y: m.FinalY}) // a blast: never an error
	markerLands(s, a, m, under(kit.ForMeasure(s, m.Measure, world(s)), a, mk))
}

// underNeeds are the facts a measured blast needs where it landed: is
// each model of the target under it (none from positions).
func underNeeds(s *projector.State, a *projector.Attack, m *Marker) []projector.FactNeed {
	var needs []projector.FactNeed
	for _, tm := range s.Unit(a.Target).AliveModels() {
		needs = append(needs, projector.Need(projector.FactUnder, tm.ID, ""))
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
