package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// ruledMatch plays the 3e example, then: Bob confirms roll 6, contests
// roll 8, disputes roll 7 (the judge amends it to 4 5 6) and roll 10 (the
// judge voids it).
func ruledMatch(t *testing.T) (dir, id string) {
	t.Helper()
	dir = t.TempDir()
	var played PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &played); err != nil {
		t.Fatal(err)
	}
	id = played.Match
	bob, judge := played.Tokens["player:bob"], played.Tokens["judge"]
	n := played.Seq
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "confirm", "--event", "6")
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "contest", "--event", "8", "--reason", "cocked die")
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", "7", "--reason", "I saw a 5")
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", "10", "--reason", "rolled off the table")
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(n+3), "--decision", "amend", "--values", "4 5 6")
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(n+4), "--decision", "void", "--reason", "re-roll it")
	return dir, id
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func contains(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// As played and as ruled are both visible wherever a roll is shown: the
// log marks witnesses and rulings, the audit tells old → new and what a
// ruling discarded, audit --roll explains both readings, and state shows
// either, with the rolls and disputes a judge must settle.
func TestRulingsAreVisibleEverywhere(t *testing.T) {
	dir, id := ruledMatch(t)

	log := mustRun(t, dir, "log", id)
	contains(t, "log", log,
		"6 successes [manual] (confirmed)\n",
		"— 2 successes [manual] (unconfirmed)\n       ! AMENDED by ruling 50 on dispute 48: 4 1 6 → 4 5 6 — 3 hits instead of 2\n",
		"[manual] (CONTESTED: cocked die)\n",
		"       ! VOIDED by ruling 51 on dispute 49 (re-roll it)\n",
		"    9  Alice rolls 2 D6 to wound (S5 vs T4), needing 3+: 3 5 — 2 successes [manual]\n       ! DISCARDED as ruled: rolled to wound",
		"the judge rules on the dispute of event 7: amend: 4 1 6 → 4 5 6 — 3 hits instead of 2\n       ! as ruled, this ruling discards events 9, 10, 11,",
	)
	var lines []api.EventView
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", id, "--from", "7", "--to", "8")), "\n") {
		var v api.EventView
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, v)
	}
	if len(lines) != 2 || lines[0].Witness != "unconfirmed" || len(lines[0].Marks) != 1 || lines[1].Witness != "CONTESTED: cocked die" {
		t.Fatalf("log --json marks: %+v", lines)
	}

	code, audit, _ := run(t, dir, "audit", id)
	if code != ExitRefused { // roll 8 is contested and no ruling settles it
		t.Fatalf("audit exit %d", code)
	}
	contains(t, "audit", audit,
		"event 7 as ruled: 4 1 6 → 4 5 6 — 3 hits instead of 2",
		"later events the ruling discards (they no longer fold as ruled): 9, 10, 11,",
		"event 10 no longer counts",
		"event 8 by alice contested: cocked die",
	)

	contains(t, "audit --roll 7", mustRun(t, dir, "audit", id, "--roll", "7"),
		"as played, produced: 2 of 3 dice succeeded: 2 hits",
		"as ruled: AMENDED by ruling 50 on dispute 48 — dice [4 5 6], produced: 3 of 3 dice succeeded: 3 hits")
	contains(t, "audit --roll 10", mustRun(t, dir, "audit", id, "--roll", "10"),
		"as ruled: VOIDED by ruling 51 on dispute 49 — the roll does not count", "the judge's note: re-roll it")
	contains(t, "audit --roll 9", mustRun(t, dir, "audit", id, "--roll", "9"), "as ruled: discarded — ")

	ruled, played := mustRun(t, dir, "state", id), mustRun(t, dir, "state", id, "--as-played")
	contains(t, "state", ruled, "unconfirmed physical rolls: events 7, 13,", "CONTESTED roll: event 8 by Alice: cocked die",
		"left out by the rulings (voided, or no longer valid): events 9, 10, 11,")
	contains(t, "state --as-played", played, "unconfirmed physical rolls: events 7, 9, 10, 13,")
	if strings.Contains(played, "left out by the rulings") {
		t.Errorf("as played, nothing is left out:\n%s", played)
	}
	var sr, sp projector.State
	if json.Unmarshal([]byte(mustRun(t, dir, "--json", "state", id)), &sr) != nil || json.Unmarshal([]byte(mustRun(t, dir, "--json", "state", id, "--as-played")), &sp) != nil {
		t.Fatal("state --json")
	}
	if sr.Seq != sp.Seq || len(sr.Skipped) == 0 || len(sp.Skipped) != 0 || len(sr.Unit("boyz").AliveModels()) == len(sp.Unit("boyz").AliveModels()) {
		t.Errorf("as ruled and as played should differ: ruled %d skipped, %d boyz; played %d skipped, %d boyz",
			len(sr.Skipped), len(sr.Unit("boyz").AliveModels()), len(sp.Skipped), len(sp.Unit("boyz").AliveModels()))
	}
}

// A bundle file is read wherever a match is: log, state (as ruled and as
// played) and replay tell it exactly as they tell the stored match. It is
// written readable by all unless --mode says otherwise.
func TestBundleFileInPlaceOfMatch(t *testing.T) {
	dir, id := ruledMatch(t)
	file := filepath.Join(t.TempDir(), "friday.bundle")
	mustRun(t, dir, "export", id, "--bundle", file)
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("bundle mode: %v %v", st.Mode(), err)
	}
	private := filepath.Join(t.TempDir(), "private.bundle")
	mustRun(t, dir, "export", id, "--bundle", private, "--mode", "0600")
	if st, err := os.Stat(private); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("--mode 0600: %v %v", st.Mode(), err)
	}

	empty := t.TempDir() // no store: everything comes from the file
	for _, args := range [][]string{
		{"log"}, {"--json", "log"}, {"log", "--from", "5", "--to", "12"},
		{"state"}, {"--json", "state"}, {"state", "--at", "20"}, {"state", "--as-played"},
		{"replay", "--turn", "2"},
	} {
		fromStore := mustRun(t, dir, append(args, id)...)
		fromFile := mustRun(t, empty, append(args, file)...)
		if fromStore != fromFile {
			t.Errorf("%v: the bundle file tells another story:\n--- store\n%s\n--- file\n%s", args, fromStore, fromFile)
		}
	}
	if code, _, errs := run(t, empty, "log", filepath.Join(empty, "nothing.bundle")); code != ExitUsage || !strings.HasPrefix(errs, "error: bad_file: ") {
		t.Errorf("missing bundle: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, empty, "replay", file, "--follow"); code != ExitUsage || !strings.Contains(errs, "not a bundle file") {
		t.Errorf("replay --follow of a file: exit %d %s", code, errs)
	}
}
