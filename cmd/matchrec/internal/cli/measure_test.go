package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
)

func TestParseFact(t *testing.T) {
	for in, want := range map[string]events.Fact{
		"range@tac-1=7.5":     {Kind: "range", From: "tac-1", Value: "7.5"},
		"target:boy-3=hidden": {Kind: "target", Model: "boy-3", Value: "hidden"},
		"distance:boyz@tac=6": {Kind: "distance", Model: "boyz", From: "tac", Value: "6"},
		"moved=4":             {Kind: "moved", Value: "4"},
		"engaged:a=b, c":      {Kind: "engaged", Model: "a", Value: "b, c"},
	} {
		if got, err := parseFact(in); err != nil || got != want {
			t.Errorf("parseFact(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"range", "=7", ":boy-1=yes"} {
		if _, err := parseFact(bad); err == nil {
			t.Errorf("parseFact(%q) took it", bad)
		}
	}
}

// A match measured at the table, through the CLI's flags: new
// --geometry measured, a move by its distance, a shoot refused for the
// facts it lacks (named, exit 1, nothing recorded) and made with --fact,
// the opponent's contest, the judge's amendment with --fact (as ruled a
// Marine 13" away, beyond the 12" a moved boltgun reaches, does not
// fire), and audit --measure telling it as measured and as ruled.
func TestMeasuredMatchThroughTheCLI(t *testing.T) {
	dir := t.TempDir()
	var created struct {
		Match  string            `json:"match"`
		Tokens map[string]string `json:"tokens"`
	}
	file := filepath.Join("..", "..", "..", "..", "examples", "3e-moving-fire.yaml")
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "new", file, "--geometry", "measured", "--id", "tape")), &created); err != nil {
		t.Fatal(err)
	}
	alice, bob, judge := created.Tokens["player:alice"], created.Tokens["player:bob"], created.Tokens["judge"]
	mustRun(t, dir, "declare", "tape", "--token", alice, "--type", "next-turn")
	if code, _, errs := run(t, dir, "declare", "tape", "--token", alice, "--type", "move", "--unit", "tac", "--model", "tac-1", "--x", "14", "--y", "20"); code != ExitRefused || !strings.Contains(errs, string(projector.CodeMeasuredMatch)) {
		t.Fatalf("a move by coordinates: exit %d %s", code, errs)
	}
	mustRun(t, dir, "declare", "tape", "--token", alice, "--type", "move", "--unit", "tac", "--fact", "moved=4")
	mustRun(t, dir, "declare", "tape", "--token", alice, "--type", "phase", "--phase", "shooting")
	head := mustRun(t, dir, "--json", "state", "tape")
	code, _, errs := run(t, dir, "declare", "tape", "--token", alice, "--type", "shoot", "--unit", "tac", "--target", "boyz")
	if code != ExitRefused || !strings.Contains(errs, "fact_missing") || !strings.Contains(errs, "range from tac-1 (inches or none)") || !strings.Contains(errs, "target boy-6") {
		t.Fatalf("a shoot without its facts: exit %d %s", code, errs)
	}
	if again := mustRun(t, dir, "--json", "state", "tape"); again != head {
		t.Fatal("a refused shoot changed the match")
	}
	shoot := []string{"declare", "tape", "--token", alice, "--type", "shoot", "--unit", "tac", "--target", "boyz"}
	for _, m := range []string{"tac-1", "tac-2", "tac-3", "tac-4"} {
		shoot = append(shoot, "--fact", "range@"+m+"=9")
	}
	for _, m := range []string{"boy-1", "boy-2", "boy-3", "boy-4", "boy-5", "boy-6"} {
		shoot = append(shoot, "--fact", "target:"+m+"=in-range")
	}
	out := mustRun(t, dir, shoot...)
	if !strings.Contains(out, "8 shots") {
		t.Fatalf("the measured shoot: %s", out)
	}
	var log []struct {
		Seq  uint64 `json:"seq"`
		Type string `json:"type"`
	}
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", "tape")), "\n") {
		var v struct {
			Seq  uint64 `json:"seq"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		log = append(log, v)
	}
	measured := uint64(0)
	for _, v := range log {
		if v.Type == string(events.TypeMeasured) {
			measured = v.Seq // the shoot's, the last one
		}
	}
	ev := itoa(measured)
	mustRun(t, dir, "declare", "tape", "--token", bob, "--type", "contest", "--event", ev, "--reason", "tac-4 stood 13\" away")
	mustRun(t, dir, "declare", "tape", "--token", bob, "--type", "dispute", "--event", ev, "--reason", "tac-4's range")
	dispute := itoa(seqOf(t, dir, "tape", "disputes event "+ev))
	if code, _, errs := run(t, dir, "declare", "tape", "--token", judge, "--type", "rule", "--dispute", dispute, "--decision", "amend", "--fact", "range@tac-7=13"); code != ExitRefused || !strings.Contains(errs, "fact_unknown_model") {
		t.Fatalf("an amendment of a fact about no model: exit %d %s", code, errs)
	}
	mustRun(t, dir, "declare", "tape", "--token", judge, "--type", "rule", "--dispute", dispute, "--decision", "amend", "--fact", "range@tac-4=13")
	var x replay.Measurement
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "audit", "tape", "--measure", ev)), &x); err != nil {
		t.Fatal(err)
	}
	if x.For != "shoot" || !strings.HasPrefix(x.Witness, "contested by Bob: tac-4 stood 13\" away; settled by ruling ") || x.Ruled == nil || x.Ruled.Changed != "range from tac-4: 9 → 13" ||
		!strings.Contains(x.Decided, "tac-4 2 shots") || strings.Contains(x.Ruled.Decided, "tac-4") { // moved: a boltgun reaches 12"
		t.Fatalf("audit --measure: %+v %+v", x, x.Ruled)
	}
	text := mustRun(t, dir, "audit", "tape", "--measure", ev)
	if !strings.Contains(text, "as ruled: AMENDED by ruling") {
		t.Fatalf("audit --measure:\n%s", text)
	}
}
