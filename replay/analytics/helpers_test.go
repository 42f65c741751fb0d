package analytics_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/duckdb"
	"github.com/matchrec/matchrec/store/recorder"
)

// env is a bbolt store, a recorder on it and an analytics database.
type env struct {
	st  *bolt.Store
	rec *recorder.Recorder
	db  *duckdb.DB
	up  *analytics.Updater
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "events.db"), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	db, err := duckdb.Open(context.Background(), filepath.Join(dir, "analytics.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	return &env{st: st, rec: rec, db: db, up: &analytics.Updater{Store: st, Lookup: editions.Lookup, Sink: db}}
}

func (e *env) generate(t testing.TB, edition string, n int, seed uint64) generate.Result {
	t.Helper()
	res, err := generate.Run(context.Background(), generate.Direct{Recorder: e.rec}, editions.Lookup,
		generate.Options{Edition: edition, Matches: n, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (e *env) catchUp(t testing.TB) analytics.Stats {
	t.Helper()
	st, err := e.up.CatchUp(context.Background(), analytics.Round{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestExplore(t *testing.T) {
	e := newEnv(t)
	for _, ed := range []string{"3e", "6e", "11e"} {
		start := time.Now()
		res := e.generate(t, ed, 20, 1)
		t.Logf("%s: %d matches, %d events in %s", ed, len(res.Matches), res.Events, time.Since(start))
	}
	start := time.Now()
	st := e.catchUp(t)
	t.Logf("catch up %+v in %s", st, time.Since(start))
	for _, q := range []string{"SELECT edition, source, count(*), avg(success::int), avg(p) FROM rolls GROUP BY ALL",
		"SELECT edition, count(*), sum(hits), sum(exp_hits), sum(unsaved), sum(exp_unsaved), sum(casualties), sum(exp_casualties) FROM attacks GROUP BY ALL",
		"SELECT purpose, count(*) FROM rolls GROUP BY ALL", "SELECT * FROM matches LIMIT 3"} {
		r, err := e.db.Query(context.Background(), q, 20)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s\n%v\n%v", q, r.Columns, r.Rows)
	}
}
