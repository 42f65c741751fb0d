package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// sqlJSON runs `sql --json` and decodes its rows.
func sqlJSON(t *testing.T, dir, q string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "sql", q)), &rows); err != nil {
		t.Fatalf("sql --json %s: %v", q, err)
	}
	return rows
}

// generate, then sql, reports and export, all in process: the in-process
// node catches its tables up on demand.
func TestGenerateThenQueryReportAndExport(t *testing.T) {
	dir := t.TempDir()
	var gen GenerateResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "generate", "--edition", "3e", "--matches", "6", "--seed", "4")), &gen); err != nil {
		t.Fatal(err)
	}
	if gen.Matches != 6 || gen.Events < 100 || gen.First != "gen-3e-4-0" {
		t.Fatalf("generate: %+v", gen)
	}
	m := sqlJSON(t, dir, "SELECT count(*) AS n, sum(events) AS events FROM matches")
	if m[0]["n"].(float64) != 6 || uint64(m[0]["events"].(float64)) != gen.Events {
		t.Fatalf("matches table: %v, generated %+v", m, gen)
	}
	text := mustRun(t, dir, "sql", "SELECT purpose, count(*) AS dice FROM rolls GROUP BY purpose ORDER BY purpose")
	if !strings.Contains(text, "purpose  dice") || !strings.Contains(text, "hit") || !strings.Contains(text, "(3 rows)") {
		t.Errorf("sql table output:\n%s", text)
	}
	csvOut := mustRun(t, dir, "sql", "--csv", "SELECT match, seq FROM attacks ORDER BY match, seq LIMIT 3")
	if lines := strings.Split(strings.TrimSpace(csvOut), "\n"); len(lines) != 4 || lines[0] != "match,seq" {
		t.Errorf("sql --csv:\n%s", csvOut)
	}

	for _, rep := range []string{"luck", "dice", "weapons"} {
		png := filepath.Join(dir, rep+".png")
		out := mustRun(t, dir, "--json", "report", rep, "--plot", png)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) == 0 {
			t.Fatalf("report %s --json: %v\n%s", rep, err, out)
		}
		if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
			t.Errorf("report %s --plot: %v", rep, err)
		}
		if text := mustRun(t, dir, "report", rep); !strings.Contains(text, "PLAYER") && !strings.Contains(text, "WEAPON") {
			t.Errorf("report %s:\n%s", rep, text)
		}
	}

	// A match measured at the table, witnessed and ruled on: its
	// measurements table and report.
	mustRun(t, dir, "play", filepath.Join("..", "..", "..", "..", "examples", "6e-measured-grot-wood.yaml"), "--id", "tape")
	if text := mustRun(t, dir, "report", "measurements"); !strings.Contains(text, "MEASUREMENTS") || !strings.Contains(text, "alice") || !strings.Contains(text, "RULED AGAINST") {
		t.Errorf("report measurements:\n%s", text)
	}

	// Every table, written as Parquet, reads back through DuckDB with the
	// rows the tables hold.
	for _, tb := range analytics.Tables {
		file := filepath.Join(dir, tb.Name+".parquet")
		var res ExportResult
		if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "export", "--table", tb.Name, "--format", "parquet", "--out", file)), &res); err != nil {
			t.Fatal(err)
		}
		order := `"` + strings.Join(tb.Key, `", "`) + `"`
		got, err := duckdb.ReadParquet(context.Background(), file, order)
		if err != nil {
			t.Fatal(err)
		}
		want := sqlRows(t, dir, "SELECT * FROM "+tb.Name+" ORDER BY "+order)
		if int64(len(got.Rows)) != res.Rows || len(got.Rows) != len(want) {
			t.Fatalf("%s: %d rows in the file, %d reported, %d in the table", tb.Name, len(got.Rows), res.Rows, len(want))
		}
		if len(want) == 0 && tb.Name != analytics.TableCharges {
			t.Errorf("%s: empty", tb.Name)
		}
		for i := range want {
			if !sameRow(got.Rows[i], want[i]) {
				t.Fatalf("%s row %d: file %v\n table %v", tb.Name, i, got.Rows[i], want[i])
			}
		}
		for k, c := range got.Columns {
			if c.Name != tb.Columns[k].Name {
				t.Fatalf("%s: file column %d is %s, want %s", tb.Name, k, c.Name, tb.Columns[k].Name)
			}
		}
	}
	for _, f := range []string{"csv", "jsonl"} {
		file := filepath.Join(dir, "attacks."+f)
		mustRun(t, dir, "export", "--table", "attacks", "--format", f, "--out", file, "--player", "alice", "--since", "2000-01-01")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := sqlJSON(t, dir, "SELECT count(*) AS n FROM attacks a JOIN matches m ON m.match = a.match WHERE list_contains(string_split(m.players, ','), 'alice')")[0]["n"].(float64)
		lines := strings.Count(string(b), "\n")
		if f == "csv" {
			lines-- // header
		}
		if float64(lines) != want || want == 0 {
			t.Errorf("%s export for alice: %d rows, want %v", f, lines, want)
		}
	}
}

