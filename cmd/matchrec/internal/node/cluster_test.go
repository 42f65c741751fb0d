package node

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
	"github.com/matchrec/matchrec/store/storetest"
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
	log := zerolog.Nop()
	if os.Getenv("MATCHREC_TEST_LOG") != "" {
		log = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Str("dir", filepath.Base(dir)).Logger()
	}
	return clusterRecorderLog(t, c, dir, log)
}

// clusterRecorderLog is clusterRecorder logging to log.
func clusterRecorderLog(t testing.TB, c *natscluster.Cluster, dir string, log zerolog.Logger) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
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
	var logs lockedBuffer
	log := zerolog.New(&logs).Level(zerolog.WarnLevel)
	a := clusterRecorderLog(t, c, t.TempDir(), log)
	b := clusterRecorderLog(t, c, t.TempDir(), log)
	client := clusterClient(t, c)
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	m, _ := play(t, client, sc, -1)
	// docs/cluster.md's permissions give the recorders everything they
	// use: the API, its cancellations, the stream and the buckets.
	if bytes.Contains(bytes.ToLower(logs.Bytes()), []byte("permissions violation")) {
		t.Fatalf("a recorder was refused something under docs/cluster.md's permissions:\n%s", logs.Bytes())
	}
	// The audit's look at the bus runs in a cluster too: the stream holds
	// the match as every store does.
	var bus api.BusCheckResult
	if err := client.Call(context.Background(), api.VerbBusCheck, api.BusCheckRequest{Match: m.Match}, &bus); err != nil || !bus.Equal || bus.Checked == 0 {
		t.Fatalf("buscheck in a cluster: %+v %v", bus, err)
	}

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
	// Each recorder's live state — its own commands folded on, and the
	// other's events folded onto it as its follower brought them — is
	// the fold of the match from its store.
	for _, n := range []*Node{a, b} {
		live, err := n.Recorder().Live(ctx, m.Match)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := fold.Fold(ctx, n.store, m.Match, 0, editions.Lookup)
		if err != nil {
			t.Fatal(err)
		}
		lh, _ := live.Hash()
		wh, _ := want.Hash()
		if lh != wh || live.Seq != want.Seq {
			t.Fatalf("a recorder's live state (event %d) is not the fold of its store (event %d)", live.Seq, want.Seq)
		}
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

	// The dice seeds are the recorders' only: a client can neither open
	// the bucket nor fetch a seed directly.
	cnc, err := c.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	defer cnc.Close()
	cjs, _ := jetstream.New(cnc)
	kctx, kcancel := context.WithTimeout(ctx, time.Second)
	if _, err := cjs.KeyValue(kctx, natsbus.SecretsBucket); err == nil {
		t.Fatal("a client opened the seeds' bucket")
	}
	kcancel()
	if msg, err := cnc.Request("$JS.API.DIRECT.GET.KV_"+natsbus.SecretsBucket+".$KV."+natsbus.SecretsBucket+"."+m.Match+".0", nil, time.Second); err == nil && len(msg.Data) > 0 && msg.Header.Get("Status") == "" {
		t.Fatal("a client read a dice seed")
	}

	// A new recorder fills itself.
	fresh := clusterRecorder(t, c, t.TempDir())
	if cf := chain(t, fresh, m.Match); len(cf) != len(ca) || cf[len(cf)-1].Hash != ca[len(ca)-1].Hash {
		t.Fatalf("the new recorder has %d events, want %d", len(cf), len(ca))
	}
}

