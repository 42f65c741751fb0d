// Package clusterrun runs matchrec recorders as separate processes on a
// NATS cluster (natscluster) and drives matches through them, counting
// what was acknowledged, then checks every recorder's store and the
// stream against those counts: the multi-process cluster test, `matchrec
// cluster-demo` and the cluster benchmark share it.
package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/matchrec/matchrec/store/identity"
)

// Recorder is a `matchrec serve --cluster` (or `--venue`) process.
type Recorder struct {
	Name string
	Dir  string // its data directory
	bin  string
	urls string
	pw   string
	log  io.Writer
	// mode and extra are arguments of every start (after serve's own).
	mode, extra []string
	cmd         *exec.Cmd
	done        chan error
}

// NewRecorder describes a cluster recorder process; Start starts it.
func NewRecorder(bin, name, dir, urls, password string, log io.Writer) *Recorder {
	return &Recorder{Name: name, Dir: dir, bin: bin, urls: urls, pw: password, log: log, mode: []string{"--cluster"}}
}

// NewVenueRecorder describes venue's recorder process (serve --venue) on
// the venue's leaf node at url.
func NewVenueRecorder(bin, venue, dir, url, password string, log io.Writer) *Recorder {
	return &Recorder{Name: venue, Dir: dir, bin: bin, urls: url, pw: password, log: log, mode: []string{"--venue", venue}}
}

// Start starts the process and waits until it serves (its server.json
// is written once the API answers).
func (r *Recorder) Start(ctx context.Context, extra ...string) error {
	_ = os.Remove(filepath.Join(r.Dir, "server.json")) // a killed process leaves it
	args := append([]string{"--data", r.Dir, "--log-level", "warn", "serve", "--nats", r.urls, "--nats-user", "recorder", "--http", "off"}, r.mode...)
	args = append(append(args, r.extra...), extra...)
	cmd := exec.Command(r.bin, args...)
	cmd.Env = append(os.Environ(), "MATCHREC_NATS_PASSWORD="+r.pw)
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start recorder %s: %w", r.Name, err)
	}
	r.cmd, r.done = cmd, make(chan error, 1)
	go func() { r.done <- cmd.Wait() }()
	for {
		if _, err := os.Stat(filepath.Join(r.Dir, "server.json")); err == nil {
			return nil
		}
		select {
		case err := <-r.done:
			r.cmd = nil
			return fmt.Errorf("recorder %s exited at start: %v", r.Name, err)
		case <-ctx.Done():
			r.Kill()
			return fmt.Errorf("recorder %s did not start: %w", r.Name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill kills the process with SIGKILL (kill -9) and waits for it.
func (r *Recorder) Kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
	r.cmd = nil
}

// Stop stops the process with SIGTERM (a clean shutdown) and waits.
func (r *Recorder) Stop() error {
	if r.cmd == nil {
		return nil
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		r.cmd = nil
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("recorder %s: %w", r.Name, err)
		}
		return nil
	case <-time.After(20 * time.Second):
		r.Kill()
		return fmt.Errorf("recorder %s did not stop in 20s; killed", r.Name)
	}
}

// Identity is the recorder's public key (hex), its receipts' key: read
// from its data directory (made at its first start).
func (r *Recorder) Identity() (string, error) {
	id, err := identity.LoadOrCreate(r.Dir)
	if err != nil {
		return "", err
	}
	return id.PublicHex(), nil
}

// PID is the running process's id (0: not running).
func (r *Recorder) PID() int {
	if r.cmd == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// Running says the process runs.
func (r *Recorder) Running() bool { return r.cmd != nil }
