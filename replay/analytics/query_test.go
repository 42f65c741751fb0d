package analytics_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/store/api"
)

// costly takes minutes: ten billion rows summed; hungry needs 3 GB.
const (
	costly = "SELECT sum(a.range * b.range) FROM range(100000) a, range(100000) b"
	hungry = "SELECT length(string_agg(repeat('x', 1000000), '')) FROM range(3000)"
)

// boundedService is env's analytics service with a query time limit.
func (e *env) boundedService(t *testing.T, limit time.Duration) *analytics.Service {
	t.Helper()
	s := analytics.NewService(analytics.ServiceConfig{
		Store: e.st, Lookup: editions.Lookup, QueryTimeout: limit,
		Open: func(ctx context.Context) (analytics.DB, error) {
			return duckdb.Open(ctx, filepath.Join(e.dir, "bounded.duckdb"))
		},
	})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// waitIdle waits until no query runs, failing the test after within.
func waitIdle(t *testing.T, s *analytics.Service, within time.Duration, what string) {
	t.Helper()
	for t0 := time.Now(); s.Running() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Since(t0) > within {
			t.Fatalf("%s: a query still runs after %s", what, within)
		}
	}
}

// A query runs within its time limit, the database's memory limit, its
// caller's deadline and its caller's presence: past any of them DuckDB
// interrupts it.
func TestQueriesAreBounded(t *testing.T) {
	e := newEnv(t)
	s := e.boundedService(t, time.Second)
	v := s.Verbs()
	call := func(ctx context.Context, verb string, req any) error {
		b, _ := json.Marshal(req)
		_, err := v.Handle(ctx, verb, b)
		return err
	}
	for _, verb := range []string{api.VerbSQL, api.VerbExport} {
		var req any = api.SQLRequest{Query: costly}
		if verb == api.VerbExport {
			req = api.ExportRequest{Query: costly}
		}
		t0 := time.Now()
		err := call(context.Background(), verb, req)
		if api.CodeOf(err) != projector.CodeBadQuery || !strings.Contains(err.Error(), "time limit") {
			t.Fatalf("%s of a costly query: %v", verb, err)
		}
		t.Logf("%s stopped after %v", verb, time.Since(t0))
		waitIdle(t, s, 10*time.Second, verb)
	}

	s = e.boundedService(t, time.Hour)
	v = s.Verbs()
	// A query that needs more memory than the database may use fails.
	err := call(context.Background(), api.VerbSQL, api.SQLRequest{Query: hungry, NoSync: true})
	if api.CodeOf(err) != projector.CodeBadQuery || !strings.Contains(err.Error(), "Out of Memory") {
		t.Fatalf("a query past the memory limit: %v", err)
	}

	// A caller that goes away takes its query with it.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- call(ctx, api.VerbSQL, api.SQLRequest{Query: costly, NoSync: true}) }()
	for t0 := time.Now(); s.Running() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(t0) > 30*time.Second {
			t.Fatal("the query never started")
		}
	}
	cancel()
	if err := <-errc; api.CodeOf(err) != projector.CodeUnavailable {
		t.Fatalf("a query whose caller left: %v", err)
	}
	waitIdle(t, s, 10*time.Second, "caller gone")
}
