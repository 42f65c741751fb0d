package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/store/api"
)

// Live play at the table: dice typed with spaces, prompts that list the
// model ids they take, ids in the state, typos answered with a guess, and
// the judge's list of open disputes.
func TestLivePlayErgonomics(t *testing.T) {
	dir := t.TempDir()
	var created api.CreateResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "new", example, "--id", "friday")), &created); err != nil {
		t.Fatal(err)
	}
	alice, bob, judge := created.Tokens["player:alice"], created.Tokens["player:bob"], created.Tokens["judge"]

	// A typo in the match id.
	code, _, errs := run(t, dir, "declare", "fridya", "--token", alice, "--type", "next-turn")
	if code != ExitRefused || errs != "error: not_found: match not found: \"fridya\" (did you mean \"friday\"?)\n" {
		t.Fatalf("typo in the match id: exit %d, %q", code, errs)
	}
	// Before turn 1, the refusal names who starts.
	if code, _, errs := run(t, dir, "declare", "friday", "--token", bob, "--type", "phase", "--phase", "shooting"); code != ExitRefused || !strings.Contains(errs, "Alice starts turn 1") {
		t.Fatalf("before turn 1: exit %d, %s", code, errs)
	}
	mustRun(t, dir, "declare", "friday", "--token", alice, "--type", "next-turn")
	mustRun(t, dir, "declare", "friday", "--token", alice, "--type", "phase", "--phase", "shooting")
	// Unknown command type: the valid ones are listed.
	if code, _, errs := run(t, dir, "declare", "friday", "--token", alice, "--type", "shot"); code != ExitRefused ||
		!strings.Contains(errs, `unknown command "shot" (did you mean "shoot"?); 3e takes: shoot, distribute, casualties, next-turn`) {
		t.Fatalf("unknown command: exit %d, %s", code, errs)
	}
	// A typo in a unit id.
	if code, _, errs := run(t, dir, "declare", "friday", "--token", alice, "--type", "shoot", "--unit", "tac", "--target", "boys"); code != ExitRefused || !strings.Contains(errs, `(did you mean unit "boyz"?)`) {
		t.Fatalf("typo in the target: exit %d, %s", code, errs)
	}
	mustRun(t, dir, "declare", "friday", "--token", alice, "--type", "shoot", "--unit", "tac", "--target", "boyz")
	// Dice as people type them.
	out := mustRun(t, dir, "roll", "friday", "--token", alice, "--values", "6, 5, 3, 3, 2, 1, 4, 5, 2")
	if !strings.Contains(out, ": 6 5 3 3 2 1 4 5 2 — 6 successes [manual]") {
		t.Fatalf("roll with spaces:\n%s", out)
	}
	mustRun(t, dir, "roll", "friday", "--token", alice, "--values", "4 1 6")
	mustRun(t, dir, "roll", "friday", "--token", alice, "--values", "4,2,6,5,1,3")
	mustRun(t, dir, "roll", "friday", "--token", alice, "--values", "3,5")
	out = mustRun(t, dir, "roll", "friday", "--token", bob, "--values", "6,2,1,3,4")
	// The casualty prompt lists the Boyz in range and sight, not boy-10 in the wood.
	const inSight = "eligible models: boy-1, boy-2, boy-3, boy-4, boy-5, boy-6, boy-7, boy-8, boy-9\n"
	if !strings.Contains(out, "next: Bob chooses 4 casualties") || !strings.Contains(out, inSight) {
		t.Fatalf("casualty prompt:\n%s", out)
	}
	state := mustRun(t, dir, "state", "friday")
	if !strings.Contains(state, inSight) || !strings.Contains(state, "boy-1, boy-2, boy-3, boy-4, boy-5, boy-6, boy-7, boy-8, boy-9, boy-10") {
		t.Fatalf("state lacks model ids:\n%s", state)
	}
	if code, _, errs := run(t, dir, "declare", "friday", "--token", bob, "--type", "casualties", "--models", "boy-1,boy-2,boy-3,boy4"); code != ExitRefused || !strings.Contains(errs, `did you mean model "boy-4"`) {
		t.Fatalf("typo in a casualty: exit %d, %s", code, errs)
	}
	mustRun(t, dir, "declare", "friday", "--token", bob, "--type", "casualties", "--models", "boy-1,boy-2,boy-3,boy-4")

	// The judge's view of disputes.
	if out := mustRun(t, dir, "disputes", "friday"); out != "match friday has no open dispute\n" {
		t.Fatalf("no dispute yet:\n%s", out)
	}
	hits, heavy := seqOf(t, dir, "friday", boltgunHits), seqOf(t, dir, "friday", heavyHits)
	mustRun(t, dir, "declare", "friday", "--token", bob, "--type", "contest", "--event", itoa(hits), "--reason", "cocked die")
	mustRun(t, dir, "declare", "friday", "--token", bob, "--type", "dispute", "--event", itoa(heavy), "--reason", "I saw a 2")
	disp := seqOf(t, dir, "friday", "Bob disputes event "+itoa(heavy))
	out = mustRun(t, dir, "disputes", "friday")
	for _, want := range []string{
		fmt.Sprintf("dispute %d by bob on event %d — OPEN: I saw a 2", disp, heavy),
		fmt.Sprintf("event %d: Alice rolls 3 D6 to hit (heavy bolter), needing 3+: 4 1 6", heavy),
		"--dispute N",
		fmt.Sprintf("event %d (alice's) contested by bob at event ", hits), ": cocked die",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("disputes lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := run(t, dir, "declare", "friday", "--token", bob, "--type", "rule", "--dispute", itoa(disp), "--decision", "uphold"); code != ExitRefused || !strings.HasPrefix(errs, "error: not_judge: ") {
		t.Fatalf("a player rules: exit %d, %s", code, errs)
	}
	mustRun(t, dir, "declare", "friday", "--token", judge, "--type", "rule", "--dispute", itoa(disp), "--decision", "uphold")
	var res DisputesResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "disputes", "friday", "--all")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Disputes) != 1 || res.Disputes[0].Open || res.Disputes[0].Decision != "uphold" || len(res.Contested) != 1 || res.Contested[0].Seq != hits {
		t.Fatalf("disputes --all: %+v", res)
	}
}
