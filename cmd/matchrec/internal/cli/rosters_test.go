package cli

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
)

const rosters = "../../../../examples/rosters/"

// zipRoster writes ros as the one file of a .rosz, as BattleScribe saves it.
func zipRoster(t *testing.T, ros string) string {
	t.Helper()
	b, err := os.ReadFile(ros)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(ros), ".ros")+".rosz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create(filepath.Base(ros))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const rosterSetup = `version: 1
match:
  edition: 3e
  name: Gate Guard against Da Boyz
  players: [{id: alice, name: Alice}, {id: bob, name: Bob}]
  deploy:
    - {unit: tactical-squad, at: [20, 16], formation: line}
steps:
  - {as: alice, cmd: {type: next-turn}}
  - {as: alice, cmd: {type: phase, phase: shooting}}
  - {as: alice, cmd: {type: shoot, unit: tactical-squad, target: grukk-s-ladz}}
`

// new SCRIPT --roster alice=… --roster bob=…: each player's army from a
// list builder's file (a .rosz and a .ros), placed by the script's deploy
// steps, --deploy, and along its player's edge for the units nothing
// places (said on stderr); then the match plays.
func TestNewWithRosters(t *testing.T) {
	dir := t.TempDir()
	setup := writeFile(t, "setup.yaml", rosterSetup)
	marines := zipRoster(t, rosters+"3e-space-marines.ros")
	code, out, errs := run(t, dir, "--json", "new", setup, "--id", "r1",
		"--roster", "alice="+marines, "--roster", "bob="+rosters+"3e-orks.ros", "--deploy", "grukk-s-ladz=20,30,grid")
	if code != 0 {
		t.Fatalf("new: exit %d %s", code, errs)
	}
	var created api.CreateResult
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"note: " + marines + ": melee weapons are left out: 3e in matchrec has no close combat",
		"note: " + marines + ": placed along alice's table edge (no deploy step names them): space-marine-captain",
		"placed along bob's table edge (no deploy step names them): big-gunz-crew",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	var s projector.State
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "state", "r1")), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Units) != 4 {
		t.Fatalf("%d units", len(s.Units))
	}
	tac, boyz, capt, gunz := s.Unit("tactical-squad"), s.Unit("grukk-s-ladz"), s.Unit("space-marine-captain"), s.Unit("big-gunz-crew")
	if tac == nil || boyz == nil || capt == nil || gunz == nil {
		t.Fatalf("units %v", s.Units)
	}
	if m := tac.Models[0]; m.Y != 16 || m.BS != 4 || tac.Player != "alice" || len(tac.Weapons) != 3 {
		t.Errorf("tactical squad: %+v, weapons %v", m, tac.Weapons)
	}
	if m := boyz.Models[0]; m.Y >= 30 || m.X >= 20 || boyz.Player != "bob" || boyz.DisplayName() != "Grukk's Ladz" {
		t.Errorf("the boyz' grid: first model at (%g, %g)", m.X, m.Y)
	}
	if m := capt.Models[0]; m.Y != 6 || m.Inv != 4 {
		t.Errorf("captain at (%g, %g) inv %d, want the bottom edge", m.X, m.Y, m.Inv)
	}
	if m := gunz.Models[0]; m.Y != 42 {
		t.Errorf("big gunz at y %g, want bob's edge (42)", m.Y)
	}
	alice := created.Tokens["player:alice"]
	mustRun(t, dir, "declare", "r1", "--token", alice, "--type", "next-turn")
	mustRun(t, dir, "declare", "r1", "--token", alice, "--type", "phase", "--phase", "shooting")
	out = mustRun(t, dir, "declare", "r1", "--token", alice, "--type", "shoot", "--unit", "tactical-squad", "--target", "grukk-s-ladz")
	if !strings.Contains(out, "next: Alice rolls") || !strings.Contains(out, "(Boltgun), needing 3+") {
		t.Fatalf("shoot:\n%s", out)
	}

	// play takes the same flags; its steps name the rosters' units.
	code, out, errs = run(t, dir, "play", setup, "--roster", "alice="+marines, "--roster", "bob="+rosters+"3e-orks.ros", "--deploy", "grukk-s-ladz=20,30,grid")
	if code != 0 || !strings.Contains(mustRun(t, dir, "log", strings.TrimSpace(out)), "Tactical Squad shoots at Grukk's Ladz") {
		t.Fatalf("play: exit %d %s\n%s", code, errs, out)
	}
}

// Whatever is wrong with a roster or a deployment is said, exit 2, and
// nothing is created: not the match, not even the data directory.
func TestRosterErrorsCreateNothing(t *testing.T) {
	setup := writeFile(t, "setup.yaml", rosterSetup)
	good := rosters + "3e-orks.ros"
	noRos := filepath.Join(t.TempDir(), "empty.rosz")
	{
		f, _ := os.Create(noRos)
		zw := zip.NewWriter(f)
		w, _ := zw.Create("notes.txt")
		_, _ = w.Write([]byte("no roster here"))
		_ = zw.Close()
		_ = f.Close()
	}
	b, _ := os.ReadFile(good)
	cut := writeFile(t, "cut.ros", string(b[:len(b)/3]))
	unknown := writeFile(t, "knight.ros", strings.Replace(string(b), `typeName="Unit"`, `typeName="Knight"`, 1))
	for _, tc := range []struct {
		args []string
		code projector.Code
		want string
	}{
		{[]string{"--roster", "alice=" + cut, "--roster", "bob=" + good}, projector.CodeBadRoster, "cut.ros: line"},
		{[]string{"--roster", "alice=" + noRos}, projector.CodeBadRoster, "the zip file holds no .ros roster (it holds notes.txt)"},
		{[]string{"--roster", "alice=" + unknown}, projector.CodeBadRoster, `(Knight): a profile type matchrec does not know`},
		{[]string{"--roster", "alice=" + rosters + "11e-space-marines.ros"}, projector.CodeBadRoster, "a 3e match reads rosters of the WS BS S T W I A Ld Sv stat line"},
		{[]string{"--roster", "alice=" + filepath.Join(t.TempDir(), "missing.ros")}, projector.CodeBadRoster, "missing.ros: no such file"},
		{[]string{"--roster", "carol=" + good}, projector.CodeUsage, `"carol" is not a player of the match (players: alice, bob)`},
		{[]string{"--roster", "alice=" + rosters + "3e-space-marines.ros", "--roster", "bob=" + good, "--deploy", "grukk-s-ladz=20,30,wedge"}, projector.CodeUsage, `formation "wedge"`},
		{[]string{"--roster", "alice=" + rosters + "3e-space-marines.ros", "--roster", "bob=" + good, "--deploy", "gruk-s-ladz=20,30"}, projector.CodeBadScript, `deploy names unit "gruk-s-ladz", which the match does not have (did you mean "grukk-s-ladz"?)`},
		{[]string{"--roster", "alice=" + rosters + "3e-space-marines.ros", "--roster", "bob=" + good, "--deploy", "grukk-s-ladz=71,30"}, projector.CodeBadScript, "off the 72x48 table"},
	} {
		for _, verb := range []string{"new", "play"} {
			data := filepath.Join(t.TempDir(), "data")
			code, out, errs := run(t, data, append([]string{verb, setup}, tc.args...)...)
			if code != ExitUsage || out != "" || !strings.HasPrefix(errs, "error: "+string(tc.code)+": ") || !strings.Contains(errs, tc.want) {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want %s and %q", verb, tc.args, code, out, errs, tc.code, tc.want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("%s %v: the data directory was created (%v)", verb, tc.args, err)
			}
		}
	}
}

// roster import prints a roster's units and deploy steps as script YAML
// that a script takes as it is, the notes as comments; --json the same.
func TestRosterImport(t *testing.T) {
	code, out, errs := run(t, "", "roster", "import", rosters+"11e-space-marines.ros")
	if code != 0 {
		t.Fatalf("roster import: exit %d %s", code, errs)
	}
	for _, want := range []string{
		`# ` + rosters + `11e-space-marines.ros: "Second Company Vanguard", Warhammer 40,000 11th Edition (Imperium - Space Marines): 2 units, 6 models, read for 11e.`,
		"# note: melee weapons are left out: 11e in matchrec has no fight phase",
		"units:\n", "deploy:\n", "id: intercessor-squad-1", "name: Bolt rifle",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "note: OC is read, not kept") {
		t.Errorf("stderr: %s", errs)
	}
	// Indented under match:, it is a script's setup: parsed strictly,
	// placed, and created.
	var b strings.Builder
	b.WriteString("version: 1\nmatch:\n  edition: 11e\n  players: [{id: alice}, {id: bob}]\n")
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("steps: []\n")
	sc, err := script.Parse("imported.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	placed, err := sc.Match.Placed()
	if err != nil || len(placed.Units) != 2 || placed.Units[1].Models[0].Y != 6 {
		t.Fatalf("placed %+v: %v", placed.Units, err)
	}
	dir := t.TempDir()
	mustRun(t, dir, "new", writeFile(t, "imported.yaml", b.String()), "--id", "imp")

	var imp RosterImport
	if err := json.Unmarshal([]byte(mustRun(t, "", "--json", "roster", "import", rosters+"10e-tyranids.ros", "--player", "bob", "--side", "2")), &imp); err != nil {
		t.Fatal(err)
	}
	if imp.Edition != "11e" || len(imp.Units) != 2 || imp.Units[0].Player != "bob" || len(imp.Deploy) != 2 || imp.Deploy[0].At[1] != 42 {
		t.Fatalf("--json: %+v", imp)
	}
	// The edition follows the roster's game system unless given.
	for file, ed := range map[string]string{"3e-orks.ros": "3e", "7e-space-marines.ros": "6e"} {
		var got RosterImport
		if err := json.Unmarshal([]byte(mustRun(t, "", "--json", "roster", "import", rosters+file)), &got); err != nil || got.Edition != ed {
			t.Errorf("%s: edition %q (%v), want %s", file, got.Edition, err, ed)
		}
	}
	if code, _, errs := run(t, "", "roster", "import", rosters+"3e-orks.ros", "--edition", "11e"); code != ExitUsage || !strings.Contains(errs, "bad_roster") {
		t.Errorf("a 3rd-edition roster for 11e: exit %d %s", code, errs)
	}
}
