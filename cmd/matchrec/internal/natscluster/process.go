package natscluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

// Process nodes: nats-server binaries built from the module matchrec
// links (the same server as in process), each run with docs/cluster.md's
// hub block and the node's own name, ports, store directory and routes
// on its command line, so a test can hang one with SIGSTOP.

const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)

// BuildServer builds the nats-server binary of the module matchrec links
// into dir and returns its path.
func BuildServer(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "nats-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build nats-server: %v\n%s", err, out)
	}
	return bin, nil
}

// process is a running node process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startProcess runs nd and waits until it takes connections.
func (c *Cluster) startProcess(nd *Node) (*process, error) {
	// The store directory and the leaf node port are set in the file (the
	// server refuses a -sd flag beside a store_dir), the rest by flags.
	conf, err := os.ReadFile(c.conf)
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(conf), "0.0.0.0:7422", fmt.Sprintf("127.0.0.1:%d", nd.LeafPort))
	text = strings.ReplaceAll(text, `store_dir: "/var/lib/nats"`, fmt.Sprintf("store_dir: %q", nd.StoreDir))
	path := filepath.Join(c.dir, nd.Name+".conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, err
	}
	var routes []string
	for _, u := range c.routes() {
		routes = append(routes, u.String())
	}
	cmd := exec.Command(c.opts.Bin, "-c", path, "-n", nd.Name, "-a", "127.0.0.1", "-p", strconv.Itoa(nd.Port),
		"-m", strconv.Itoa(nd.MonitorPort),
		"--cluster", fmt.Sprintf("nats://127.0.0.1:%d", nd.ClusterPort), "--routes", strings.Join(routes, ","))
	cmd.Env = os.Environ()
	if c.opts.Log != nil {
		cmd.Stdout, cmd.Stderr = c.opts.Log, c.opts.Log
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start node %s: %w", nd.Name, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", nd.Port), nats.UserInfo("recorder", c.Pw.Recorder), nats.Timeout(time.Second))
		if err == nil {
			nc.Close()
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("node %s exited at start: %v", nd.Name, err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("node %s not ready: %w", nd.Name, err)
		}
	}
}

func (p *process) signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// stop ends the process (a hung one is let go first), with SIGKILL if it
// does not stop within 10s.
func (p *process) stop() {
	_ = p.signal(sigCont)
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.signal(syscall.SIGKILL)
		<-p.done
	}
}

// monitor reads a page of the HTTP monitoring port of a process node
// (connz, jsz) into v.
func monitor(port int, page string, v any) error {
	// Short: a hung node's monitoring port accepts and never answers.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/%s", port, page), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("monitoring %s: %w", page, err)
	}
	return nil
}
