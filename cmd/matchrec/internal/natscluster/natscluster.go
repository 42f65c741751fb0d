// Package natscluster runs a NATS cluster on one machine for tests, the
// cluster benchmark and `matchrec cluster-demo`: three (or more)
// nats-server nodes from the module matchrec builds with, in this process,
// each with its own store directory, client port and cluster routes,
// configured by the production configuration of docs/cluster.md (only
// names, ports and directories changed), so what is tested is what people
// deploy. Nodes can be stopped and restarted on their directories, and
// the stream's leader found, to test failover.
package natscluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Passwords are the users' passwords; Start sets the environment
// variables docs/cluster.md's configuration reads them from.
type Passwords struct{ Recorder, Client, Viewer string }

// Cluster is a running set of nodes.
type Cluster struct {
	conf  string // the configuration file every node parses
	Pw    Passwords
	mu    sync.Mutex
	nodes []*Node
}

// Node is one nats-server of the cluster.
type Node struct {
	Name        string
	Port        int
	ClusterPort int
	StoreDir    string
	srv         *server.Server // nil while stopped
}

// Start starts n nodes under dir, configured by the ```conf block of the
// document at docPath (docs/cluster.md).
func Start(dir, docPath string, n int, pw Passwords) (*Cluster, error) {
	conf, err := ConfBlock(docPath)
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]string{"MATCHREC_RECORDER_PASSWORD": pw.Recorder, "MATCHREC_CLIENT_PASSWORD": pw.Client, "MATCHREC_VIEWER_PASSWORD": pw.Viewer} {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(dir, "nats-server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	c := &Cluster{conf: path, Pw: pw}
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	for i := range n {
		c.nodes = append(c.nodes, &Node{Name: fmt.Sprintf("n%d", i+1), Port: ports[2*i], ClusterPort: ports[2*i+1],
			StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1))})
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range c.nodes {
		wg.Go(func() { errs[i] = c.Restart(i) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.Shutdown()
		return nil, err
	}
	// Wait for JetStream's meta leader: until then requests go unanswered.
	nc, err := c.Connect("recorder")
	if err != nil {
		c.Shutdown()
		return nil, err
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, time.Second)
		_, err := js.AccountInfo(actx)
		acancel()
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			c.Shutdown()
			return nil, fmt.Errorf("natscluster: JetStream not ready: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ConfBlock returns the ```conf block of a document.
func ConfBlock(docPath string) (string, error) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(string(b), "```conf\n")
	conf, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		return "", fmt.Errorf("%s has no ```conf block", docPath)
	}
	return conf, nil
}

// Restart starts node i (again) on its store directory and ports.
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	nd := c.nodes[i]
	routes := make([]*url.URL, 0, len(c.nodes))
	for _, o := range c.nodes {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", o.ClusterPort)})
	}
	c.mu.Unlock()
	opts, err := server.ProcessConfigFile(c.conf)
	if err != nil {
		return fmt.Errorf("docs/cluster.md's configuration: %w", err)
	}
	opts.ServerName, opts.Host, opts.Port, opts.StoreDir = nd.Name, "127.0.0.1", nd.Port, nd.StoreDir
	opts.Cluster.Host, opts.Cluster.Port, opts.Routes = "127.0.0.1", nd.ClusterPort, routes
	opts.NoSigs, opts.NoLog = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		return err
	}
	go srv.Start()
	if !srv.ReadyForConnections(20 * time.Second) {
		srv.Shutdown()
		return fmt.Errorf("node %s not ready", nd.Name)
	}
	c.mu.Lock()
	nd.srv = srv
	c.mu.Unlock()
	return nil
}

// Stop stops node i (its store stays).
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	srv := c.nodes[i].srv
	c.nodes[i].srv = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// Shutdown stops every node.
func (c *Cluster) Shutdown() {
	for i := range c.nodes {
		c.Stop(i)
	}
}

// Len is the number of nodes.
func (c *Cluster) Len() int { return len(c.nodes) }

// URLs is every node's client URL, comma-separated (--nats).
func (c *Cluster) URLs() string {
	var u []string
	for _, nd := range c.nodes {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", nd.Port))
	}
	return strings.Join(u, ",")
}

// Connect connects as user ("recorder", "client", "viewer") to any node.
func (c *Cluster) Connect(user string, opts ...nats.Option) (*nats.Conn, error) {
	pw := map[string]string{"recorder": c.Pw.Recorder, "client": c.Pw.Client, "viewer": c.Pw.Viewer}[user]
	all := append([]nats.Option{nats.UserInfo(user, pw), nats.CustomInboxPrefix("_INBOX_" + user),
		nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond)}, opts...)
	return nats.Connect(c.URLs(), all...)
}

// Leader returns the index of the node leading stream (-1: none known).
func (c *Cluster) Leader(ctx context.Context, js jetstream.JetStream, stream string) int {
	s, err := js.Stream(ctx, stream)
	if err != nil || s.CachedInfo().Cluster == nil {
		return -1
	}
	name := s.CachedInfo().Cluster.Leader
	for i, nd := range c.nodes {
		if nd.Name == name {
			return i
		}
	}
	return -1
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
