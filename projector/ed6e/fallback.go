package ed6e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// Falling back (docs/rules/6e.md#falling-back): a unit that fails a Morale
// check or test and is not caught rolls FallBackDice D6 and every model
// moves that far straight toward its owner's table edge, each move a
// declaration refused unless it ends there; a unit whose roll reaches the
// edge falls off the table and is destroyed. Nothing else happens until
// the unit has fallen back.

const purposeFallBack = "fall back"

// Table edges (events.EdgeWest …).
const (
	edgeWest  = events.EdgeWest
	edgeEast  = events.EdgeEast
	edgeSouth = events.EdgeSouth
	edgeNorth = events.EdgeNorth
)

// tableEdges gives each player their own table edge
// (docs/rules/6e.md#falling-back). From rules round 3 (revision 2) it is
// the setup's (events.PlayerSpec.Edge), and a player whose setup names
// none takes ownEdges's default, which never gives both sides one edge;
// before, it was the edge closest to the middle of the player's models
// (nearestEdges), which could.
func tableEdges(s *projector.State, p *events.MatchCreated) []Edge {
	if !round3(s) {
		return nearestEdges(s)
	}
	return ownEdges(s, p.Players)
}

// ownEdges is each player's edge as the setup names it; the default
// (default: the 6th-edition rulebook deploys the two sides on opposite
// edges) puts the two sides on the opposite edges of the axis that
// parts the middles of their armies the most, each on its own side of
// it — the first player on the west (south) edge when the middles
// coincide — and a player who names none opposite the one who does.
func ownEdges(s *projector.State, players []events.PlayerSpec) []Edge {
	if len(players) != 2 {
		return nil
	}
	a, b := players[0], players[1]
	ea, eb := a.Edge, b.Edge
	switch {
	case ea != "" && eb != "":
	case ea != "":
		eb = oppositeEdge(ea)
	case eb != "":
		ea = oppositeEdge(eb)
	default:
		ca, cb := armyMiddle(s, a.ID), armyMiddle(s, b.ID)
		dx, dy := cb.X-ca.X, cb.Y-ca.Y
		switch {
		case math.Abs(dx) >= math.Abs(dy) && dx >= 0:
			ea, eb = edgeWest, edgeEast
		case math.Abs(dx) >= math.Abs(dy):
			ea, eb = edgeEast, edgeWest
		case dy > 0:
			ea, eb = edgeSouth, edgeNorth
		default:
			ea, eb = edgeNorth, edgeSouth
		}
	}
	return []Edge{{Player: a.ID, Edge: ea}, {Player: b.ID, Edge: eb}}
}

// oppositeEdge is the table edge across the table from e.
func oppositeEdge(e string) string {
	return map[string]string{edgeWest: edgeEast, edgeEast: edgeWest, edgeSouth: edgeNorth, edgeNorth: edgeSouth}[e]
}

// armyMiddle is the middle of player's models as they stand (the middle
// of the table for a player with none).
func armyMiddle(s *projector.State, player string) geom.Point {
	var x, y float64
	n := 0
	for _, u := range s.Units {
		if u.Player != player {
			continue
		}
		for _, m := range u.Models {
			x, y, n = x+m.X, y+m.Y, n+1
		}
	}
	if n == 0 {
		return geom.Point{X: s.Table.W / 2, Y: s.Table.H / 2}
	}
	return geom.Point{X: x / float64(n), Y: y / float64(n)}
}

// nearestEdges gives each player the table edge closest to the middle of
// their models, as they stand when the match is created (revisions 0 and
// 1: two players could get the same edge).
func nearestEdges(s *projector.State) []Edge {
	var out []Edge
	for _, pl := range s.Players {
		var x, y float64
		n := 0
		for _, u := range s.Units {
			if u.Player != pl.ID {
				continue
			}
			for _, m := range u.Models {
				x, y, n = x+m.X, y+m.Y, n+1
			}
		}
		if n == 0 {
			continue
		}
		c := geom.Point{X: x / float64(n), Y: y / float64(n)}
		best, bd := edgeWest, c.X
		for _, e := range []struct {
			name string
			d    float64
		}{{edgeEast, s.Table.W - c.X}, {edgeSouth, c.Y}, {edgeNorth, s.Table.H - c.Y}} {
			if e.d < bd {
				best, bd = e.name, e.d
			}
		}
		out = append(out, Edge{Player: pl.ID, Edge: best})
	}
	return out
}

