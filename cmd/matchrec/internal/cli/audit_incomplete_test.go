package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/replay"
)

// An audit whose record passed every check but whose bus copy could not
// be checked (a recorder that cannot read the stream, or serves no
// buscheck) is INCOMPLETE, exit 2 — never CLEAN — in text and in JSON.
func TestAuditNeverCleanWhenACheckCouldNotRun(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		a := &app{stdout: &out, json: asJSON}
		rep := replay.Report{Match: "m1", Verdict: replay.VerdictClean, OK: true, Signed: true}
		err := a.report(rep, nil, &busCheck{Error: `unknown verb "buscheck"`})
		var ce *cliError
		if !errors.As(err, &ce) || ce.exit != ExitUsage {
			t.Fatalf("json %v: %v, want exit %d", asJSON, err, ExitUsage)
		}
		text := out.String()
		if strings.Contains(text, replay.VerdictClean) {
			t.Fatalf("json %v: an incomplete audit printed CLEAN:\n%s", asJSON, text)
		}
		if asJSON {
			var v struct {
				Verdict string `json:"verdict"`
				OK      bool   `json:"ok"`
			}
			if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Verdict != verdictIncomplete || v.OK {
				t.Fatalf("JSON verdict %+v (%v), want INCOMPLETE, not ok", v, err)
			}
		} else if !strings.Contains(text, "verdict: "+verdictIncomplete) {
			t.Fatalf("no INCOMPLETE verdict:\n%s", text)
		}
	}
	// A bus check that ran and agrees keeps CLEAN.
	var out bytes.Buffer
	a := &app{stdout: &out}
	rep := replay.Report{Match: "m1", Verdict: replay.VerdictClean, OK: true, Signed: true}
	if err := a.report(rep, nil, nil); err != nil || !strings.Contains(out.String(), "verdict: CLEAN") {
		t.Fatalf("a bundle's audit: %v\n%s", err, out.String())
	}
}