// Two recorders decide the same step of a script on the same head at the
// same time, round after round: JetStream takes one append and refuses the
// other, whose recorder catches up and decides again on the new head (where
// the rules refuse the step a second time, or take it) — the match never
// forks, both stores hold one chain.
func TestClusterRacingRecordersNeverFork(t *testing.T) {
	c := startNATSCluster(t)
	a := clusterRecorder(t, c, t.TempDir())
	b := clusterRecorder(t, c, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sc := readScript(t, filepath.Join(examplesDir, "6e-grot-wood-assault.yaml"))
	m, err := a.Recorder().Create(ctx, api.CreateRequest{MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for i, st := range sc.Steps[:12] {
		if err := b.Cluster().WaitHead(ctx, m.Match, m.Seq+uint64(recorded)); err != nil {
			t.Fatal(err)
		}
		role := api.RolePlayer(st.As)
		var wg sync.WaitGroup
		res := make([]api.Result, 2)
		errs := make([]error, 2)
		for k, n := range []*Node{a, b} {
			wg.Go(func() { res[k], errs[k] = n.Recorder().Execute(ctx, m.Match, m.Tokens[role], st.Cmd) })
		}
		wg.Wait()
		for k, err := range errs {
			if err == nil {
				recorded += len(res[k].Events)
			} else if _, refused := projector.AsRefusal(err); !refused {
				t.Fatalf("%s on recorder %d: %v", st.Where(i), k, err)
			}
		}
	}
	for _, n := range []*Node{a, b} {
		if err := n.Cluster().CaughtUp(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ca, cb := chain(t, a, m.Match), chain(t, b, m.Match)
	if len(ca) != len(cb) || len(ca) != int(m.Seq)+recorded {
		t.Fatalf("chains of %d and %d events, want %d", len(ca), len(cb), int(m.Seq)+recorded)
	}
	for i := range ca {
		if ca[i].Hash != cb[i].Hash || ca[i].Seq != uint64(i+1) {
			t.Fatalf("the chains part at event %d", i+1)
		}
	}
	t.Logf("appends refused in the racing rounds: %d", a.Cluster().Stats().Conflicts+b.Cluster().Stats().Conflicts)
	// However the rounds interleaved, one race for certain: b appends to
	// a match on the head a has just moved past. The stream refuses it (or
	// b's store, if its follower was quicker), and nothing forks.
	mine := storetest.MakeEvents("race", 1, events.Hash{}, 1)
	if err := a.Cluster().Append(ctx, "race", 0, mine, nil, nil); err != nil {
		t.Fatal(err)
	}
	theirs := storetest.MakeEvents("race", 1, events.Hash{}, 1)
	theirs[0].Time++ // another event at the same place
	theirs[0].Hash = events.ComputeHash(theirs[0])
	if err := b.Cluster().Append(ctx, "race", 0, theirs, nil, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("an append on a stale head: %v, want a conflict", err)
	}
	if b.Cluster().Stats().Conflicts == 0 {
		t.Fatal("the refused append was not counted")
	}
	for _, n := range []*Node{a, b} {
		if err := n.Cluster().CaughtUp(ctx); err != nil {
			t.Fatal(err)
		}
		if rc := chain(t, n, "race"); len(rc) != 1 || rc[0].Hash != mine[0].Hash {
			t.Fatalf("after the race a store holds %d events of it, not the winner's one", len(rc))
		}
	}
	rep, err := replay.AuditStore(ctx, a.store, m.Match, editions.Lookup, nil)
	if err != nil || !rep.OK {
		t.Fatalf("audit: %+v %v", rep, err)
	}
}

// A cluster that loses its quorum (2 of 3 nodes down) refuses commands
// fast with unavailable and records nothing in the recorder's store. An
// unavailable command may still reach the stream when the quorum returns
// (the surviving node had it in its log): resent with its request id it is
// then answered from the index, so it is in the chain exactly once; and
// recording resumes by itself.
func TestClusterQuorumLossIsUnavailable(t *testing.T) {
	c := startNATSCluster(t)
	a := clusterRecorder(t, c, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sc := readScript(t, filepath.Join(examplesDir, "6e-grot-wood-assault.yaml"))
	m, err := a.Recorder().Create(ctx, api.CreateRequest{MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	head, err := a.store.Head(ctx, m.Match)
	if err != nil {
		t.Fatal(err)
	}
	st := sc.Steps[0]
	req := api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer(st.As)], Command: &st.Cmd,
		RequestID: "0123456789abcdef0123456789abcdef", Head: &head}
	c.Stop(1)
	c.Stop(2)
	start := time.Now()
	_, err = a.Recorder().Submit(ctx, req)
	if api.CodeOf(err) != projector.CodeUnavailable {
		t.Fatalf("without a quorum: %v, want unavailable", err)
	}
	took := time.Since(start)
	if took > 10*time.Second {
		t.Fatalf("unavailable after %s: not fast", took)
	}
	t.Logf("without a quorum: unavailable after %s", took.Round(time.Millisecond))
	if h, _ := a.store.Head(ctx, m.Match); h != head {
		t.Fatalf("the store moved to %d without a quorum", h.Seq)
	}
	for _, i := range []int{1, 2} {
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	back := time.Now()
	deadline := back.Add(30 * time.Second)
	var res api.Result
	for {
		res, err = a.Recorder().Submit(ctx, req)
		if err == nil {
			break
		}
		// Resent, as a client does, while the cluster or this recorder's
		// copy is still catching up.
		if code := api.CodeOf(err); (code != projector.CodeUnavailable && code != projector.CodeConflict) || time.Now().After(deadline) {
			t.Fatalf("after the quorum returned: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("recording resumed %s after the nodes restarted (the first attempt recorded after all: %v)", time.Since(back).Round(time.Millisecond), res.Replayed)
	if err := a.Cluster().CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	evs := chain(t, a, m.Match)
	if last := res.Events[len(res.Events)-1]; len(evs) != int(last.Seq) || evs[len(evs)-1].Hash != last.Hash {
		t.Fatalf("the chain has %d events, the command's last is %d", len(evs), last.Seq)
	}
	next := sc.Steps[1]
	if _, err := a.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer(next.As)], next.Cmd); err != nil {
		t.Fatalf("the next command: %v", err)
	}
}

// A recorder pointed at a server without JetStream, or with wrong
// credentials, refuses to start with a clear error and writes nothing.
func TestClusterBadConfigsRefuseToStart(t *testing.T) {
	noJS := standalone(t, &server.Options{Port: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	_, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: noJS.ClientURL(), Cluster: true})
	if err == nil || !strings.Contains(err.Error(), "JetStream") {
		t.Fatalf("a server without JetStream: %v", err)
	}
	c := startNATSCluster(t)
	_, err = Open(ctx, Config{DataDir: t.TempDir(), NATSURL: c.URLs(), Cluster: true,
		NATSAuth: natsbus.Credentials{User: "recorder", Password: "wrong"}})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("wrong credentials: %v", err)
	}
	nc, err := c.Connect("recorder")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.Stream(ctx, natsbus.StreamName); err == nil {
		t.Fatal("a refused recorder created the stream")
	}
}

// A single-machine data directory moves into a cluster with --migrate:
// its recorder first ran on the cluster's servers alone (a single stream,
// one replica); migrated, the stream is the cluster's with 3 replicas, the
// match goes on, and a new cluster recorder has every event.
func TestClusterMigrateASingleDataDirectory(t *testing.T) {
	c := startNATSCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	creds := natsbus.Credentials{User: "recorder", Password: c.Pw.Recorder, InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)}
	single, err := Open(ctx, Config{DataDir: dir, NATSURL: c.URLs(), NATSAuth: creds, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	sc := readScript(t, filepath.Join(examplesDir, "6e-grot-wood-assault.yaml"))
	m, err := single.Recorder().Create(ctx, api.CreateRequest{MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sc.Steps[:3] {
		if _, err := single.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer(st.As)], st.Cmd); err != nil {
			t.Fatal(err)
		}
	}
	// A branch of the single store: the migration carries it over.
	alice := m.Tokens[api.RolePlayer("alice")]
	if _, err := single.Recorder().Branch(ctx, api.BranchRequest{Parent: m.Match, At: 3, Match: "what-if", Token: alice}); err != nil {
		t.Fatal(err)
	}
	if err := single.Close(); err != nil {
		t.Fatal(err)
	}
	// A cluster recorder refuses the single stream without --migrate.
	if _, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: c.URLs(), NATSAuth: creds, Cluster: true}); !errors.Is(err, natsbus.ErrModeMismatch) {
		t.Fatalf("cluster recorder on a single stream: %v", err)
	}

	migrated, err := Open(ctx, Config{DataDir: dir, NATSURL: c.URLs(), NATSAuth: creds, Cluster: true, Migrate: true, NoSync: true})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	defer migrated.Close()
	nc, err := c.Connect("recorder")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	s, err := js.Stream(ctx, natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := s.CachedInfo().Config; cfg.Replicas != 3 || cfg.Metadata[natsbus.MetaMode] != string(natsbus.ModeCluster) {
		t.Fatalf("after the migration: %d replicas, mode %q", cfg.Replicas, cfg.Metadata[natsbus.MetaMode])
	}
	st := sc.Steps[3]
	if st.ExpectRefusal != "" {
		st = sc.Steps[4]
	}
	if _, err := migrated.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer(st.As)], st.Cmd); err != nil {
		t.Fatalf("the match after the migration: %v", err)
	}
	fresh := clusterRecorder(t, c, t.TempDir())
	if err := migrated.Cluster().CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Cluster().WaitHead(ctx, m.Match, uint64(len(chain(t, migrated, m.Match)))); err != nil {
		t.Fatal(err)
	}
	cm, cf := chain(t, migrated, m.Match), chain(t, fresh, m.Match)
	if len(cm) != len(cf) || cm[len(cm)-1].Hash != cf[len(cf)-1].Hash {
		t.Fatalf("the new recorder has %d events, the migrated one %d", len(cf), len(cm))
	}
	if st := migrated.Cluster().Stats(); st.Diverged != 0 {
		t.Fatalf("divergences after the migration: %+v", st)
	}
	// The branch is carried over: the new recorder has it, a pointer into
	// the parent's events; and a branch made on the cluster reaches both.
	if err := fresh.Cluster().WaitHead(ctx, "what-if", 5); err != nil {
		t.Fatal(err)
	}
	onCluster, err := fresh.Recorder().Branch(ctx, api.BranchRequest{Parent: m.Match, At: 4, Match: "what-if-2", Token: alice})
	if err != nil {
		t.Fatalf("a branch on the cluster: %v", err)
	}
	if err := migrated.Cluster().WaitHead(ctx, "what-if-2", onCluster.Seq); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"what-if", "what-if-2"} {
		bm, bf := chain(t, migrated, id), chain(t, fresh, id)
		if len(bm) == 0 || len(bm) != len(bf) || bm[len(bm)-1].Hash != bf[len(bf)-1].Hash {
			t.Fatalf("branch %s: %d events on one recorder, %d on the other", id, len(bm), len(bf))
		}
		lin, err := fresh.store.Lineage(ctx, id)
		if err != nil || len(lin) != 2 || lin[0].Match != m.Match {
			t.Fatalf("branch %s's lineage on the new recorder: %v %v", id, lin, err)
		}
		for _, n := range []*Node{migrated, fresh} {
			if rep, err := replay.AuditStore(ctx, n.store, id, editions.Lookup, nil); err != nil || !rep.OK {
				t.Fatalf("branch %s audits %s (%v)", id, rep.Verdict, err)
			}
		}
	}
	if st := fresh.Cluster().Stats(); st.Diverged != 0 {
		t.Fatalf("divergences on the new recorder: %+v", st)
	}
	// The migrated directory is a cluster recorder's copy now: a
	// single-machine recorder (a CLI command without serve) refuses it.
	if err := migrated.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := Open(ctx, Config{DataDir: dir, InProcess: true}); !errors.Is(err, natsbus.ErrModeMismatch) {
		if err == nil {
			n.Close()
		}
		t.Fatalf("single-machine recorder on a cluster copy: %v", err)
	}
}
