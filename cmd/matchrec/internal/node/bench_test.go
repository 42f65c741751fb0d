package node

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// BenchmarkDeclareRoundTrip measures one command from a client on its own
// TCP connection: request over NATS, decide, durable bbolt append (fsync),
// fold, reply. A model steps back and forth, a command that is valid
// forever.
func BenchmarkDeclareRoundTrip(b *testing.B) {
	n := startServing(b, b.TempDir())
	sc := readScript(b, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	c := remote(b, n)
	ctx := context.Background()
	var created api.CreateResult
	if err := c.Call(ctx, api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &created); err != nil {
		b.Fatal(err)
	}
	alice := created.Tokens[api.RolePlayer("alice")]
	if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: created.Match, Token: alice, Command: &projector.Command{Type: projector.CmdNextTurn}}, nil); err != nil {
		b.Fatal(err)
	}
	xs := [2]float64{9, 8}
	y := 32.0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cmd := projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-1", X: &xs[i%2], Y: &y}
		if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: created.Match, Token: alice, Command: &cmd}, nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
