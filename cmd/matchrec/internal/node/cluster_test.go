package node

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/natsbus"
)

const clusterDoc = "../../../../docs/cluster.md"

// startNATSCluster starts a 3-node NATS cluster configured by
// docs/cluster.md, stopped at cleanup.
func startNATSCluster(t testing.TB) *natscluster.Cluster {
	t.Helper()
	c, err := natscluster.Start(t.TempDir(), clusterDoc, 3, natscluster.Passwords{Recorder: "r-" + t.Name(), Client: "c-" + t.Name(), Viewer: "v-" + t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// clusterRecorder opens a cluster recorder on dir.
func clusterRecorder(t testing.TB, c *natscluster.Cluster, dir string) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log := zerolog.Nop()
	if os.Getenv("MATCHREC_TEST_LOG") != "" {
		log = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Str("dir", filepath.Base(dir)).Logger()
	}
	n, err := Open(ctx, Config{DataDir: dir, NATSURL: c.URLs(), Cluster: true, NoSync: true, Log: log,
		NATSAuth: natsbus.Credentials{User: "recorder", Password: c.Pw.Recorder, InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)}})
	if err != nil {
		t.Fatalf("cluster recorder: %v", err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func clusterClient(t testing.TB, c *natscluster.Cluster) *natsbus.Client {
	t.Helper()
	nc, err := c.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return &natsbus.Client{Conn: nc, Timeout: 10 * time.Second}
}

// chain returns a match's events in a recorder's store.
func chain(t testing.TB, n *Node, match string) []events.Event {
	t.Helper()
	var out []events.Event
	if err := n.store.Scan(context.Background(), match, 0, func(e events.Event) error { out = append(out, e); return nil }); err != nil {
		t.Fatalf("scan %s: %v", match, err)
	}
	return out
}

// Two recorders share a 3-node cluster: a script played through the API's
// queue group lands on both; both stores end with the same chain, which
// audits clean; a third recorder with an empty data directory fills
// itself from the stream.
func TestClusterRecordersShareOneTruth(t *testing.T) {
	c := startNATSCluster(t)
	a := clusterRecorder(t, c, t.TempDir())
	b := clusterRecorder(t, c, t.TempDir())
	client := clusterClient(t, c)
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	m, _ := play(t, client, sc, -1)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, n := range []*Node{a, b} {
		if err := n.Cluster().CaughtUp(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ca, cb := chain(t, a, m.Match), chain(t, b, m.Match)
	if len(ca) < 5 || len(ca) != len(cb) || ca[len(ca)-1].Hash != cb[len(cb)-1].Hash {
		t.Fatalf("chains differ: %d and %d events", len(ca), len(cb))
	}
	sa, sb := a.Cluster().Stats(), b.Cluster().Stats()
	if sa.Appended == 0 || sb.Appended == 0 {
		t.Fatalf("the queue group did not spread the commands: %+v %+v", sa, sb)
	}
	if sa.Diverged+sb.Diverged != 0 {
		t.Fatalf("divergences: %+v %+v", sa, sb)
	}
	rep, err := replay.AuditStore(ctx, b.store, m.Match, editions.Lookup, nil)
	if err != nil || !rep.OK {
		t.Fatalf("audit: %+v %v", rep, err)
	}

	// A new recorder fills itself.
	fresh := clusterRecorder(t, c, t.TempDir())
	if cf := chain(t, fresh, m.Match); len(cf) != len(ca) || cf[len(cf)-1].Hash != ca[len(ca)-1].Hash {
		t.Fatalf("the new recorder has %d events, want %d", len(cf), len(ca))
	}
}
