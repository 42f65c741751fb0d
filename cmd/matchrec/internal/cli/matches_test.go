package cli

import (
	"encoding/json"
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
