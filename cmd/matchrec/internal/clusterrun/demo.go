package clusterrun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
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
	// ByRecorder counts the commands each recorder answered (by the key
	// its receipts are signed with): all of them, at once.
	ByRecorder map[string]int `json:"by_recorder"`
	// CLIPlays counts the `matchrec play` runs through the cluster that
	// passed (of CLIRuns).
	CLIPlays, CLIRuns int
}

// Demo runs the cluster demo: 3 NATS nodes and 3 recorders in a scratch
// directory, each recorder on its own node; every example played at once
// through all three (the API's queue group spreads the commands), and the
// CLI's `play` through the cluster; a recorder killed with SIGKILL in the
// middle of a match and restarted; the stream's leader node stopped in
// the middle of another; every match read back through the cluster;
// everything checked and audited.
func Demo(ctx context.Context, cfg DemoConfig) (DemoResult, error) {
	res := DemoResult{ByRecorder: map[string]int{}}
	say := func(format string, args ...any) { fmt.Fprintf(cfg.Out, format+"\n", args...) }
	dir, err := os.MkdirTemp("", "matchrec-cluster-demo-")
	if err != nil {
		return res, err
	}
	if cfg.Keep {
		say("scratch directory: %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	logf, err := os.Create(filepath.Join(dir, "recorders.log"))
	if err != nil {
		return res, err
	}
	defer logf.Close()
	pw := natscluster.Passwords{Recorder: randomHex(16), Client: randomHex(16), Viewer: randomHex(16), Venue: randomHex(16)}
	rig, err := StartRig(ctx, RigConfig{Bin: cfg.Bin, Doc: cfg.Doc, Dir: dir, Recorders: 3, Passwords: pw, Log: logf})
	if err != nil {
		return res, err
	}
	defer rig.Close()
	c, recs := rig.Cluster, rig.Recorders
	say("3 NATS nodes (JetStream, routes, docs/cluster.md's configuration): %s", c.URLs())
	conns, _ := rig.WaitConns(ctx, 10*time.Second, func(n []int) bool { return n[0] == 1 && n[1] == 1 && n[2] == 1 })
	say("3 recorders serving (serve --cluster, each given its own node first): API connections per node %v", conns)
	keys := map[string]string{} // receipt key → recorder name
	for _, r := range recs {
		if k, err := r.Identity(); err == nil {
			keys[k] = r.Name
		}
	}

	var scripts []*script.Script
	for _, path := range cfg.Examples {
		sc, err := script.Read(path)
		if err != nil {
			return res, err
		}
		scripts = append(scripts, sc)
	}
	tally := NewTally()
	tally.ReadFirst = true // as a table's screen does: every step looks first
	var wg sync.WaitGroup
	errs := make([]error, len(scripts))
	for i, sc := range scripts {
		wg.Go(func() { errs[i] = Play(ctx, rig.Client, fmt.Sprintf("example-%d", i+1), sc, tally) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return res, fmt.Errorf("%s: %w", cfg.Examples[i], err)
		}
	}
	say("played %d examples at once through all three recorders, every step read first: %s", len(scripts), answeredBy(tally, keys))

	res.CLIRuns = 3
	for range res.CLIRuns {
		if err := cliPlay(ctx, cfg.Bin, dir, c, cfg.Examples[0]); err != nil {
			say("  matchrec play %s: %v", filepath.Base(cfg.Examples[0]), err)
			continue
		}
		res.CLIPlays++
	}
	say("matchrec play %s through the cluster: %d of %d runs passed, none warned of another recorder", filepath.Base(cfg.Examples[0]), res.CLIPlays, res.CLIRuns)

	// Recorder 1 dies under a match in play.
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() { done <- Play(ctx, rig.Client, "failover-recorder", scripts[0], tally); close(ended) }()
	tally.WaitEvents(ctx, "failover-recorder", len(scripts[0].Steps)/3, ended)
	tally.Phase()
	recs[0].Kill()
	say("recorder-1 killed with SIGKILL in the middle of match failover-recorder (at its event %d)", tally.Events("failover-recorder"))
	if err := <-done; err != nil {
		return res, err
	}
	res.RecorderFailover = tally.Phase()
	say("failover-recorder finished through recorder-2 and -3; the longest command took %s", res.RecorderFailover.Round(time.Millisecond))
	if err := recs[0].Start(ctx); err != nil {
		return res, err
	}
	say("recorder-1 restarted and caught up from the stream")

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
	ended = make(chan struct{})
	last := scripts[len(scripts)-1]
	go func() { done <- Play(ctx, rig.Client, "failover-node", last, tally); close(ended) }()
	tally.WaitEvents(ctx, "failover-node", len(last.Steps)/3, ended)
	tally.Phase()
	c.Stop(leader)
	say("NATS node n%d, the stream's leader, stopped in the middle of match failover-node (at its event %d)", leader+1, tally.Events("failover-node"))
	if err := <-done; err != nil {
		return res, err
	}
	res.NodeFailover = tally.Phase()
	say("failover-node finished through the survivors; the longest command took %s", res.NodeFailover.Round(time.Millisecond))
	if err := c.Restart(leader); err != nil {
		return res, err
	}

	// Every match read through the cluster, whichever recorder answers.
	res.ReadsEqual = true
	for id, refs := range tally.Acked() {
		var s projector.State
		last := refs[len(refs)-1]
		if _, err := call(ctx, rig.Client, api.VerbState, api.StateRequest{Match: id, After: last.Seq}, &s); err != nil {
			return res, err
		}
		if s.Seq != last.Seq || s.Head != last.Hash {
			res.ReadsEqual = false
			say("  %s: read head %d, acknowledged %d", id, s.Seq, last.Seq)
		}
	}
	say("read every match through the cluster: heads as acknowledged: %v", res.ReadsEqual)
	for k, n := range tally.ByRecorder() {
		res.ByRecorder[or(keys[k], k)] = n
	}
	if err := rig.StopRecorders(); err != nil {
		return res, err
	}
	res.Report, err = Check(ctx, js, rig.Dirs(), tally)
	return res, err
}

// answeredBy says how many commands each recorder answered.
func answeredBy(t *Tally, names map[string]string) string {
	by := t.ByRecorder()
	var parts []string
	for k, n := range by {
		parts = append(parts, fmt.Sprintf("%s %d", or(names[k], k[:12]), n))
	}
	sort.Strings(parts)
	return "commands answered by " + strings.Join(parts, ", ")
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// cliPlay runs `matchrec play FILE` against the cluster as a client: it
// must pass, with no warning that another recorder answered.
func cliPlay(ctx context.Context, bin, dir string, c *natscluster.Cluster, file string) error {
	cmd := exec.CommandContext(ctx, bin, "--data", filepath.Join(dir, "cli"), "--receipts", filepath.Join(dir, "receipts"),
		"--server", c.URLs(), "--nats-user", "client", "play", file)
	cmd.Env = append(os.Environ(), "MATCHREC_NATS_PASSWORD="+c.Pw.Client)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if strings.Contains(stderr.String(), "another recorder") {
		return fmt.Errorf("warned: %s", strings.TrimSpace(stderr.String()))
	}
	return nil
}
