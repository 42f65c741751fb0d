package analytics_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay/analytics/report"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
)

// The measurements table: one row per fact measured at the table, as
// played and as ruled, and the report of each side's contested and
// ruled-against measurements. The measured Grot Wood assault: Bob
// contests Alice's tac-10 range and the judge amends it; Alice contests
// Bob's edge distance and the judge upholds it.
func TestMeasurementsTableAndReport(t *testing.T) {
	e := newEnv(t)
	e.measured(t, "tape")
	catchUp(t, e.up)
	row := query(t, e.db, `SELECT value, ruled, inches, contested, ruled_against, decision, status, player, "for", turn
		FROM measurements WHERE match = 'tape' AND seq = 19 AND kind = 'range' AND "from" = 'tac-10'`)
	if len(row) != 1 {
		t.Fatalf("rows %v", row)
	}
	if got := row[0]; got[0] != "6.2" || got[1] != "6.5" || got[2] != 6.2 || got[3] != true || got[4] != true || got[5] != "amend" ||
		got[6] != "contested" || got[7] != "alice" || got[8] != "shoot" || got[9] != int64(1) {
		t.Fatalf("tac-10's range: %v", got)
	}
	if r := query(t, e.db, `SELECT count(*) FILTER (WHERE ruled_against), count(*) FILTER (WHERE ruled = value), count(*) FROM measurements WHERE seq = 19`)[0]; r[0] != int64(1) || r[1] != r[2].(int64)-1 {
		t.Fatalf("the amended measurement: %v (one fact ruled against, the rest as played)", r)
	}
	edge := query(t, e.db, `SELECT value, ruled, contested, ruled_against, decision FROM measurements WHERE kind = 'edge'`)
	if len(edge) != 1 || edge[0][0] != "40.5" || edge[0][1] != "40.5" || edge[0][2] != true || edge[0][3] != false || edge[0][4] != nil {
		t.Fatalf("the upheld edge: %v", edge)
	}
	if n := query(t, e.db, `SELECT count(DISTINCT seq) FROM measurements WHERE status = 'unconfirmed'`)[0][0]; n != int64(0) {
		t.Fatalf("%v measurements left unconfirmed: the example confirms every one", n)
	}
	rep, err := report.Measurements(context.Background(), dbQuerier{e.db}, report.MeasurementsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]report.MeasurerStats{}
	for _, p := range rep.Players {
		by[p.Player] = p
	}
	if a := by["alice"]; a.Contested != 1 || a.RuledAgainst != 1 || a.FactsChanged != 1 || a.UpheldContests != 0 || a.Measurements < 5 {
		t.Fatalf("alice %+v", a)
	}
	if b := by["bob"]; b.Contested != 1 || b.RuledAgainst != 0 || b.UpheldContests != 1 {
		t.Fatalf("bob %+v", b)
	}
}

// The measurements queries of docs/analytics.md (the block the docs test
// skips, generated matches having no measurements) return rows on the
// measured example.
func TestDocumentedMeasurementQueries(t *testing.T) {
	e := newEnv(t)
	e.measured(t, "tape")
	catchUp(t, e.up)
	qs := measurementQueries(t)
	if len(qs) < 2 {
		t.Fatalf("docs/analytics.md: %d measurements queries found", len(qs))
	}
	for _, q := range qs {
		if rows := query(t, e.db, q); len(rows) == 0 {
			t.Errorf("no rows:\n%s", q)
		}
	}
}

// measurementQueries are the statements of docs/analytics.md's ```sql
// block marked as run by this file.
func measurementQueries(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "analytics.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "measurements_test.go runs these on the measured example) -->\n```sql\n")
	if !ok {
		t.Fatal("docs/analytics.md: no measurements block")
	}
	block, _, _ := strings.Cut(after, "```")
	var out []string
	for _, stmt := range strings.Split(block, ";") {
		if strings.TrimSpace(stmt) != "" {
			out = append(out, strings.TrimSpace(stmt))
		}
	}
	return out
}

// measured records the measured Grot Wood assault as match id.
func (e *env) measured(t testing.TB, id string) {
	t.Helper()
	sc, err := script.Read(filepath.Join("..", "..", "examples", "6e-measured-grot-wood.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = generate.Script(context.Background(), generate.Direct{Recorder: e.rec}, editions.Lookup, sc,
		api.CreateRequest{Match: id, RequestID: strings.Repeat("0", 31) + "1", Secret: strings.Repeat("a measured match ", 3)})
	if err != nil {
		t.Fatal(err)
	}
}
