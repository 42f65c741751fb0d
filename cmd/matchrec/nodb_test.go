package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make demo's binary (-tags noduckdb) links no DuckDB, plays, tells and
// audits every example all the same, and its analytics commands say that
// this build has none.
func TestBuildWithoutDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	deps, err := exec.Command("go", "list", "-tags", "noduckdb", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, deps)
	}
	if strings.Contains(string(deps), "duckdb") {
		t.Fatalf("the noduckdb build still depends on DuckDB:\n%s", deps)
	}
	bin := filepath.Join(t.TempDir(), "matchrec-demo")
	if out, err := exec.Command("go", "build", "-tags", "noduckdb", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags noduckdb: %v\n%s", err, out)
	}
	data := t.TempDir()
	run := func(args ...string) (string, string, int) {
		c := exec.Command(bin, append([]string{"--data", data}, args...)...)
		var stderr strings.Builder
		c.Stderr = &stderr
		out, err := c.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), stderr.String(), code
	}
	out, _, _ := run("--json", "version")
	var v struct{ Analytics bool }
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Analytics {
		t.Fatalf("version: %s (%v)", out, err)
	}
	if out, _, _ := run("--version"); !strings.Contains(out, "built without the analytics") {
		t.Errorf("--version: %s", out)
	}
	examples, _ := filepath.Glob("../../examples/*.yaml")
	for _, ex := range examples {
		out, errs, code := run("play", ex)
		id := strings.TrimSpace(out)
		if code != 0 || id == "" {
			t.Fatalf("play %s: exit %d %s", ex, code, errs)
		}
		for _, cmd := range []string{"log", "state", "audit"} {
			if _, errs, code := run(cmd, id); code != 0 {
				t.Errorf("%s %s: exit %d %s", cmd, id, code, errs)
			}
		}
	}
	for _, args := range [][]string{{"sql", "SELECT 1"}, {"report", "luck"}, {"export", "--table", "rolls", "--out", filepath.Join(t.TempDir(), "r.parquet")}} {
		if _, errs, code := run(args...); code != 1 || !strings.HasPrefix(errs, "error: no_analytics: this matchrec was built without the analytics") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}
