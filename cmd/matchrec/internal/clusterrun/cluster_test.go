//go:build cluster

package clusterrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/natsbus"
)

// The multi-process test (make test-cluster): a 3-node NATS cluster
// configured by docs/cluster.md and three recorder processes; many
// matches played concurrently through all of them while one recorder is
// killed with SIGKILL and restarted and, separately, the stream's leader
// node is stopped and restarted. At the end every acknowledged event is in
// every recorder's store and exactly once on the stream, without gaps,
// with equal heads, and every match audits CLEAN.
func TestClusterSurvivesKills(t *testing.T) {
	const matches = 24
	root := t.TempDir()
	bin := filepath.Join(root, "matchrec")
	build := exec.Command("go", "build", "-o", bin, "github.com/matchrec/matchrec/cmd/matchrec")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build matchrec: %v\n%s", err, out)
	}
	c, err := natscluster.Start(t.TempDir(), "../../../../docs/cluster.md", 3, natscluster.Passwords{Recorder: "rec-pw", Client: "client-pw", Viewer: "viewer-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	logf, err := os.Create(filepath.Join(root, "recorders.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	var recs []*Recorder
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(root, fmt.Sprintf("rec%d", i+1))
		r := NewRecorder(bin, fmt.Sprintf("rec%d", i+1), dir, c.URLs(), c.Pw.Recorder, logf)
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer r.Kill()
		recs, dirs = append(recs, r), append(dirs, dir)
	}

	nc, err := c.Connect("client")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	client := &natsbus.Client{Conn: nc, Timeout: 2 * time.Second}
	sc, err := script.Read("../../../../examples/6e-grot-wood-assault.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tally := NewTally()
	began := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, matches)
	for i := range matches {
		wg.Go(func() {
			if err := Play(ctx, client, fmt.Sprintf("m%02d", i), sc, tally); err != nil {
				errs <- err
			}
		})
	}

	// The chaos, at moments set by progress.
	total := matches * (len(sc.Steps) + 2)
	waitAcks := func(frac float64) {
		for tally.Count() < int(frac*float64(total)) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	chaos := make(chan struct{})
	go func() {
		defer close(chaos)
		waitAcks(0.25)
		killed := time.Now()
		recs[0].Kill()
		t.Logf("killed %s with SIGKILL at %d acked events (%s)", recs[0].Name, tally.Count(), killed.Sub(began).Round(time.Millisecond))
		time.Sleep(time.Second)
		if err := recs[0].Start(ctx); err != nil {
			errs <- err
			return
		}
		t.Logf("%s restarted after %s", recs[0].Name, time.Since(killed).Round(time.Millisecond))

		waitAcks(0.55)
		js, _ := jetstream.New(nc)
		leader := c.Leader(ctx, js, natsbus.StreamName)
		if leader < 0 {
			errs <- fmt.Errorf("no stream leader")
			return
		}
		c.Stop(leader)
		stopped := time.Now()
		t.Logf("stopped NATS node n%d, the stream's leader, at %d acked events (%s)", leader+1, tally.Count(), stopped.Sub(began).Round(time.Millisecond))
		time.Sleep(2 * time.Second)
		if err := c.Restart(leader); err != nil {
			errs <- err
			return
		}
		t.Logf("NATS node n%d restarted after %s", leader+1, time.Since(stopped).Round(time.Millisecond))
	}()
	wg.Wait()
	played := time.Now()
	<-chaos
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, r := range recs {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	}
	t.Logf("played in %s; recorders stopped after %s", played.Sub(began).Round(time.Millisecond), time.Since(played).Round(time.Millisecond))
	rc, err := c.Connect("recorder") // the check reads the stream as an operator would
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	js, _ := jetstream.New(rc)
	rep, err := Check(ctx, js, dirs, tally)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", rep.Summary())
	t.Logf("retries %d, longest step %s (the failover), %d steps over 1s", tally.Retries, tally.MaxStep.Round(time.Millisecond), len(tally.Stalls))
	stalls := tally.Stalls
	sort.Slice(stalls, func(i, j int) bool { return stalls[i].Took > stalls[j].Took })
	for _, st := range stalls[:min(5, len(stalls))] {
		t.Logf("stall: a step begun at %s took %s", st.At.Sub(began).Round(time.Millisecond), st.Took.Round(time.Millisecond))
	}
	if !rep.OK() {
		t.Fatal("the cluster lost, doubled or split events")
	}
	if rep.Matches != matches {
		t.Fatalf("%d matches tallied, want %d", rep.Matches, matches)
	}
}
