package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

var _ projector.Sketcher = Rules{}

// Sketch draws the 6e things viewers see on the board (projector.Sketcher):
// the template and blast markers of the attack in progress, or of the
// last one, where each lies — a blast also where it was aimed and the
// arrow it scattered along — and the moves of the charge being made, or
// of the last one, with what its roll decided.
func (Rules) Sketch(s *projector.State) []projector.Sketch {
	var out []projector.Sketch
	a, live := s.Attack, true
	if a == nil {
		a, live = s.LastAttack, false
	}
	if a != nil {
		out = append(out, markerSketches(s, a, live)...)
	}
	if s.Phase == projector.PhaseAssault {
		out = append(out, chargeSketches(s)...)
	}
	return out
}

// markerSketches are the markers of attack a: each placed one where it
// lies, and a blast's aim and scatter once rolled.
func markerSketches(s *projector.State, a *projector.Attack, live bool) []projector.Sketch {
	var out []projector.Sketch
	for i := range edAttack(a).Markers {
		m := &edAttack(a).Markers[i]
		if !m.Placed || m.Declined {
			continue
		}
		under := kit.Count(len(m.Under), "model", "models") + " under it"
		at := geom.Point{X: m.X, Y: m.Y}
		if m.Kind == markerBlast {
			aim := capsule("aim", geom.Blast(at, 2*m.Radius))
			aim.Label, aim.Player, aim.Live = fmt.Sprintf("%s's blast, aimed here", m.Model), a.Attacker, live
			out = append(out, aim)
			if m.Seq == 0 {
				continue // not scattered yet
			}
			land := geom.Point{X: m.FinalX, Y: m.FinalY}
			label := "a hit: the blast stays, " + under
			if !m.Hit {
				label = fmt.Sprintf("scattered %s\" at %d°: %s", kit.Inches(m.Drift), m.Bearing, under)
				if m.Drift > 0 {
					out = append(out, projector.Sketch{Kind: "scatter", X1: at.X, Y1: at.Y, X2: land.X, Y2: land.Y,
						Label: label, Player: a.Attacker, Seq: m.Seq, Live: live})
				}
			}
			mk := capsule("marker", geom.Blast(land, 2*m.Radius))
			mk.Label, mk.Player, mk.Seq, mk.Live = fmt.Sprintf("%s's blast: %s", m.Model, label), a.Attacker, m.Seq, live
			out = append(out, mk)
			continue
		}
		shape, err := markerShape(s, a, m, at)
		if err != nil {
			continue
		}
		mk := capsule("marker", shape)
		mk.Label, mk.Player, mk.Live = fmt.Sprintf("%s's template: %s", m.Model, under), a.Attacker, live
		out = append(out, mk)
	}
	return out
}

// chargeSketches are the moves the charging unit's models made this phase
// (from where the phase found them), labelled with what its roll decided.
func chargeSketches(s *projector.State) []projector.Sketch {
	c := ed(s).Charge
	if c == nil || c.RollSeq == 0 {
		return nil
	}
	u, t := s.Unit(c.Unit), s.Unit(c.Target)
	if u == nil || t == nil {
		return nil
	}
	label := fmt.Sprintf("%s charges %s: %g\" rolled, %.1f\" needed", u.DisplayName(), s.UnitName(c.Target), c.Distance, c.Needed) // as the roll's outcome words them
	if c.Success {
		label += " — it reaches"
	} else if c.Stage == "failed" {
		label += " — it fails"
	}
	live := c.Stage != "done" && c.Stage != "failed"
	// The charge itself: from where the unit stood to the unit it charged.
	from, to := centre(u, true), centre(t, false)
	out := []projector.Sketch{{Kind: "charge", X1: from.X, Y1: from.Y, X2: to.X, Y2: to.Y, Label: label, Player: u.Player, Seq: c.RollSeq, Live: live}}
	for _, m := range u.Models {
		if m.Removed || (m.X == m.StartX && m.Y == m.StartY) {
			continue
		}
		out = append(out, projector.Sketch{Kind: "move", X1: m.StartX, Y1: m.StartY, X2: m.X, Y2: m.Y,
			Label: label, Player: u.Player, Seq: c.RollSeq, Live: live})
	}
	return out
}

// centre is the middle of u's models on the table: where they stood when
// the phase began (start), or where they stand.
func centre(u *projector.Unit, start bool) geom.Point {
	var c geom.Point
	n := 0
	for _, m := range u.AliveModels() {
		if start {
			c.X, c.Y = c.X+m.StartX, c.Y+m.StartY
		} else {
			c.X, c.Y = c.X+m.X, c.Y+m.Y
		}
		n++
	}
	if n == 0 {
		return c
	}
	return geom.Point{X: c.X / float64(n), Y: c.Y / float64(n)}
}

// capsule is a marker's shape as a sketch of kind.
func capsule(kind string, mk geom.Marker) projector.Sketch {
	return projector.Sketch{Kind: kind, X1: mk.A.X, Y1: mk.A.Y, X2: mk.B.X, Y2: mk.B.Y, R1: mk.RA, R2: mk.RB}
}
