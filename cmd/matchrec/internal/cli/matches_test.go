package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/store/api"
)

// listMatches is every match `matchrec --json matches --all` lists.
func listMatches(t *testing.T, dir string) []api.MatchSummary {
	t.Helper()
	var all []api.MatchSummary
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "matches", "--all")), "\n") {
		var page api.MatchesResult
		if err := json.Unmarshal([]byte(line), &page); err != nil {
			t.Fatalf("matches --json page %q: %v", line, err)
		}
		all = append(all, page.Matches...)
	}
	return all
}

// `matches` lists from the match index: players, status and winner, the
// last played first; it filters and pages.
func TestMatchesListsPlayersStatusWinner(t *testing.T) {
	dir := t.TempDir()
	ended := strings.TrimSpace(mustRun(t, dir, "play", example)) // ends: Alice wins
	var live api.CreateResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "new", example, "--id", "friday")), &live); err != nil {
		t.Fatal(err)
	}

	out := mustRun(t, dir, "matches")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "MATCH ") {
		t.Fatalf("matches:\n%s", out)
	}
	// The newest first: friday, created after the played one.
	for i, want := range [][]string{
		{"friday", "live", "-", "Alice vs Bob", "3e", "Boltguns vs Boyz"},
		{ended, "ended", "Alice", "Alice vs Bob", "3e", "Boltguns vs Boyz"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d lacks %q: %s", i+1, w, lines[i+1])
			}
		}
	}

	ms := listMatches(t, dir)
	if len(ms) != 2 || ms[0].ID != "friday" || ms[1].Status != "ended" || ms[1].Winner != "alice" ||
		len(ms[1].Players) != 2 || ms[1].Players[1].Name != "Bob" || len(ms[1].Players[1].Army) == 0 {
		t.Fatalf("--json matches: %+v", ms)
	}

	if out := mustRun(t, dir, "matches", "--status", "ended"); !strings.Contains(out, ended) || strings.Contains(out, "friday") {
		t.Fatalf("--status ended:\n%s", out)
	}
	if out := mustRun(t, dir, "matches", "--player", "ALICE", "--text", "fri"); !strings.Contains(out, "friday") || strings.Contains(out, ended) {
		t.Fatalf("--player ALICE --text fri:\n%s", out)
	}
	// A page of one says how to get the next; the next has the other.
	first := mustRun(t, dir, "matches", "--limit", "1")
	i := strings.Index(first, "--cursor ")
	if !strings.Contains(first, "friday") || i < 0 {
		t.Fatalf("--limit 1:\n%s", first)
	}
	cursor := strings.Fields(first[i+len("--cursor "):])[0]
	if next := mustRun(t, dir, "matches", "--limit", "1", "--cursor", cursor); !strings.Contains(next, ended) {
		t.Fatalf("the page after %s:\n%s", cursor, next)
	}
	// A bad filter is a usage error, naming it.
	if code, _, errs := run(t, dir, "matches", "--status", "over"); code != ExitUsage || !strings.Contains(errs, `status "over"`) {
		t.Fatalf("--status over: exit %d, %s", code, errs)
	}
}

// A match is played on a venue table: new --table N, or table_number in
// its script; matches --table N lists that table's matches only, and says
// the table; a table number out of range is refused.
func TestMatchesOnAVenueTable(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "new", example, "--id", "r1-t3", "--table", "3")
	mustRun(t, dir, "new", example, "--id", "r1-t4", "--table", "4")
	b, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(t.TempDir(), "t3.yaml")
	if err := os.WriteFile(sc, []byte(strings.Replace(string(b), "\nmatch:\n", "\nmatch:\n  table_number: 3\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "play", sc, "--id", "r2-t3")
	out := mustRun(t, dir, "matches", "--table", "3")
	if !strings.Contains(out, "r1-t3") || !strings.Contains(out, "r2-t3") || strings.Contains(out, "r1-t4") || !strings.Contains(out, "[table 3] Boltguns vs Boyz") {
		t.Errorf("matches --table 3:\n%s", out)
	}
	for _, m := range listMatches(t, dir) {
		if want := map[string]int{"r1-t3": 3, "r1-t4": 4, "r2-t3": 3}[m.ID]; m.Table != want {
			t.Errorf("match %s is on table %d, want %d", m.ID, m.Table, want)
		}
	}
	if code, _, errs := run(t, dir, "new", example, "--id", "far", "--table", "10000"); code != ExitRefused || !strings.Contains(errs, "table number 10000") {
		t.Errorf("new --table 10000: exit %d\n%s", code, errs)
	}
}
