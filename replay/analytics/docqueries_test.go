package analytics_test

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
)

// docQueries are the SQL statements of docs/analytics.md's ```sql blocks
// (but those marked <!-- docs-test: skip -->, as the docs test reads
// them), each with the comment lines above it.
func docQueries(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../docs/analytics.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out   []string
		cur   strings.Builder
		inSQL bool
	)
	sc := bufio.NewScanner(f)
	skip, skipping := false, false // a block after <!-- docs-test: skip --> is not run
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !inSQL && strings.HasPrefix(strings.TrimSpace(l), "<!-- docs-test: skip"):
			skip = true
		case !inSQL && strings.TrimSpace(l) == "```sql":
			inSQL, skipping, skip = true, skip, false
		case !inSQL && strings.TrimSpace(l) != "":
			skip = false
		case inSQL && strings.TrimSpace(l) == "```":
			inSQL = false
		case inSQL && skipping:
		case inSQL:
			cur.WriteString(l + "\n")
			if strings.HasSuffix(strings.TrimSpace(l), ";") {
				out = append(out, cur.String())
				cur.Reset()
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("docs/analytics.md: only %d queries found", len(out))
	}
	return out
}

// Every example query of docs/analytics.md returns rows on generated
// matches of every edition, and sensible ones: rates and odds between 0
// and 1, counts positive, win rates that are not all zero (generated
// matches end with a winner), charge rows for 6e (generated 6e matches
// charge).
func TestDocumentedQueriesOnGeneratedMatches(t *testing.T) {
	e := newEnv(t)
	for _, ed := range editions.IDs() {
		// As `matchrec generate` does: a quarter of the rolls typed in.
		if _, err := generate.Run(t.Context(), generate.Direct{Recorder: e.rec}, editions.Lookup,
			generate.Options{Edition: ed, Matches: 6, Seed: 5, ManualRatio: 0.25}); err != nil {
			t.Fatal(err)
		}
	}
	catchUp(t, e.up)
	rate := regexp.MustCompile(`^(rate|.*_rate)$`)
	count := regexp.MustCompile(`^(dice|played|charges|rolls|wounded|unsaved|damage|lost|expected.*)$`)
	for _, q := range docQueries(t) {
		stmt := strings.TrimSuffix(strings.TrimSpace(q), ";")
		r, err := e.db.Query(t.Context(), stmt, 0)
		if err != nil {
			t.Errorf("%s\n%v", q, err)
			continue
		}
		if len(r.Rows) == 0 {
			t.Errorf("no rows:\n%s", q)
			continue
		}
		positive := map[string]bool{}
		for _, row := range r.Rows {
			for i, c := range r.Columns {
				v, ok := number(row[i])
				switch {
				case !ok:
				case rate.MatchString(c.Name) && (v < 0 || v > 1 || math.IsNaN(v)):
					t.Errorf("%s = %v, not a rate:\n%s", c.Name, v, q)
				case count.MatchString(c.Name) && v < 0:
					t.Errorf("%s = %v, negative:\n%s", c.Name, v, q)
				}
				if ok && v > 0 {
					positive[c.Name] = true
				}
			}
		}
		for _, c := range r.Columns {
			if (rate.MatchString(c.Name) || count.MatchString(c.Name)) && !positive[c.Name] {
				t.Errorf("%s is never above 0 (%d rows):\n%s", c.Name, len(r.Rows), q)
			}
		}
	}
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
