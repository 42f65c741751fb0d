package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// seqOf is the number of the first event of match id whose narration
// contains text.
func seqOf(t *testing.T, dir, id, text string) uint64 {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", id)), "\n") {
		var v api.EventView
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(v.Text, text) {
			return v.Seq
		}
	}
	t.Fatalf("match %s has no event telling %q", id, text)
	return 0
}

// The 3e example's first rolls, told as the log tells them.
const (
	boltgunHits = "Alice rolls 9 D6 to hit (boltgun)"
	heavyHits   = "Alice rolls 3 D6 to hit (heavy bolter)"
	boltWounds  = "Alice rolls 6 D6 to wound (S4 vs T4)"
	heavyWounds = "Alice rolls 2 D6 to wound (S5 vs T4)"
	orkSaves    = "Bob rolls 5 D6 to save (Sv6+)"
)

// ruledMatch plays the 3e example, then: Bob confirms the boltgun hits,
// contests the boltgun wounds, disputes the heavy bolter's hits (the judge
// amends them to 4 5 6) and the Orks' saves (the judge voids them). It
// returns the rulings' and disputes' event numbers, and the tokens.
func ruledMatch(t *testing.T) (dir, id string, seq map[string]uint64, tokens map[string]string) {
	t.Helper()
	dir = t.TempDir()
	var played PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &played); err != nil {
		t.Fatal(err)
	}
	id = played.Match
	bob, judge := played.Tokens["player:bob"], played.Tokens["judge"]
	seq = map[string]uint64{}
	for _, r := range []string{boltgunHits, heavyHits, boltWounds, heavyWounds, orkSaves} {
		seq[r] = seqOf(t, dir, id, r)
	}
	s := func(r string) string { return itoa(seq[r]) }
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "confirm", "--event", s(boltgunHits))
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "contest", "--event", s(boltWounds), "--reason", "cocked die")
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", s(heavyHits), "--reason", "I saw a 5")
	seq["dispute1"] = seqOf(t, dir, id, "Bob disputes event "+s(heavyHits))
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", s(orkSaves), "--reason", "rolled off the table")
	seq["dispute2"] = seqOf(t, dir, id, "Bob disputes event "+s(orkSaves))
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(seq["dispute1"]), "--decision", "amend", "--values", "4 5 6")
	seq["ruling1"] = seqOf(t, dir, id, "the judge rules on the dispute of event "+s(heavyHits))
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(seq["dispute2"]), "--decision", "void", "--reason", "re-roll it")
	seq["ruling2"] = seqOf(t, dir, id, "the judge rules on the dispute of event "+s(orkSaves))
	return dir, id, seq, played.Tokens
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
	dir, id, seq, _ := ruledMatch(t)
	q := func(k string) string { return itoa(seq[k]) }
	amended := fmt.Sprintf("AMENDED by ruling %d on dispute %d: 4 1 6 → 4 5 6 — 3 hits instead of 2", seq["ruling1"], seq["dispute1"])
	voided := fmt.Sprintf("VOIDED by ruling %d on dispute %d (re-roll it)", seq["ruling2"], seq["dispute2"])

	log := mustRun(t, dir, "log", id)
	contains(t, "log", log,
		"6 successes [manual] (confirmed)\n",
		"— 2 successes [manual] (unconfirmed)\n       ! "+amended+"\n",
		"[manual] (CONTESTED by Bob: cocked die)\n",
		"       ! "+voided+"\n",
		heavyWounds+", needing 3+: 3 5 — 2 successes [manual]\n       ! DISCARDED as ruled: rolled to wound",
		"the judge rules on the dispute of event "+q(heavyHits)+": amend: 4 1 6 → 4 5 6 — 3 hits instead of 2\n       ! as ruled, this ruling discards events "+q(heavyWounds)+", "+q(orkSaves),
	)
	var lines []api.EventView
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", id, "--from", q(heavyHits), "--to", q(boltWounds))), "\n") {
		var v api.EventView
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, v)
	}
	if len(lines) != 2 || lines[0].Witness != "unconfirmed" || len(lines[0].Marks) != 1 || lines[1].Witness != "CONTESTED by Bob: cocked die" {
		t.Fatalf("log --json marks: %+v", lines)
	}

	code, audit, _ := run(t, dir, "audit", id)
	if code != ExitUnresolved { // the boltgun wounds are contested and no ruling settles them
		t.Fatalf("audit exit %d", code)
	}
	contains(t, "audit", audit,
		"event "+q(heavyHits)+" as ruled: 4 1 6 → 4 5 6 — 3 hits instead of 2",
		"later events the ruling discards (they no longer fold as ruled): "+q(heavyWounds)+", "+q(orkSaves),
		"event "+q(orkSaves)+" no longer counts",
		"event "+q(boltWounds)+" (alice's) contested at event ", " by bob: cocked die — NOT settled by a ruling since",
	)

	contains(t, "audit --roll", mustRun(t, dir, "audit", id, "--roll", q(heavyHits)),
		"as played, produced: 2 of 3 dice succeeded: 2 hits",
		fmt.Sprintf("as ruled: AMENDED by ruling %d on dispute %d — dice [4 5 6], produced: 3 of 3 dice succeeded: 3 hits", seq["ruling1"], seq["dispute1"]))
	contains(t, "audit --roll (voided)", mustRun(t, dir, "audit", id, "--roll", q(orkSaves)),
		fmt.Sprintf("as ruled: VOIDED by ruling %d on dispute %d — the roll does not count", seq["ruling2"], seq["dispute2"]), "the judge's note: re-roll it")
	contains(t, "audit --roll (discarded)", mustRun(t, dir, "audit", id, "--roll", q(heavyWounds)), "as ruled: discarded — ")

	ruled, played := mustRun(t, dir, "state", id), mustRun(t, dir, "state", id, "--as-played")
	contains(t, "state", ruled, "unconfirmed physical rolls: events "+q(heavyHits)+", ", "CONTESTED roll: event "+q(boltWounds)+" (Alice's) contested by Bob at event ", ": cocked die — no ruling since",
		"left out by the rulings (voided, or no longer valid): events "+q(heavyWounds)+", "+q(orkSaves))
	contains(t, "state --as-played", played, "unconfirmed physical rolls: events "+q(heavyHits)+", "+q(heavyWounds)+", "+q(orkSaves))
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