// edgeOf is player's own table edge.
func edgeOf(s *projector.State, player string) string {
	for _, e := range ed(s).Edges {
		if e.Player == player {
			return e.Edge
		}
	}
	return edgeWest
}

// toEdge is how far a base lies from edge, and the unit step toward it.
func toEdge(s *projector.State, b geom.Body, edge string) (float64, geom.Point) {
	switch edge {
	case edgeEast:
		return s.Table.W - b.Pos.X - b.Radius, geom.Point{X: 1}
	case edgeSouth:
		return b.Pos.Y - b.Radius, geom.Point{Y: -1}
	case edgeNorth:
		return s.Table.H - b.Pos.Y - b.Radius, geom.Point{Y: 1}
	}
	return b.Pos.X - b.Radius, geom.Point{X: -1}
}

// fallBack makes u, which lost a combat and fled, fall back; before
// revision 1 it only left the combat (no fall-back move).
func fallBack(s *projector.State, u *projector.Unit, why string) {
	if !round2(s) {
		unlock(s, u)
		return
	}
	startFallBack(s, u, why)
}

// startFallBack makes u fall back: it leaves any combat, and its roll is
// due.
func startFallBack(s *projector.State, u *projector.Unit, why string) {
	unlock(s, u)
	ed(s).FallBack = &FallBack{Unit: u.ID, Why: why, Edge: edgeOf(s, u.Player)}
}

// falling is the fall back still in progress, or nil.
func falling(s *projector.State) *FallBack {
	if fb := ed(s).FallBack; fb != nil && !fb.Done {
		return fb
	}
	return nil
}

// evolveFallBackRoll sets the distance; a roll that reaches the table
// edge takes the unit off the table.
func evolveFallBackRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	fb := ed(s).FallBack
	if p.Purpose != purposeFallBack || len(p.Values) != FallBackDice {
		return fmt.Errorf("a fall-back roll is %dD6", FallBackDice)
	}
	fb.Seq, fb.Dice = seq, slices.Clone(p.Values)
	fb.Distance = float64(sum(p.Values))
	if len(edgeNeeds(s, fb)) == 0 {
		fellTo(s, fb)
	}
	return nil
}

// edgeNeeds is the fact a measured fall back needs once rolled: how far
// the unit is from its table edge (none when measured, or from positions).
func edgeNeeds(s *projector.State, fb *FallBack) []projector.FactNeed {
	return kit.ForMeasure(s, fb.Measure, world(s)).Lacks([]projector.FactNeed{projector.Need(projector.FactEdge, "", fb.Unit)})
}

// fellTo applies a fall back's distance: a roll that reaches the table
// edge — from the unit's model closest to it — takes the unit off the
// table; short of it, the models move (in a measured match, at the
// table: the fall back is over).
func fellTo(s *projector.State, fb *FallBack) {
	u := s.Unit(fb.Unit)
	edge := kit.ForMeasure(s, fb.Measure, world(s)).Inches(projector.FactEdge, "", u.ID, 0, func() float64 {
		d := math.Inf(1)
		for _, m := range u.AliveModels() {
			left, _ := toEdge(s, projector.Body(u, m), fb.Edge)
			d = min(d, left)
		}
		return d
	})
	switch {
	case fb.Distance >= edge-eps:
		fb.Off, fb.Done = true, true
		destroy(s, u) // it falls back off the table
	case s.Measured():
		fb.Done = true
	}
}

