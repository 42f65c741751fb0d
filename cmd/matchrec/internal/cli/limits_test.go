package cli

import (
	"strings"
	"testing"
)

// A script over --max-script-bytes is refused as a bad script, naming the
// limit, and nothing is recorded.
func TestPlayRefusesAScriptOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run(t, dir, "play", "--max-script-bytes", "100", example)
	if code != ExitUsage || !strings.Contains(errs, "bad_script") || !strings.Contains(errs, "limit is 100") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out := mustRun(t, dir, "matches"); !strings.Contains(out, "no matches") {
		t.Fatalf("something was recorded: %s", out)
	}
	if code, _, errs := run(t, dir, "new", "--max-script-bytes", "0", example); code != ExitUsage || !strings.Contains(errs, "must be positive") {
		t.Fatalf("a limit of 0: exit %d: %s", code, errs)
	}
}
