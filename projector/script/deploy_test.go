package script_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/script"
)

func unit(id string, n int, baseMM float64) events.UnitSpec {
	u := events.UnitSpec{ID: id, Player: "alice"}
	for i := range n {
		u.Models = append(u.Models, events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), T: 4, W: 1, BaseMM: baseMM})
	}
	return u
}

func positions(u events.UnitSpec) string {
	var b strings.Builder
	for _, m := range u.Models {
		fmt.Fprintf(&b, "(%g,%g)", m.X, m.Y)
	}
	return b.String()
}

// A formation at a point: the models centred on it in unit order, spacing
// apart (by default the widest base and half an inch); the setup itself
// is left as it was.
func TestDeployFormations(t *testing.T) {
	for _, tc := range []struct {
		d    script.Deployment
		n    int
		want string
	}{
		{script.Deployment{Unit: "u", At: [2]float64{10, 10}, Spacing: 2}, 3, "(8,10)(10,10)(12,10)"},
		{script.Deployment{Unit: "u", At: [2]float64{10, 10}, Formation: "column", Spacing: 1.5}, 2, "(10,9.25)(10,10.75)"},
		{script.Deployment{Unit: "u", At: [2]float64{10, 10}, Formation: "grid", Spacing: 2}, 5, "(8,9)(10,9)(12,9)(8,11)(10,11)"},
		// 25.4 mm bases: 1" + 0.5" apart by default.
		{script.Deployment{Unit: "u", At: [2]float64{10, 10}}, 2, "(9.25,10)(10.75,10)"},
	} {
		s := script.Setup{Edition: "3e", Units: []events.UnitSpec{unit("u", tc.n, 25.4)}, Deploy: []script.Deployment{tc.d}}
		p, err := s.Placed()
		if err != nil {
			t.Fatalf("%+v: %v", tc.d, err)
		}
		if got := positions(p.Units[0]); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.d, got, tc.want)
		}
		if positions(s.Units[0]) != strings.Repeat("(0,0)", tc.n) {
			t.Errorf("Placed changed the setup: %s", positions(s.Units[0]))
		}
	}
	// The last step naming a unit wins.
	s := script.Setup{Units: []events.UnitSpec{unit("u", 1, 25)}, Deploy: []script.Deployment{
		{Unit: "u", At: [2]float64{5, 5}}, {Unit: "u", At: [2]float64{7, 8}}}}
	if p, err := s.Placed(); err != nil || positions(p.Units[0]) != "(7,8)" {
		t.Fatalf("two steps: %v %v", positions(p.Units[0]), err)
	}
}

// A deployment that cannot be made is an error naming the unit: unknown
// (with a guess), overlapping bases, a model off the table.
func TestDeployErrors(t *testing.T) {
	for _, tc := range []struct {
		d    script.Deployment
		want string
	}{
		{script.Deployment{Unit: "tacc", At: [2]float64{10, 10}}, `deploy names unit "tacc", which the match does not have (did you mean "tac"?)`},
		{script.Deployment{Unit: "tac", At: [2]float64{10, 10}, Spacing: 0.5}, "unit tac: spacing 0.5\" is less than its widest base (1.26\"): the bases would overlap"},
		{script.Deployment{Unit: "tac", At: [2]float64{71, 10}}, "unit tac: model tac-3 would stand at (72.76, 10), off the 72x48 table"},
		{script.Deployment{Unit: "tac", At: [2]float64{10, 10}, Formation: "wedge"}, `formation "wedge"`},
		{script.Deployment{At: [2]float64{10, 10}}, "a deploy step needs a unit"},
	} {
		s := script.Setup{Units: []events.UnitSpec{unit("tac", 3, 32)}, Deploy: []script.Deployment{tc.d}}
		_, err := s.Placed()
		if !errors.Is(err, script.ErrDeploy) && (err == nil || !strings.Contains(err.Error(), script.ErrDeploy.Error())) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.d, err, tc.want)
		}
	}
}

// A script's deploy steps are read strictly, like every other field.
func TestDeployInScripts(t *testing.T) {
	head := "version: 1\nmatch:\n  edition: 3e\n  players: [{id: alice}, {id: bob}]\n" +
		"  units:\n    - {id: tac, player: alice, models: [{id: tac-1, t: 4, w: 1, base_mm: 25, height: 1.5, x: 0, y: 0}]}\n"
	sc, err := script.Parse("s.yaml", []byte(head+"  deploy:\n    - {unit: tac, at: [20, 6], formation: column}\nsteps: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.Match.Placed()
	if err != nil || positions(p.Units[0]) != "(20,6)" {
		t.Fatalf("placed %s: %v", positions(p.Units[0]), err)
	}
	for body, want := range map[string]string{
		"  deploy:\n    - {unit: tac, at: [20, 6], formaton: column}\n": `unknown field "formaton" (did you mean "formation"?)`,
		"  deploy:\n    - {unit: tac, at: [20, 6], formation: wedge}\n": `match.deploy[0]: bad deployment: unit tac: formation "wedge"`,
		"  deploy:\n    - {unit: tac, at: [20, 6], spacing: -1}\n":      "spacing -1 must be positive",
	} {
		if _, err := script.Parse("s.yaml", []byte(head+body+"steps: []\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// Units no step places go in lines along their player's edge, the first
// player's at the bottom, rows further in when one is full, and it says
// so when they do not fit.
func TestEdgeDeployments(t *testing.T) {
	units := []events.UnitSpec{unit("a", 10, 25.4), unit("b", 10, 25.4), unit("c", 10, 25.4), unit("d", 10, 25.4), unit("e", 10, 25.4)}
	ds, err := script.EdgeDeployments(units, 1, events.Table{W: 72, H: 48})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(ds)
	// 10 models a line of 14.5": four to a row, the fifth a row further in.
	want := "[{a [9.25 6] line 0} {b [25.75 6] line 0} {c [42.25 6] line 0} {d [58.75 6] line 0} {e [9.25 9] line 0}]"
	if got != want {
		t.Fatalf("edge deployments:\n%s\nwant\n%s", got, want)
	}
	top, _ := script.EdgeDeployments(units[:1], 2, events.Table{W: 72, H: 48})
	if top[0].At[1] != 42 {
		t.Errorf("side 2 at y %g, want 42", top[0].At[1])
	}
	s := script.Setup{Units: units, Deploy: ds}
	if _, err := s.Placed(); err != nil {
		t.Fatalf("edge deployments do not place: %v", err)
	}
	var many []events.UnitSpec
	for i := range 20 {
		many = append(many, unit(fmt.Sprintf("u%d", i), 10, 25.4))
	}
	if _, err := script.EdgeDeployments(many, 1, events.Table{W: 72, H: 48}); err == nil || !strings.Contains(err.Error(), "do not fit in lines within 12\"") {
		t.Fatalf("too many units: %v", err)
	}
}
