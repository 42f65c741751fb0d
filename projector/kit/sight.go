package kit

import (
	"fmt"
	"math"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
)

// View is what one firing model sees of the target unit's models, index
// for index with the bodies it looked at.
type View struct {
	Sight []geom.SightResult
	Dist  []float64 // base to base
	// Why says why the first target model it cannot see is unseen
	// ("tac-1 cannot see boyz-3: blocked by building B1"); "" when it sees
	// every one.
	Why string
}

// Look is the view from the firing model fb of the target bodies tb, for
// the side firing at unit target (geom.World.Sight for each).
func Look(w geom.World, fb geom.Body, tb []geom.Body, side, target string) View {
	var v View
	v.Look(w, fb, tb, side, target)
	return v
}

// Look makes v the view from fb (as the function Look does), reusing v's
// slices: a declaration looks from every firing model in turn, and folds
// declare by the thousand.
func (v *View) Look(w geom.World, fb geom.Body, tb []geom.Body, side, target string) {
	if cap(v.Sight) < len(tb) {
		v.Sight, v.Dist = make([]geom.SightResult, 0, len(tb)), make([]float64, 0, len(tb))
	}
	v.Sight, v.Dist, v.Why = v.Sight[:0], v.Dist[:0], ""
	for i := range tb {
		r := w.Sight(fb, tb[i], side, target)
		v.Sight = append(v.Sight, r)
		v.Dist = append(v.Dist, geom.BaseDistance(fb, tb[i]))
		if !r.Visible && v.Why == "" {
			v.Why = fmt.Sprintf("%s cannot see %s: %s", fb.ID, tb[i].ID, r.Reason)
		}
	}
}

// Seen reports whether the model sees any target model.
func (v View) Seen() bool { return v.First() >= 0 }

// First is the index of the first target model the model sees, -1 for
// none.
func (v View) First() int {
	for i, r := range v.Sight {
		if r.Visible {
			return i
		}
	}
	return -1
}

// Closest is the distance to the closest target model the model sees
// (+Inf when it sees none).
func (v View) Closest() float64 {
	d := math.Inf(1)
	for i, r := range v.Sight {
		if r.Visible {
			d = min(d, v.Dist[i])
		}
	}
	return d
}

// Reasons keeps, while a declaration's firing models are planned one by
// one, the first reason of each kind that one could not fire at the
// target: it saw none of its models (Sight), it saw some but reached none
// (Range), or a rule barred it (Bar). Refuse then says why none fired.
type Reasons struct {
	Sight, Range, Bar string
}

// NoteSight keeps why as the sight reason, unless one is kept already.
func (r *Reasons) NoteSight(why string) {
	if r.Sight == "" {
		r.Sight = why
	}
}

// NoteRange keeps the range reason, formatted only if none is kept yet.
func (r *Reasons) NoteRange(format string, args ...any) {
	if r.Range == "" {
		r.Range = fmt.Sprintf(format, args...)
	}
}

// NoteBar keeps why as the reason a rule barred a model, unless one is
// kept already.
func (r *Reasons) NoteBar(why string) {
	if r.Bar == "" {
		r.Bar = why
	}
}

// Refuse is the refusal of a declaration of u at t that no model could
// make: out of range when a model saw the target but none reached it,
// else not eligible when a rule barred a model, else not visible. what
// names what fires, in the edition's words ("model", "weapon").
func (r Reasons) Refuse(u, t *projector.Unit, what string) error {
	switch {
	case r.Range != "":
		return projector.Refuse(projector.CodeOutOfRange, "no %s of %s has %s within range (%s)", what, u.DisplayName(), t.DisplayName(), r.Range)
	case r.Bar != "":
		return projector.Refuse(projector.CodeNotEligible, "no %s of %s may make attacks at %s: %s", what, u.DisplayName(), t.DisplayName(), r.Bar)
	}
	return projector.Refuse(projector.CodeNotVisible, "%s cannot see any model of %s (%s)", u.DisplayName(), t.DisplayName(), r.Sight)
}
