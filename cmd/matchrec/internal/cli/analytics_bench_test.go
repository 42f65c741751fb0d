package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// benchMatches is the size of the analytics benchmarks' data set:
// MATCHREC_BENCH_MATCHES, default 10,000 generated 3e matches.
func benchMatches() int {
	if n, err := strconv.Atoi(os.Getenv("MATCHREC_BENCH_MATCHES")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// benchData returns a data directory holding the generated matches, made
// once and kept in the temporary directory (generation takes minutes).
func benchData(b *testing.B) string {
	b.Helper()
	n := benchMatches()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("matchrec-bench-analytics-%d-v%d", n, duckdb.SchemaVersion))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		b.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(dir, node.StoreFile), bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	res, err := generate.Run(context.Background(), generate.Direct{Recorder: recorder.New(st, recorder.Options{Rules: editions.Lookup})},
		editions.Lookup, generate.Options{Edition: "3e", Matches: n, Seed: 1, Workers: 4})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d matches, %d events in %s", len(res.Matches), res.Events, time.Since(start).Round(time.Second))
	// The first catch-up folds everything: time it.
	db, err := duckdb.Open(context.Background(), filepath.Join(dir, node.AnalyticsFile))
	if err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	stats, err := (&analytics.Updater{Store: st, Lookup: editions.Lookup, Sink: db}).CatchUp(context.Background(), analytics.Round{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("first catch-up: %d events, %d rows in %s", stats.Events, stats.Rows, time.Since(start).Round(time.Millisecond))
	_ = db.Close()
	_ = st.Close()
	// Publish the outbox, as a serving recorder would have: otherwise the
	// first commands' in-process relays publish a million-event backlog
	// while they are being timed.
	start = time.Now()
	nd, err := node.Open(context.Background(), node.Config{DataDir: dir, InProcess: true, LockTimeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	err = nd.Relay().Drained(dctx)
	cancel()
	if cerr := nd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("outbox published in %s", time.Since(start).Round(time.Second))
	if err := os.WriteFile(done, []byte(fmt.Sprintf("%d matches, %d events\n", len(res.Matches), res.Events)), 0o640); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkAnalytics times what an analyst runs, end to end through the
// CLI in process (open the node, check the tables are current, query),
// on the generated data set.
func BenchmarkAnalytics(b *testing.B) {
	dir := benchData(b)
	info, _ := os.ReadFile(filepath.Join(dir, "complete"))
	b.Logf("data set: %s", info)
	runOK := func(b *testing.B, args ...string) string {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), append([]string{"--data", dir}, args...), strings.NewReader(""), &stdout, &stderr)
		out, errs := stdout.String(), stderr.String()
		if code != 0 {
			b.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"report-luck", []string{"report", "luck"}},
		{"report-dice", []string{"report", "dice"}},
		{"report-weapons", []string{"report", "weapons"}},
		{"sql-grouped", []string{"sql", "SELECT roller, need, count(*) AS dice, avg(success::INT) AS rate, avg(p) AS expected FROM rolls WHERE purpose = 'hit' GROUP BY roller, need ORDER BY roller, need"}},
		{"sql-join", []string{"sql", "SELECT m.winner IS NULL AS draw, a.weapon, sum(a.unsaved) - sum(a.exp_unsaved) AS luck FROM attacks a JOIN matches m ON m.match = a.match GROUP BY ALL ORDER BY ALL"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				runOK(b, c.args...)
			}
		})
	}
	b.Run("export-parquet", func(b *testing.B) {
		out := b.TempDir()
		var rows int64
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var res ExportResult
			s := runOK(b, "--json", "export", "--table", "rolls", "--format", "parquet", "--out", filepath.Join(out, "rolls.parquet"))
			if err := json.Unmarshal([]byte(s), &res); err != nil {
				b.Fatal(err)
			}
			rows += res.Rows
		}
		b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
	})
}
