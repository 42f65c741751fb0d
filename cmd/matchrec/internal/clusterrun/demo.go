package clusterrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// DemoConfig configures Demo.
type DemoConfig struct {
	Bin      string   // the matchrec binary recorders run as
	Doc      string   // docs/cluster.md: the nodes' configuration
	Examples []string // scripts to play
	Out      io.Writer
	Keep     bool // keep the scratch directory
}

// DemoResult is the demo's summary.
type DemoResult struct {
	Report
	// RecorderFailover is the longest a command took while a recorder was
	// killed under it; NodeFailover the same while the stream's leader
	// node was down (both include the client's resends).
	RecorderFailover, NodeFailover time.Duration
	ReadsEqual                     bool
}

// Demo runs the cluster demo: 3 NATS nodes and 2 recorders in a scratch
// directory; the examples played through recorder 1; recorder 2 started
// empty (it fills itself from the stream); recorder 1 killed with SIGKILL
// while a match is played, and every match read through recorder 2; the
// stream's leader node stopped while a match is finished through the
// survivors; everything checked and audited.
func Demo(ctx context.Context, cfg DemoConfig) (DemoResult, error) {
	var res DemoResult
	say := func(format string, args ...any) { fmt.Fprintf(cfg.Out, format+"\n", args...) }
	dir, err := os.MkdirTemp("", "matchrec-cluster-demo-")
	if err != nil {
		return res, err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	c, err := natscluster.Start(dir, cfg.Doc, 3, natscluster.Passwords{Recorder: randomHex(16), Client: randomHex(16), Viewer: randomHex(16)})
	if err != nil {
		return res, err
	}
	defer c.Shutdown()
	say("3 NATS nodes (JetStream, routes, docs/cluster.md's configuration): %s", c.URLs())
	logf, err := os.Create(filepath.Join(dir, "recorders.log"))
	if err != nil {
		return res, err
	}
	defer logf.Close()
	recs := []*Recorder{
		NewRecorder(cfg.Bin, "recorder-1", filepath.Join(dir, "rec1"), c.URLs(), c.Pw.Recorder, logf),
		NewRecorder(cfg.Bin, "recorder-2", filepath.Join(dir, "rec2"), c.URLs(), c.Pw.Recorder, logf),
	}
	for _, r := range recs {
		defer r.Kill()
	}
	if err := recs[0].Start(ctx); err != nil {
		return res, err
	}
	say("recorder-1 serving (%s)", recs[0].Dir)
	nc, err := c.Connect("client")
	if err != nil {
		return res, err
	}
	defer nc.Close()
	client := &natsbus.Client{Conn: nc, Timeout: 2 * time.Second}
	tally := NewTally()
	var scripts []*script.Script
	for i, path := range cfg.Examples {
		sc, err := script.Read(path)
		if err != nil {
			return res, err
		}
		scripts = append(scripts, sc)
		if err := Play(ctx, client, fmt.Sprintf("example-%d", i+1), sc, tally); err != nil {
			return res, err
		}
		tally.MaxStep = 0
		say("played %s through recorder-1 as example-%d", filepath.Base(path), i+1)
	}

	if err := recs[1].Start(ctx); err != nil {
		return res, err
	}
	say("recorder-2 started on an empty data directory and filled itself from the stream")

	// Recorder 1 dies under a match in play.
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() { done <- Play(ctx, client, "failover-recorder", scripts[0], tally); close(ended) }()
	tally.WaitEvents(ctx, "failover-recorder", len(scripts[0].Steps)/3, ended)
	recs[0].Kill()
	say("recorder-1 killed with SIGKILL in the middle of match failover-recorder (at its event %d)", tally.Events("failover-recorder"))
	if err := <-done; err != nil {
		return res, err
	}
	res.RecorderFailover = tally.MaxStep
	say("failover-recorder finished through recorder-2; the longest command took %s", res.RecorderFailover.Round(time.Millisecond))

	// Every match read through recorder 2 (the only one serving).
	res.ReadsEqual = true
	for id, refs := range tally.Acked() {
		var s projector.State
		last := refs[len(refs)-1]
		if _, err := call(ctx, client, api.VerbState, api.StateRequest{Match: id, After: last.Seq}, &s); err != nil {
			return res, err
		}
		if s.Seq != last.Seq || s.Head != last.Hash {
			res.ReadsEqual = false
			say("  %s: recorder-2 reads head %d, acknowledged %d", id, s.Seq, last.Seq)
		}
	}
	say("read every match through recorder-2: heads as acknowledged: %v", res.ReadsEqual)
	if err := recs[0].Start(ctx); err != nil {
		return res, err
	}
	say("recorder-1 restarted and caught up")

	// The stream's leader node dies under a match.
	rc, err := c.Connect("recorder")
	if err != nil {
		return res, err
	}
	defer rc.Close()
	js, _ := jetstream.New(rc)
	leader := c.Leader(ctx, js, natsbus.StreamName)
	if leader < 0 {
		return res, fmt.Errorf("no stream leader")
	}
	tally.MaxStep = 0
	ended = make(chan struct{})
	last := scripts[len(scripts)-1]
	go func() { done <- Play(ctx, client, "failover-node", last, tally); close(ended) }()
	tally.WaitEvents(ctx, "failover-node", len(last.Steps)/3, ended)
	c.Stop(leader)
	say("NATS node n%d, the stream's leader, stopped in the middle of match failover-node (at its event %d)", leader+1, tally.Events("failover-node"))
	if err := <-done; err != nil {
		return res, err
	}
	res.NodeFailover = tally.MaxStep
	say("failover-node finished through the survivors; the longest command took %s", res.NodeFailover.Round(time.Millisecond))
	if err := c.Restart(leader); err != nil {
		return res, err
	}

	for _, r := range recs {
		if err := r.Stop(); err != nil {
			return res, err
		}
	}
	res.Report, err = Check(ctx, js, []string{recs[0].Dir, recs[1].Dir}, tally)
	return res, err
}
