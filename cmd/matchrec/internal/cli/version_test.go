package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// --version and version print the same line; --json --version and
// version --json the same object.
func TestVersionFlag(t *testing.T) {
	dir := t.TempDir()
	flag, cmd := mustRun(t, dir, "--version"), mustRun(t, dir, "version")
	if flag != cmd || !strings.HasPrefix(flag, "matchrec ") || !strings.Contains(flag, runtimeVersion()) {
		t.Fatalf("--version %q, version %q", flag, cmd)
	}
	var a, b VersionInfo
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "--version")), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "version", "--json")), &b); err != nil {
		t.Fatal(err)
	}
	if a != b || a.Version == "" || a.Go == "" || a.OS == "" {
		t.Fatalf("--json --version %+v, version --json %+v", a, b)
	}
	// Bare, the root command shows its help rather than nothing.
	if out := mustRun(t, dir); !strings.Contains(out, "Available Commands") {
		t.Fatalf("matchrec alone:\n%s", out)
	}
}

func runtimeVersion() string { return versionInfo().Go }

// What the ldflags leave unset comes from the build information: the
// module version go install records, the VCS revision and time go build
// stamps, a tree with changes marked dirty; what they set wins.
func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-03-01T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	v := VersionInfo{Version: "dev", Go: "go1.26", OS: "linux/amd64", Analytics: true}
	fillFromBuildInfo(&v, bi)
	if v.Version != "v1.4.0" || v.Commit != "0123456789abcdef0123456789abcdef01234567" || v.Date != "2026-03-01T10:00:00Z" || !v.Modified {
		t.Fatalf("from the build info: %+v", v)
	}
	if got := v.String(); got != "matchrec v1.4.0 (commit 0123456789ab-dirty, built 2026-03-01T10:00:00Z, go1.26 linux/amd64)" {
		t.Fatalf("line: %q", got)
	}
	set := VersionInfo{Version: "v2.0.0", Commit: "feedface", Date: "2026-04-02T00:00:00Z", Go: "go1.26", OS: "linux/amd64"}
	fillFromBuildInfo(&set, bi)
	if set.Version != "v2.0.0" || set.Commit != "feedface" || set.Date != "2026-04-02T00:00:00Z" || set.Modified {
		t.Fatalf("the ldflags' values were overridden: %+v", set)
	}
	if got := set.String(); !strings.HasSuffix(got, ", built without the analytics") {
		t.Fatalf("line: %q", got)
	}
	// A development build (go run, go test) has no module version: dev.
	dev := VersionInfo{Version: "dev"}
	fillFromBuildInfo(&dev, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if dev.Version != "dev" || dev.Commit != "" {
		t.Fatalf("devel: %+v", dev)
	}
}

// A read command on a --data directory that does not exist says so,
// exit 2, and creates nothing; the commands that record create it.
func TestMissingDataDir(t *testing.T) {
	root := t.TempDir()
	typo := filepath.Join(root, "matchrec-dta")
	for _, args := range [][]string{
		{"matches"},
		{"log", "m1"},
		{"state", "m1"},
		{"audit", "m1"},
		{"disputes", "m1"},
		{"identity"},
		{"sql", "SELECT 1"},
		{"report", "luck"},
		{"export", "--table", "rolls", "--out", filepath.Join(root, "r.parquet")},
		{"declare", "m1", "--token", "t", "--type", "next-turn"},
	} {
		code, out, errs := run(t, "", append([]string{"--data", typo}, args...)...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errs, "error: no_data_dir: no data directory "+typo+": nothing is recorded there") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if _, err := os.Stat(typo); !os.IsNotExist(err) {
			t.Fatalf("%v created %s (%v)", args, typo, err)
		}
	}
	code, _, errs := run(t, "", "--json", "--data", typo, "matches")
	var e struct {
		Error struct{ Code, Message string }
	}
	if code != ExitUsage || json.Unmarshal([]byte(errs), &e) != nil || e.Error.Code != string(projector.CodeNoDataDir) {
		t.Fatalf("--json: exit %d %s", code, errs)
	}
	// A file is not a data directory either.
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "--data", file, "matches"); code != ExitUsage || !strings.Contains(errs, "is a file, not a data directory") {
		t.Fatalf("a file: exit %d %s", code, errs)
	}
	// new creates it; then the read commands read it.
	dir := filepath.Join(root, "fresh", "data")
	mustRun(t, dir, "new", example, "--id", "m1")
	if out := mustRun(t, dir, "matches"); !strings.Contains(out, "m1") {
		t.Fatalf("matches after new:\n%s", out)
	}
}