// A second ruling on a roll is the one in force wherever the roll is
// shown — audit --roll, the log's marks, the audit, state — with the
// first one as history; a contest settled by a ruling is no longer
// CONTESTED in state, which names who contested it.
func TestASecondRulingIsInForceEverywhere(t *testing.T) {
	dir, id, seq, tokens := ruledMatch(t)
	q := func(k string) string { return itoa(seq[k]) }
	bob, judge := tokens["player:bob"], tokens["judge"]
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", q(heavyHits), "--reason", "the 4 was a 5 too")
	again := seqOf(t, dir, id, "Bob disputes event "+q(heavyHits)+": the 4 was a 5 too")
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(again), "--decision", "amend", "--values", "5,3,6")
	second := again + 1
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", q(boltWounds), "--reason", "cocked die")
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", itoa(second+1), "--decision", "uphold")

	contains(t, "audit --roll", mustRun(t, dir, "audit", id, "--roll", q(heavyHits)),
		fmt.Sprintf("as ruled: AMENDED by ruling %d on dispute %d — dice [5 3 6]", second, again),
		fmt.Sprintf("  - ruling %d on dispute %d: amend to 4 5 6 (3 successes) — replaced by ruling %d\n", seq["ruling1"], seq["dispute1"], second),
		fmt.Sprintf("  - ruling %d on dispute %d: amend to 5 3 6 (3 successes) — in force\n", second, again))
	contains(t, "log", mustRun(t, dir, "log", id, "--from", q(heavyHits), "--to", q(heavyHits)),
		fmt.Sprintf("       ! AMENDED by ruling %d on dispute %d: 4 1 6 → 5 3 6 — 3 hits instead of 2\n       ! replaced by ruling %d: amended by ruling %d on dispute %d: 4 1 6 → 4 5 6", second, again, second, seq["ruling1"], seq["dispute1"]))
	code, audit, _ := run(t, dir, "audit", id)
	if code != ExitOK {
		t.Errorf("audit exit %d: the contest is settled\n%s", code, audit)
	}
	contains(t, "audit", audit, fmt.Sprintf("event %d: the judge rules amend — replaced by ruling %d", seq["ruling1"], second),
		fmt.Sprintf("event %d: the judge rules amend — in force", second), "by bob: cocked die — settled by ruling ")
	state := mustRun(t, dir, "state", id)
	contains(t, "state", state,
		fmt.Sprintf("ruling in force on event %s: AMENDED to 5 3 6 by ruling %d on dispute %d; the other rulings on it: ruling %d (amend to 4 5 6, replaced by ruling %d)", q(heavyHits), second, again, seq["ruling1"], second),
		"contested roll settled: event "+q(boltWounds)+" (Alice's) contested by Bob at event ")
	if strings.Contains(state, "CONTESTED") {
		t.Errorf("state still shows a settled contest as CONTESTED:\n%s", state)
	}
}

// A bundle file is read wherever a match is: log, state (as ruled and as
// played) and replay tell it exactly as they tell the stored match. It is
// written readable by all unless --mode says otherwise.
func TestBundleFileInPlaceOfMatch(t *testing.T) {
	dir, id, _, _ := ruledMatch(t)
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

// seqsOf are the numbers of match id's events of type typ, in order.
func seqsOf(t *testing.T, dir, id string, typ events.Type) []uint64 {
	t.Helper()
	var out []uint64
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", id)), "\n") {
		var v api.EventView
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if v.Type == typ {
			out = append(out, v.Seq)
		}
	}
	return out
}

