package node

import (
	"context"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// sqlNoSync asks the node's tables as they stand, without a catch-up.
func sqlNoSync(t *testing.T, c *natsbus.Client, q string) []any {
	t.Helper()
	var res api.SQLResult
	if err := c.Call(context.Background(), api.VerbSQL, api.SQLRequest{Query: q, NoSync: true}, &res); err != nil {
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
}