// sqlRows reads a query's rows through the in-process API, typed.
func sqlRows(t *testing.T, dir, q string) [][]any {
	t.Helper()
	a := &app{data: dir}
	var rows [][]any
	err := a.withAPI(context.Background(), func(c *recorderAPI) error {
		return a.stream(context.Background(), c, api.ExportRequest{Query: q}, nil, func(r [][]any) error {
			rows = append(rows, r...)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sameRow(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if ta, ok := a[i].(time.Time); ok {
			if tb, ok := b[i].(time.Time); !ok || !ta.Equal(tb) {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Bad input gets clear errors, the right exit codes, and leaves no file.
func TestAnalyticsBadInput(t *testing.T) {
	dir := t.TempDir()
	out := t.TempDir()
	file := filepath.Join(out, "rolls.parquet")
	// An empty store.
	for _, args := range [][]string{
		{"export", "--table", "rolls", "--format", "parquet", "--out", file},
		{"report", "luck"}, {"report", "dice"}, {"report", "weapons"},
	} {
		code, _, errs := run(t, dir, args...)
		if code != ExitRefused || !strings.Contains(errs, "no_data") || !strings.Contains(errs, "no matches recorded") {
			t.Errorf("%v on an empty store: exit %d, %s", args, code, errs)
		}
	}
	mustRun(t, dir, "generate", "--edition", "3e", "--matches", "2", "--seed", "1")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sql", "SELEC count(*) FROM rolls"}, ExitRefused, "bad_query: Parser Error"},
		{[]string{"sql", "SELECT * FROM nosuchtable"}, ExitRefused, "nosuchtable does not exist"},
		{[]string{"sql", "SELECT nosuchcolumn FROM rolls"}, ExitRefused, `"nosuchcolumn" not found`},
		{[]string{"sql", "DELETE FROM rolls"}, ExitRefused, "only queries"},
		{[]string{"sql", "SELECT 1; SELECT 2"}, ExitRefused, "bad_query"},
		{[]string{"report", "luck", "--player", "zed"}, ExitRefused, `no match has a player "zed"`},
		{[]string{"report", "dice", "--source", "loaded"}, ExitUsage, "--source"},
		{[]string{"report", "weapons", "--edition", "9e"}, ExitUsage, "known editions"},
		{[]string{"report", "luck", "--plot", filepath.Join(out, "x.svg")}, ExitUsage, ".png"},
		{[]string{"report", "bogus"}, ExitUsage, "unknown report"},
		{[]string{"export", "--table", "rolls", "--format", "parquet", "--player", "zed", "--out", file}, ExitRefused, `no match has a player "zed"`},
		{[]string{"export", "--table", "rolls", "--format", "parquet", "--edition", "6e", "--out", file}, ExitRefused, `no match is of edition "6e"`},
		{[]string{"export", "--table", "nosuch", "--format", "csv", "--out", file}, ExitUsage, "unknown table"},
		{[]string{"export", "--table", "rolls", "--format", "xlsx", "--out", file}, ExitUsage, "--format"},
		{[]string{"export", "--table", "rolls", "--since", "yesterday", "--out", file}, ExitUsage, "--since"},
		{[]string{"export", "--table", "rolls", "--out", filepath.Join(out, "missing", "dir", "x.parquet")}, ExitUsage, "bad_output"},
		{[]string{"generate", "--edition", "2e"}, ExitUsage, "known editions"},
	} {
		code, _, errs := run(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("failed exports left files behind: %v", left)
	}
}

// With --server, the commands reach the tables of the serving node, which
// keeps them current itself.
func TestAnalyticsThroughServer(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := node.Open(ctx, node.Config{DataDir: data, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	other := t.TempDir() // the CLI's own data directory stays unused
	creds := n.CredsPath(natsbus.RoleClient)
	mustRun(t, other, "--server", n.URL(), "--nats-creds", creds, "generate", "--edition", "11e", "--matches", "3", "--seed", "2")
	rows := sqlJSONServer(t, other, n.URL(), creds, "SELECT count(DISTINCT match) AS n FROM rolls")
	if rows[0]["n"].(float64) != 3 {
		t.Fatalf("rolls of %v matches through the server, want 3", rows[0]["n"])
	}
	if _, err := os.Stat(filepath.Join(other, node.AnalyticsFile)); !os.IsNotExist(err) {
		t.Errorf("the client opened tables of its own: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, node.AnalyticsFile)); err != nil {
		t.Errorf("the server has no tables: %v", err)
	}
}

func sqlJSONServer(t *testing.T, dir, url, creds, q string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--server", url, "--nats-creds", creds, "--json", "sql", q)), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// The 6e example's charge (9" rolled, 6" needed) and its Overwatch and
// close combat attacks reach the tables as the script's notes say.
func TestSixthEditionChargeAndAttackKinds(t *testing.T) {
	dir := t.TempDir()
	id := strings.TrimSpace(mustRun(t, dir, "play", "../../../../examples/6e-grot-wood-assault.yaml"))
	ch := sqlJSON(t, dir, "SELECT match, player, unit, target, rolled, needed, distance, success, edition FROM charges")
	if len(ch) != 1 {
		t.Fatalf("%d charge rows, want 1: %v", len(ch), ch)
	}
	c := ch[0]
	if c["match"] != id || c["unit"] != "tac" || c["target"] != "boyz" || c["rolled"].(float64) != 9 ||
		c["distance"].(float64) != 9 || c["success"] != true || c["edition"] != "6e" || c["player"] != "alice" {
		t.Errorf("charge row %v", c)
	}
	if n := c["needed"].(float64); n < 5.9 || n > 6.1 {
		t.Errorf("charge needed %v\", the script says 6.0\"", n)
	}
	kinds := sqlJSON(t, dir, "SELECT type, count(*) AS n, max(kind) AS kind FROM attacks GROUP BY type ORDER BY type")
	got := map[string]float64{}
	for _, k := range kinds {
		got[k["type"].(string)] = k["n"].(float64)
		if k["type"] == "overwatch" && k["kind"] != "snap" {
			t.Errorf("overwatch attack of kind %v, want snap", k["kind"])
		}
	}
	if got["shooting"] == 0 || got["overwatch"] != 1 || got["melee"] == 0 {
		t.Errorf("attack types %v", got)
	}
	purposes := sqlJSON(t, dir, "SELECT list(DISTINCT purpose ORDER BY purpose) AS p FROM rolls")[0]["p"]
	for _, want := range []string{"charge", "hit", "lookoutsir", "save", "wound"} {
		if !strings.Contains(fmt.Sprint(purposes), want) {
			t.Errorf("roll purposes %v lack %s", purposes, want)
		}
	}
}
