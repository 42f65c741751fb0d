package script_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/script"
)

// YAML writes a setup as a script would, items of the flow keys on one
// line each, and reads back to the same setup.
func TestYAMLReadsBack(t *testing.T) {
	u := unit("tac", 2, 25)
	u.Name, u.Keywords = "Tactical: Squad", []string{"INFANTRY", "FACTION: X"}
	u.Weapons = []events.WeaponSpec{{ID: "bg", Name: "boltgun", Range: 24, Type: "rapid-fire", S: 4, AP: 5}}
	in := script.Setup{Edition: "3e", Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}}, Units: []events.UnitSpec{u},
		Deploy: []script.Deployment{{Unit: "tac", At: [2]float64{10.5, 6}, Formation: "line"}}}
	b, err := script.YAML(in, "models", "weapons", "deploy")
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{"  - {id: tac-1, t: 4, w: 1, height: 0, base_mm: 25, x: 0, y: 0}\n", "keywords: [INFANTRY, 'FACTION: X']", "- {unit: tac, at: [10.5, 6], formation: line}"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	var indented strings.Builder
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		indented.WriteString("  " + l + "\n")
	}
	sc, err := script.Parse("s.yaml", []byte("version: 1\nmatch:\n"+indented.String()+"steps: []\n"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(sc.Match, in) {
		t.Fatalf("read back\n%+v\nwant\n%+v", sc.Match, in)
	}
}