// decideFallBackMove checks a falling-back model's move: its owner's, each
// model once, straight to the point the distance rolled toward its table
// edge.
func decideFallBackMove(s *projector.State, actor events.Actor, c projector.Command, fb *FallBack) ([]events.Payload, error) {
	u := s.Unit(fb.Unit)
	if fb.Seq == 0 {
		return nil, projector.Refuse(projector.CodeWrongStep, "%s back: its roll comes first; the match waits for: %s", kit.Does(u.DisplayName(), "falls", "fall"), s.Pending.Text)
	}
	if c.Unit != u.ID {
		return nil, projector.Refuse(projector.CodeWrongStep, "%s falling back: its models move first; the match waits for: %s", kit.Does(u.DisplayName(), "is", "are"), s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != u.Player {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "unit %s belongs to %s", u.DisplayName(), s.PlayerName(u.Player))
	}
	m := u.Model(c.Model)
	if m == nil || !m.Alive() {
		return nil, projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), c.Model)
	}
	if slices.Contains(fb.Moved, m.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s has made its fall-back move", m.ID)
	}
	if c.X == nil || c.Y == nil {
		return nil, projector.Refuse(projector.CodeBadCommand, "move needs x and y")
	}
	want := fallBackPoint(s, u, m, fb)
	if d := math.Hypot(*c.X-want.X, *c.Y-want.Y); math.IsNaN(d) || d > FallBackTolerance+eps {
		return nil, projector.Refuse(projector.CodeNotEligible, "a fall-back move goes %g\" straight toward %s's table edge (the %s edge): %s must end at (%.2f, %.2f), not (%.2f, %.2f)",
			fb.Distance, s.PlayerName(u.Player), fb.Edge, m.ID, want.X, want.Y, *c.X, *c.Y)
	}
	return []events.Payload{&events.ModelMoved{Unit: u.ID, Model: m.ID, X: *c.X, Y: *c.Y}}, nil
}

// fallBackPoint is where model m's fall-back move ends.
func fallBackPoint(s *projector.State, u *projector.Unit, m *projector.Model, fb *FallBack) geom.Point {
	_, step := toEdge(s, projector.Body(u, m), fb.Edge)
	return geom.Point{X: m.X, Y: m.Y}.Add(step.Scale(fb.Distance))
}

// fellBack notes a model's fall-back move; after the last one the fall
// back is over.
func fellBack(s *projector.State, fb *FallBack, model string) {
	fb.Moved = append(fb.Moved, model)
	for _, m := range s.Unit(fb.Unit).AliveModels() {
		if !slices.Contains(fb.Moved, m.ID) {
			return
		}
	}
	fb.Done = true
}

// fallBackPending is what a fall back waits for: its roll, or its moves.
func fallBackPending(s *projector.State, fb *FallBack) projector.Pending {
	u := s.Unit(fb.Unit)
	if fb.Seq == 0 {
		return projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: FallBackDice, Purpose: purposeFallBack,
			Text: fmt.Sprintf("%s rolls %dD6 for %s fall-back move (%s) toward the %s table edge", s.PlayerName(u.Player), FallBackDice, kit.Possessive(u.DisplayName()), fb.Why, fb.Edge)}
	}
	if needs := edgeNeeds(s, fb); len(needs) > 0 {
		return s.PendingMeasure(u.Player, measureEdge, needs,
			fmt.Sprintf("how far %s is from its own table edge (its model closest to it), falling back %g\"", u.DisplayName(), fb.Distance))
	}
	var left []string
	for _, m := range u.AliveModels() {
		if !slices.Contains(fb.Moved, m.ID) {
			p := fallBackPoint(s, u, m, fb)
			left = append(left, fmt.Sprintf("%s to (%.2f, %.2f)", m.ID, p.X, p.Y))
		}
	}
	return projector.Pending{Kind: WaitFallBack, Player: u.Player, Count: len(left),
		Text: fmt.Sprintf("%s back %g\" toward the %s table edge: %s moves %s", kit.Does(u.DisplayName(), "falls", "fall"), fb.Distance, fb.Edge, s.PlayerName(u.Player), kit.List(left, "nothing"))}
}
