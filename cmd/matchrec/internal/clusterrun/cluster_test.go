//go:build cluster

package clusterrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/natsbus"
)

const clusterDoc = "../../../../docs/cluster.md"

// binaries builds matchrec and nats-server once for the package's tests.
var binaries = sync.OnceValues(func() ([2]string, error) {
	dir, err := os.MkdirTemp("", "matchrec-cluster-bin-")
	if err != nil {
		return [2]string{}, err
	}
	bin := filepath.Join(dir, "matchrec")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/matchrec/matchrec/cmd/matchrec").CombinedOutput(); err != nil {
		return [2]string{}, fmt.Errorf("build matchrec: %v\n%s", err, out)
	}
	ns, err := natscluster.BuildServer(context.Background(), dir)
	return [2]string{bin, ns}, err
})

// startRig starts nodes as processes and k recorders for t.
func startRig(t *testing.T, ctx context.Context, k int) *Rig {
	t.Helper()
	bins, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	logf := recordersLog(t, root)
	r, err := StartRig(ctx, RigConfig{Bin: bins[0], NATSBin: bins[1], Doc: clusterDoc, Dir: root, Recorders: k, Log: logf,
		Passwords: natscluster.Passwords{Recorder: "rec-pw", Client: "client-pw", Viewer: "viewer-pw", Venue: "venue-pw"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// recordersLog is the recorders' log file under root, shown (its end)
// when t fails.
func recordersLog(t *testing.T, root string) *os.File {
	t.Helper()
	logf, err := os.Create(filepath.Join(root, "recorders.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				t.Logf("recorders' log, the venue watches' lines:\n%s", grepLines(b, `"component":"venues"`))
				t.Logf("recorders' log (last 8 kB):\n%s", tail(b, 8<<10))
			}
		}
		// MATCHREC_KEEP_LOG=file keeps the log of a green run too.
		if keep := os.Getenv("MATCHREC_KEEP_LOG"); keep != "" {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				_ = os.WriteFile(keep, b, 0o644)
			}
		}
	})
	return logf
}

// grepLines is b's lines that contain s.
func grepLines(b []byte, s string) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(line, []byte(s)) {
			out = append(out, line...)
		}
	}
	return out
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// The multi-process test (make test-cluster): a 3-node NATS cluster of
// nats-server processes configured by docs/cluster.md and three recorder
// processes, each connected to its own node first (checked); many
// matches played concurrently through all of them while one recorder is
// killed with SIGKILL and restarted, the stream's leader node is stopped
// and restarted, and a node is hung with SIGSTOP (its connections stay
// open, nothing answers): recorders notice it within seconds and move
// their connections, and commands go on. Every command's answer is one of
// recorded, replayed, a refusal of the rules, stale_head or unavailable —
// never a raw conflict. At the end every acknowledged event is in every
// recorder's store and exactly once on the stream, without gaps, with
// equal heads, and every match audits CLEAN.
func TestClusterSurvivesKills(t *testing.T) {
	const nTables = 24 // each plays match after match until the chaos is over
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	rig := startRig(t, ctx, 3)
	c, recs := rig.Cluster, rig.Recorders

	// Each recorder is on its own node, as its list asked.
	if n, ok := rig.WaitConns(ctx, 20*time.Second, func(n []int) bool { return slices.Equal(n, []int{1, 1, 1}) }); !ok {
		t.Fatalf("recorders' API connections per node: %v, want one on each", n)
	}
	sc, err := script.Read("../../../../examples/6e-grot-wood-assault.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tally := NewTally()
	began := time.Now()
	errs := make(chan error, 4)
	stop := make(chan struct{}) // the chaos is over: finish the matches in play
	tables := PlayTables(ctx, rig.Client, nTables, func(i, r int) string { return fmt.Sprintf("m%02d-%d", i, r) }, sc, tally, stop)
	played := tables.Done()

	// The chaos, at moments set by progress: each phase begins after some
	// more events, and ends once commands were recorded through it.
	at := func(more int) bool { return tally.WaitCount(ctx, tally.Count()+more, played) }
	var failover struct{ recorder, leader, hung, hungConns time.Duration }
	// When each failure began, and when the cluster was back to normal
	// after it (the failover time is the longest command in between).
	var marks []time.Time
	settle := func() {
		tally.WaitSettled(ctx, 3*nTables, played)
		marks = append(marks, time.Now())
	}
	chaos := make(chan struct{})
	go func() {
		defer close(chaos)
		defer close(stop)
		if !at(300) {
			errs <- fmt.Errorf("the plays ended before the chaos")
			return
		}
		killed := time.Now()
		marks = append(marks, killed)
		recs[0].Kill()
		t.Logf("killed %s with SIGKILL at %d acked events (%s)", recs[0].Name, tally.Count(), killed.Sub(began).Round(time.Millisecond))
		tally.WaitCount(ctx, tally.Count()+20, played) // commands go on without it
		if err := recs[0].Start(ctx); err != nil {
			errs <- err
			return
		}
		t.Logf("%s restarted after %s", recs[0].Name, time.Since(killed).Round(time.Millisecond))
		settle()

		at(200)
		rc, err := c.Connect("recorder")
		if err != nil {
			errs <- err
			return
		}
		defer rc.Close()
		js, _ := jetstream.New(rc)
		leader := c.Leader(ctx, js, natsbus.StreamName)
		if leader < 0 {
			errs <- fmt.Errorf("no stream leader")
			return
		}
		stopped := time.Now()
		marks = append(marks, stopped)
		c.Stop(leader)
		t.Logf("stopped NATS node n%d, the stream's leader, at %d acked events (%s)", leader+1, tally.Count(), stopped.Sub(began).Round(time.Millisecond))
		tally.WaitCount(ctx, tally.Count()+20, played)
		if err := c.Restart(leader); err != nil {
			errs <- err
			return
		}
		t.Logf("NATS node n%d restarted after %s", leader+1, time.Since(stopped).Round(time.Millisecond))
		settle()

		// A node that stops answering: the one leading the stream now.
		at(200)
		hung := c.Leader(ctx, js, natsbus.StreamName)
		if hung < 0 {
			hung = 0
		}
		if _, ok := rig.WaitConns(ctx, 30*time.Second, func(n []int) bool { return n[hung] > 0 }); !ok {
			// The recorders' connections may all have left the node when
			// it was stopped; move one back so the hang catches one.
			t.Logf("no recorder connection on n%d before the hang: %v", hung+1, rig.APIConns())
		}
		before := rig.APIConns()
		if err := c.Hang(hung); err != nil {
			errs <- err
			return
		}
		frozen, count := time.Now(), tally.Count()
		marks = append(marks, frozen)
		t.Logf("hung NATS node n%d (SIGSTOP) at %d acked events (%s); recorders' connections per node %v", hung+1, count, frozen.Sub(began).Round(time.Millisecond), before)
		// Commands go on, and every recorder connection leaves the node.
		wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
		recorded := tally.WaitCount(wctx, count+20, played)
		wcancel()
		if !recorded {
			errs <- fmt.Errorf("no command was recorded in the 60s after n%d was hung", hung+1)
		}
		resumed := time.Since(frozen)
		n, ok := rig.WaitConns(ctx, 60*time.Second, func(n []int) bool {
			live := 0
			for i, k := range n {
				if i != hung && k > 0 {
					live += k
				}
			}
			return live == len(recs)
		})
		if !ok {
			errs <- fmt.Errorf("the recorders' connections did not leave the hung node n%d: %v", hung+1, n)
		}
		failover.hungConns = time.Since(frozen)
		t.Logf("with n%d hung: commands recorded again after %s; every recorder connected elsewhere after %s (%v)",
			hung+1, resumed.Round(time.Millisecond), failover.hungConns.Round(time.Millisecond), n)
		if err := c.Resume(hung); err != nil {
			errs <- err
		}
		settle()
	}()
	<-played
	done := time.Now()
	<-chaos
	if err := tables.Err(); err != nil {
		t.Error(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("played in %s; answers %v", done.Sub(began).Round(time.Millisecond), tally.Answers)
	if len(marks) == 6 {
		failover.recorder = tally.Longest(marks[0], marks[1])
		failover.leader = tally.Longest(marks[2], marks[3])
		failover.hung = tally.Longest(marks[4], marks[5])
	}
	t.Logf("failover (longest command): recorder kill %s, leader node stop %s, hung node %s (connections moved in %s)",
		failover.recorder.Round(time.Millisecond), failover.leader.Round(time.Millisecond), failover.hung.Round(time.Millisecond), failover.hungConns.Round(time.Millisecond))
	if n := tally.Unexpected(); n > 0 {
		t.Errorf("%d commands were answered conflict or internal: %v", n, tally.Answers)
	}

	// The CLI plays a script through all three recorders, every time.
	playCLI(t, ctx, rig, 10)

	if err := rig.StopRecorders(); err != nil {
		t.Error(err)
	}
	rc, err := c.Connect("recorder") // the check reads the stream as an operator would
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	js, _ := jetstream.New(rc)
	rep, err := Check(ctx, js, rig.Dirs(), tally)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", rep.Summary())
	t.Logf("retries %d, %d steps over 1s", tally.Retries, len(tally.Stalls))
	stalls := tally.Stalls
	sort.Slice(stalls, func(i, j int) bool { return stalls[i].Took > stalls[j].Took })
	for _, st := range stalls[:min(5, len(stalls))] {
		t.Logf("stall: a step begun at %s took %s", st.At.Sub(began).Round(time.Millisecond), st.Took.Round(time.Millisecond))
	}
	if !rep.OK() {
		t.Fatal("the cluster lost, doubled or split events")
	}
	if rep.Matches < nTables {
		t.Fatalf("%d matches tallied, want at least %d", rep.Matches, nTables)
	}
}

// playCLI plays examples/3e-boltguns-vs-boyz.yaml with the matchrec CLI
// against the rig's recorders n times: every play must pass (its next
// step is decided on a state that holds its last one, whichever recorder
// answers), with no warning that another recorder answered.
func playCLI(t *testing.T, ctx context.Context, rig *Rig, n int) {
	t.Helper()
	bins, _ := binaries()
	dir := t.TempDir()
	for i := range n {
		cmd := exec.CommandContext(ctx, bins[0], "--data", filepath.Join(dir, "data"), "--receipts", filepath.Join(dir, "receipts"),
			"--server", rig.Cluster.URLs(), "--nats-user", "client", "play", "../../../../examples/3e-boltguns-vs-boyz.yaml")
		cmd.Env = append(os.Environ(), "MATCHREC_NATS_PASSWORD="+rig.Cluster.Pw.Client)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("play %d of %d through %d recorders: %v\n%s", i+1, n, len(rig.Recorders), err, stderr.String())
		}
		if strings.Contains(stderr.String(), "another recorder") {
			t.Fatalf("play %d warned of another recorder:\n%s", i+1, stderr.String())
		}
	}
	t.Logf("the CLI played examples/3e-boltguns-vs-boyz.yaml %d times through %d recorders", n, len(rig.Recorders))
}
