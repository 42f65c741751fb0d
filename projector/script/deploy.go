package script

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// A deployment step sets a unit on the table as a formation at a point,
// instead of a position written for every model: what a unit read from a
// list builder's roster needs (projector/roster has no positions), and a
// shorter way to write any unit's.
//
//	deploy:
//	  - {unit: tac, at: [12, 8], formation: line, spacing: 1.5}
//
// at is the centre of the formation, in inches from the bottom-left
// corner; the models stand in unit order, spacing inches between
// neighbouring centres (default: the widest base plus DefaultGap).

// Formations.
const (
	FormationLine   = "line"   // side by side along x (the default)
	FormationColumn = "column" // one behind the other along y
	FormationGrid   = "grid"   // rows of ⌈√n⌉ models along x, rows along y
)

// Formations lists the formations a deployment takes.
var Formations = []string{FormationLine, FormationColumn, FormationGrid}

// DefaultGap is the space between two bases of a formation whose spacing
// is not given (default: half an inch, inside every edition's coherency).
const DefaultGap = 0.5

// Edge deployment (EdgeDeployments), the default of units no deployment
// places: lines along the player's table edge.
const (
	EdgeDepth    = 6.0  // the first row's distance from the edge
	EdgeMargin   = 2.0  // from the side edges, and between two units of a row
	EdgeRowStep  = 3.0  // between two rows
	EdgeMaxDepth = 12.0 // rows stop here: a deployment zone's depth
)

// Deployment places one unit (docs/script.md#deploy).
type Deployment struct {
	Unit      string     `json:"unit"`
	At        [2]float64 `json:"at"`
	Formation string     `json:"formation,omitempty"`
	Spacing   float64    `json:"spacing,omitempty"`
}

// ErrDeploy marks every error about a deployment: an unknown unit or
// formation, bases that would overlap, a model off the table.
var ErrDeploy = errors.New("bad deployment")

// check is what a deployment must say by itself, before its unit is
// known (a unit may come from a roster read later).
func (d Deployment) check() error {
	switch {
	case d.Unit == "":
		return fmt.Errorf("%w: a deploy step needs a unit", ErrDeploy)
	case d.Formation != "" && !slices.Contains(Formations, d.Formation):
		return fmt.Errorf("%w: unit %s: formation %q: want %v", ErrDeploy, d.Unit, d.Formation, Formations)
	case d.Spacing < 0 || math.IsNaN(d.Spacing) || math.IsInf(d.Spacing, 0):
		return fmt.Errorf("%w: unit %s: spacing %g must be positive", ErrDeploy, d.Unit, d.Spacing)
	}
	return nil
}

// Placed is the setup's match.created with every deploy step applied:
// each unit a step names has its models where its last step puts them
// (Created, for a setup without deploy steps). The setup itself is not
// changed. A step naming no unit of the setup, an unknown formation,
// bases that would overlap or a model off the table is an error
// (ErrDeploy) naming the unit.
func (s Setup) Placed() (events.MatchCreated, error) {
	p := s.Created()
	if len(s.Deploy) == 0 {
		return p, nil
	}
	p.Units = slices.Clone(p.Units)
	projector.SetupDefaults(&p)
	last := map[string]Deployment{}
	var ids []string
	for _, u := range p.Units {
		ids = append(ids, u.ID)
	}
	for _, d := range s.Deploy {
		if err := d.check(); err != nil {
			return p, err
		}
		if !slices.Contains(ids, d.Unit) {
			msg := fmt.Sprintf("%v: deploy names unit %q, which the match does not have", ErrDeploy, d.Unit)
			if best := projector.Suggest(d.Unit, ids); best != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", best)
			}
			return p, errors.New(msg)
		}
		last[d.Unit] = d
	}
	for i := range p.Units {
		d, ok := last[p.Units[i].ID]
		if !ok {
			continue
		}
		u := p.Units[i]
		u.Models = slices.Clone(u.Models)
		if err := place(&u, d, p.Table); err != nil {
			return p, err
		}
		p.Units[i] = u
	}
	return p, nil
}

// place sets u's models in d's formation.
func place(u *events.UnitSpec, d Deployment, table events.Table) error {
	n := len(u.Models)
	if n == 0 {
		return nil
	}
	widest := widestBase(u)
	sp := d.Spacing
	if sp == 0 {
		sp = widest + DefaultGap
	}
	if n > 1 && sp+1e-9 < widest {
		return fmt.Errorf("%w: unit %s: spacing %g\" is less than its widest base (%.2f\"): the bases would overlap", ErrDeploy, u.ID, sp, widest)
	}
	cols, rows := n, 1
	switch d.Formation {
	case FormationColumn:
		cols, rows = 1, n
	case FormationGrid:
		cols = int(math.Ceil(math.Sqrt(float64(n))))
		rows = (n + cols - 1) / cols
	}
	for i := range u.Models {
		c, r := i%cols, i/cols
		x := d.At[0] + (float64(c)-float64(cols-1)/2)*sp
		y := d.At[1] + (float64(r)-float64(rows-1)/2)*sp
		x, y = math.Round(x*100)/100, math.Round(y*100)/100
		if x < 0 || y < 0 || x > table.W || y > table.H {
			return fmt.Errorf("%w: unit %s: model %s would stand at (%g, %g), off the %gx%g table", ErrDeploy, u.ID, u.Models[i].ID, x, y, table.W, table.H)
		}
		u.Models[i].X, u.Models[i].Y = x, y
	}
	return nil
}

// widestBase is the widest base of u's models, in inches.
func widestBase(u *events.UnitSpec) float64 {
	w := 0.0
	for _, m := range u.Models {
		w = max(w, m.BaseMM/25.4)
	}
	return w
}

// EdgeDeployments lays units out along a player's table edge, as a
// default for units no deployment places: side 1 (the first player) the
// bottom edge, side 2 the top; each unit a line, left to right,
// EdgeMargin apart, the first row EdgeDepth from the edge and a new row
// EdgeRowStep further in when one is full. It is an error (ErrDeploy) when
// the units do not fit within EdgeMaxDepth of the edge.
func EdgeDeployments(units []events.UnitSpec, side int, table events.Table) ([]Deployment, error) {
	if table.W == 0 && table.H == 0 {
		table = events.Table{W: 72, H: 48}
	}
	var out []Deployment
	x, depth := EdgeMargin, EdgeDepth
	for _, u := range units {
		sp := widestBase(&u) + DefaultGap
		width := float64(max(len(u.Models)-1, 0))*sp + widestBase(&u)
		if width > table.W-2*EdgeMargin {
			return nil, fmt.Errorf("%w: unit %s (%d models) is wider than the table as a line: deploy it in a grid", ErrDeploy, u.ID, len(u.Models))
		}
		if x+width > table.W-EdgeMargin {
			x, depth = EdgeMargin, depth+EdgeRowStep
		}
		if depth > EdgeMaxDepth {
			return nil, fmt.Errorf("%w: the units do not fit in lines within %g\" of the table edge: give unit %s (and those after it) a deploy step", ErrDeploy, EdgeMaxDepth, u.ID)
		}
		y := depth
		if side == 2 {
			y = table.H - depth
		}
		cx := math.Round((x+width/2)*100) / 100
		out = append(out, Deployment{Unit: u.ID, At: [2]float64{cx, y}, Formation: FormationLine})
		x += width + EdgeMargin
	}
	return out, nil
}
