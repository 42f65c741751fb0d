package node

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// An outage of the NATS server longer than a client's default reconnect
// budget (60 attempts: two minutes at the default 2 s wait, which is what
// left `serve` answering nothing for good after 150 s) ends like a short
// one: every connection of the node comes back. The waits are shortened so
// the test lasts seconds; a control connection with nats.go's default
// budget and the same wait proves the outage outlasted that budget.
func TestLongOutageRecovers(t *testing.T) {
	dir := t.TempDir()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir}
	srv := standalone(t, opts)
	url, port := srv.ClientURL(), srv.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: url,
		Reconnect: natsbus.Reconnect{Wait: 10 * time.Millisecond, MaxWait: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	control, err := nats.Connect(url, nats.ReconnectWait(10*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer control.Close()

	c := &natsbus.Client{Conn: mustConnect(t, url), Timeout: 5 * time.Second}
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	m, _ := play(t, c, sc, 1)
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}

	srv.Shutdown()
	srv.WaitForShutdown()
	deadline := time.Now().Add(20 * time.Second)
	for !control.IsClosed() {
		if time.Now().After(deadline) {
			t.Fatal("the control connection never gave up: the outage is not longer than the default budget")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The store is the truth: what the recorder decides meanwhile is
	// recorded, and waits for the bus.
	res, err := n.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer("alice")], projector.Command{Type: projector.CmdPhase, Phase: "shooting"})
	if err != nil {
		t.Fatalf("recording during the outage: %v", err)
	}
	time.Sleep(time.Second) // well past the budget
	if lag := n.Relay().Lag(); lag == "" {
		t.Error("the relay does not say the bus is behind")
	}

	restart := *opts
	restart.Port = port
	srv = standalone(t, &restart)
	var ping api.PingResult
	c2 := &natsbus.Client{Conn: mustConnect(t, url), Timeout: 5 * time.Second}
	deadline = time.Now().Add(20 * time.Second)
	for c2.Call(ctx, api.VerbPing, nil, &ping) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the recorder's API never came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c2.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer("alice")],
		Command: &projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"}}, nil); err != nil {
		t.Fatalf("a command after the outage: %v", err)
	}
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	var bc api.BusCheckResult
	if err := c2.Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: m.Match}, &bc); err != nil || !bc.Equal || bc.Checked != res.Events[len(res.Events)-1].Seq+1 {
		t.Fatalf("buscheck after the outage: %+v %v", bc, err)
	}
	if lag := n.Relay().Lag(); lag != "" {
		t.Errorf("still lagging: %s", lag)
	}
	if !n.nc.IsConnected() {
		t.Error("the API's own connection did not come back")
	}
}

func mustConnect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// A recorder restarted on a NATS server that lost its store (its
// directory emptied) re-creates the stream and republishes every match
// from the store, in order, each event signed; nothing is flagged.
func TestLostStreamIsBackfilledOnRestart(t *testing.T) {
	dir := t.TempDir()
	n := serveWith(t, Config{DataDir: dir})
	a := playSome(t, n, 3)
	b := playSome(t, n, 1)
	ha, _ := n.store.Head(context.Background(), a.Match)
	hb, _ := n.store.Head(context.Background(), b.Match)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, NATSDir)); err != nil {
		t.Fatal(err)
	}

	n = serveWith(t, Config{DataDir: dir})
	if err := n.Relay().Drained(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := n.Relay().Stats(); s.Backfilled != ha.Seq+hb.Seq || len(n.Relay().AllDiffers()) != 0 {
		t.Fatalf("relay %+v, findings %v; want %d backfilled, none", s, n.Relay().AllDiffers(), ha.Seq+hb.Seq)
	}
	v := attack(t, n, natsbus.RoleViewer)
	js, _ := jetstream.New(v.nc)
	startFollowing(t, js, a.Match, &natsbus.SignatureCheck{Key: n.Identity()}).wantSeqs(t, 1, ha.Seq)
	startFollowing(t, js, b.Match, &natsbus.SignatureCheck{Key: n.Identity()}).wantSeqs(t, 1, hb.Seq)
}