// --event last names the match's last dice roll; a dispute of what no
// ruling could change (a dice seed's commitment, a ruling) is refused
// with not_disputable and records nothing, as contest refuses a roll
// that is not a physical one.
func TestEventLastAndWhatIsNotDisputable(t *testing.T) {
	dir, id, seq, tokens := ruledMatch(t)
	bob := tokens["player:bob"]
	rolls := seqsOf(t, dir, id, events.TypeDiceRolled)
	last := rolls[len(rolls)-1]
	out := mustRun(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", "last", "--reason", "the last die rolled off")
	contains(t, "dispute --event last", out, fmt.Sprintf("Bob disputes event %d: the last die rolled off", last))

	head := len(seqsOf(t, dir, id, events.TypeDisputeRaised))
	commit := seqsOf(t, dir, id, events.TypeDiceCommitted)[0]
	for _, ev := range []uint64{commit, seq["ruling1"]} {
		code, _, errs := run(t, dir, "declare", id, "--token", bob, "--type", "dispute", "--event", itoa(ev), "--reason", "no")
		if code != ExitRefused || !strings.Contains(errs, "error: not_disputable: event "+itoa(ev)+" (") {
			t.Errorf("a dispute of event %d: exit %d\n%s", ev, code, errs)
		}
	}
	if n := len(seqsOf(t, dir, id, events.TypeDisputeRaised)); n != head {
		t.Errorf("a refused dispute was recorded: %d disputes, want %d", n, head)
	}
	if code, _, errs := run(t, dir, "declare", id, "--token", bob, "--type", "contest", "--event", "lats", "--reason", "x"); code != ExitUsage || !strings.Contains(errs, "or last") {
		t.Errorf("--event lats: exit %d\n%s", code, errs)
	}
}

// matchrec rulings: the text, --json and --html of the ruling record,
// from the match and from its bundle alike; the page is one file that
// loads nothing and runs nothing, with every name escaped.
func TestRulingsRecordCommand(t *testing.T) {
	dir, id, seq, tokens := ruledMatch(t)
	xss := `<script>alert(1)</script>`
	mustRun(t, dir, "declare", id, "--token", tokens["player:bob"], "--type", "dispute", "--event", itoa(seq[boltgunHits]), "--reason", xss)
	text := mustRun(t, dir, "rulings", id)
	contains(t, "rulings", text,
		"audit: UNRESOLVED (unsigned: the recorder's operator is trusted)",
		fmt.Sprintf("dispute 1 of 3 — event %d, ", seq["dispute1"]),
		fmt.Sprintf("  the disputed event %d (", seq[heavyHits]),
		"  the roll: Alice rolled 3 D6 to hit needing 3+: 4 1 6 — 2 of 3 dice succeeded: 2 hits",
		fmt.Sprintf("  ruling: event %d, ", seq["ruling1"]), ": amend to 4 5 6 — in force\n",
		"    as ruled: 4 1 6 → 4 5 6 — 3 hits instead of 2\n",
		"    on the board: Ork Boyz: models on the table: 8 → 12\n",
		"    signed: judge by token (no signature: the operator is trusted)",
		fmt.Sprintf("  ruling: event %d, ", seq["ruling2"]), ": void — in force\n    the judge's note: re-roll it",
		"dispute 3 of 3", "  ruling: NONE YET",
	)
	var rec replay.RulingsRecord
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "rulings", id)), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Disputes) != 3 || rec.Disputes[0].Ruling == nil || rec.Disputes[0].Roll == nil || rec.Disputes[2].Ruling != nil {
		t.Fatalf("rulings --json: %+v", rec)
	}
	bundle := filepath.Join(t.TempDir(), "m.bundle")
	mustRun(t, dir, "export", id, "--bundle", bundle)
	if from := mustRun(t, dir, "rulings", bundle); from != text {
		t.Errorf("the record of the bundle differs from the match's:\n%s\n---\n%s", from, text)
	}
	page := filepath.Join(t.TempDir(), "rulings.html")
	mustRun(t, dir, "rulings", id, "--html", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, bad := range []string{"<script", "src=", "href=", "http://", "https://", "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("the page has %q: it must load and run nothing", bad)
		}
	}
	contains(t, "rulings --html", html, "&lt;script&gt;alert(1)&lt;/script&gt;", "@media print", "@page",
		fmt.Sprintf(`data-dispute="%d"`, seq["dispute1"]), "amend to 4 5 6", "none yet")
}

// disputes lists a contest made after the roll's only ruling, which that
// ruling does not settle, and says which ruling is in force.
func TestDisputesListsAContestAfterARuling(t *testing.T) {
	dir, id, seq, tokens := ruledMatch(t)
	q := func(k string) string { return itoa(seq[k]) }
	mustRun(t, dir, "declare", id, "--token", tokens["player:bob"], "--type", "contest", "--event", q(heavyHits), "--reason", "the 6 was cocked too")
	out := mustRun(t, dir, "disputes", id, "--all")
	contains(t, "disputes --all", out,
		fmt.Sprintf("  event %s (alice's) contested by bob at event ", q(heavyHits)),
		fmt.Sprintf("dispute %d by bob on event %s — ruled amend at event %d, in force", seq["dispute1"], q(heavyHits), seq["ruling1"]))
	if code, _, _ := run(t, dir, "audit", id); code != ExitUnresolved {
		t.Errorf("audit exit %d: the new contest is unsettled", code)
	}
}
