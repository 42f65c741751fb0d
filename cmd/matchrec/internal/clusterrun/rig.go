package clusterrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A rig is what the multi-process test, the demo and the benchmark run
// on: a 3-node NATS cluster configured by docs/cluster.md, and recorder
// processes serving on it, each given the node list starting with its own
// node (--nats-in-order), so their connections spread over the nodes.

// RigConfig configures StartRig.
type RigConfig struct {
	Bin       string // the matchrec binary
	NATSBin   string // a nats-server binary: nodes as processes ("": in process)
	Doc       string // docs/cluster.md
	Dir       string // scratch directory
	Recorders int
	Passwords natscluster.Passwords
	Log       io.Writer // the recorders' output
	NodeLog   *os.File  // process nodes' output (nil: discarded)
	// Extra arguments of every recorder's serve.
	Extra []string
}

// Rig is a running cluster and its recorders.
type Rig struct {
	Cluster   *natscluster.Cluster
	Recorders []*Recorder
	Client    *natsbus.Client // a client connection, as the CLI logs in
	nc        *nats.Conn
}

// StartRig starts the nodes and the recorders.
func StartRig(ctx context.Context, cfg RigConfig) (*Rig, error) {
	c, err := natscluster.StartWith(cfg.Dir, cfg.Doc, natscluster.Options{Passwords: cfg.Passwords, Bin: cfg.NATSBin, Log: cfg.NodeLog})
	if err != nil {
		return nil, err
	}
	r := &Rig{Cluster: c}
	for i := range cfg.Recorders {
		name := fmt.Sprintf("recorder-%d", i+1)
		rec := NewRecorder(cfg.Bin, name, filepath.Join(cfg.Dir, name), r.urlsFrom(i), cfg.Passwords.Recorder, cfg.Log)
		rec.extra = append([]string{"--nats-in-order"}, cfg.Extra...)
		r.Recorders = append(r.Recorders, rec)
	}
	if err := r.startAll(ctx); err != nil {
		r.Close()
		return nil, err
	}
	if r.nc, err = c.Connect("client"); err != nil {
		r.Close()
		return nil, err
	}
	r.Client = &natsbus.Client{Conn: r.nc, Timeout: 2 * time.Second}
	return r, nil
}

func (r *Rig) startAll(ctx context.Context) error {
	// The first creates the stream and the buckets; the others join.
	for _, rec := range r.Recorders {
		if err := rec.Start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// urlsFrom is the node list starting with node i (modulo the nodes).
func (r *Rig) urlsFrom(i int) string {
	n := r.Cluster.Len()
	u := make([]string, n)
	for k := range n {
		u[k] = r.Cluster.URL((i + k) % n)
	}
	return strings.Join(u, ",")
}

// Dirs are the recorders' data directories.
func (r *Rig) Dirs() []string {
	out := make([]string, len(r.Recorders))
	for i, rec := range r.Recorders {
		out[i] = rec.Dir
	}
	return out
}

// APIConns counts the recorders' API connections on each node (-1: the
// node does not answer).
func (r *Rig) APIConns() []int {
	out := make([]int, r.Cluster.Len())
	for i := range out {
		names, err := r.Cluster.Clients(i)
		if err != nil {
			out[i] = -1
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, "matchrec-api ") {
				out[i]++
			}
		}
	}
	return out
}

// WaitConns waits (at most d) until ok holds of APIConns, polling; it
// returns the last count.
func (r *Rig) WaitConns(ctx context.Context, d time.Duration, ok func([]int) bool) ([]int, bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		n := r.APIConns()
		if ok(n) {
			return n, true
		}
		select {
		case <-ctx.Done():
			return n, false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StopRecorders stops every recorder cleanly (their stores can then be
// opened by Check).
func (r *Rig) StopRecorders() error {
	var first error
	for _, rec := range r.Recorders {
		if err := rec.Stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Close kills the recorders and stops the nodes.
func (r *Rig) Close() {
	for _, rec := range r.Recorders {
		rec.Kill()
	}
	if r.nc != nil {
		r.nc.Close()
	}
	r.Cluster.Shutdown()
}
