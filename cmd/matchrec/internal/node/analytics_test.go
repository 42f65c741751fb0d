package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/duckdb"
	"github.com/matchrec/matchrec/store/natsbus"
)

// sqlNoSync asks the node's tables as they stand, without a catch-up.
func sqlNoSync(t *testing.T, c *natsbus.Client, q string) []any {
	t.Helper()
	var res duckdb.Result
	if err := c.Call(context.Background(), VerbSQL, SQLRequest{Query: q, NoSync: true}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(res.Rows))
	}
	return res.Rows[0]
}

// A serving node keeps the analytic tables current as events arrive:
// without any sync call, the tables catch up with what was recorded; a
// remote client then queries them over the API.
func TestServingNodeKeepsTablesCurrent(t *testing.T) {
	n := startServing(t, t.TempDir())
	c := remote(t, n)
	ctx := context.Background()
	res, err := generate.Run(ctx, generate.Direct{Recorder: n.Recorder()}, editions.Lookup,
		generate.Options{Edition: "3e", Matches: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		row := sqlNoSync(t, c, `SELECT count(*), coalesce(sum(events), 0) FROM matches`)
		if row[0].(float64) == 4 && uint64(row[1].(float64)) == res.Events {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tables hold %v matches / %v events, store %d / %d", row[0], row[1], len(res.Matches), res.Events)
		}
		time.Sleep(50 * time.Millisecond)
	}
	row := sqlNoSync(t, c, `SELECT count(*) FROM rolls`)
	if row[0].(float64) == 0 {
		t.Fatal("no rolls in the tables")
	}
	var bad *api.Error
	err = c.Call(ctx, VerbSQL, SQLRequest{Query: "DROP TABLE rolls"}, nil)
	if !errors.As(err, &bad) || bad.Code != projector.CodeBadQuery {
		t.Fatalf("DROP TABLE over the API: %v, want %s", err, projector.CodeBadQuery)
	}
	err = c.Call(ctx, VerbSQL, SQLRequest{Query: "SELECT * FROM read_csv('/etc/passwd')"}, nil)
	if !errors.As(err, &bad) || bad.Code != projector.CodeBadQuery {
		t.Fatalf("reading a file through SQL: %v, want %s", err, projector.CodeBadQuery)
	}
}

// A query string with several statements is refused before any runs: the
// driver would otherwise execute all but the last while preparing.
func TestSQLRunsNoStatementBeforeTheQuery(t *testing.T) {
	n := startServing(t, t.TempDir())
	c := remote(t, n)
	ctx := context.Background()
	if _, err := generate.Run(ctx, generate.Direct{Recorder: n.Recorder()}, editions.Lookup,
		generate.Options{Edition: "3e", Matches: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	before := sqlCount(t, c)
	var bad *api.Error
	err := c.Call(ctx, VerbSQL, SQLRequest{Query: "DELETE FROM rolls; SELECT 1"}, nil)
	if !errors.As(err, &bad) || bad.Code != projector.CodeBadQuery {
		t.Fatalf("two statements: %v, want %s", err, projector.CodeBadQuery)
	}
	if after := sqlCount(t, c); after != before || before == 0 {
		t.Fatalf("rolls %v before, %v after a refused query", before, after)
	}
}

func sqlCount(t *testing.T, c *natsbus.Client) float64 {
	t.Helper()
	var res duckdb.Result
	if err := c.Call(context.Background(), VerbSQL, SQLRequest{Query: "SELECT count(*) FROM rolls"}, &res); err != nil {
		t.Fatal(err)
	}
	return res.Rows[0][0].(float64)
}
