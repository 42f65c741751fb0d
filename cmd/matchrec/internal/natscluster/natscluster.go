// Package natscluster runs a NATS cluster on one machine for tests, the
// cluster benchmark, `matchrec cluster-demo` and `matchrec venue-demo`:
// three (or more) nats-server nodes from the module matchrec builds with,
// each with its own store directory, client port and cluster routes,
// configured by the production configuration of docs/cluster.md (only
// names, ports and directories changed), so what is tested is what people
// deploy. Nodes run in this process, or as nats-server processes
// (Options.Bin) that can be hung with SIGSTOP as a node that stops
// answering would be. Nodes can be stopped and restarted on their
// directories, and the stream's leader found, to test failover; venues'
// leaf nodes join through links that can be cut (venue.go, link.go).
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
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/store/natsbus"
)

// Passwords are the users' passwords; Start sets the environment
// variables docs/cluster.md's configuration reads them from. Venue is
// every venue leaf node's (MATCHREC_VENUE_<NAME>_PASSWORD).
type Passwords struct{ Recorder, Client, Viewer, Venue string }

// Options configure StartWith.
type Options struct {
	Nodes     int // default 3
	Passwords Passwords
	// Bin runs every node as a process of this nats-server binary
	// (BuildServer makes one) instead of in this process, so Hang can
	// stop it with SIGSTOP.
	Bin string
	// Log is where process nodes write their output (nil: discarded).
	Log *os.File
}

// HubBlock is the marker of docs/cluster.md's configuration block for the
// cluster's (the hub's) nodes: the first line of the block.
const HubBlock = "nats-server.conf of node n1"

// Cluster is a running set of nodes.
type Cluster struct {
	conf  string // the configuration file every node parses
	dir   string
	Pw    Passwords
	opts  Options
	mu    sync.Mutex
	nodes []*Node
}

// Node is one nats-server of the cluster.
type Node struct {
	Name        string
	Port        int
	ClusterPort int
	LeafPort    int // where venues' leaf nodes connect
	MonitorPort int // process nodes' HTTP monitoring (connz)
	StoreDir    string
	srv         *server.Server // in process; nil while stopped
	proc        *process       // a process node; nil while stopped
}

// Start starts n nodes in this process under dir, configured by the hub
// block of the document at docPath (docs/cluster.md).
func Start(dir, docPath string, n int, pw Passwords) (*Cluster, error) {
	return StartWith(dir, docPath, Options{Nodes: n, Passwords: pw})
}

// StartWith starts the nodes o describes.
func StartWith(dir, docPath string, o Options) (*Cluster, error) {
	if o.Nodes <= 0 {
		o.Nodes = 3
	}
	conf, err := ConfBlockOf(docPath, HubBlock)
	if err != nil {
		return nil, err
	}
	if err := setPasswords(o.Passwords); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "nats-server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	c := &Cluster{conf: path, dir: dir, Pw: o.Passwords, opts: o}
	ports, err := freePorts(4 * o.Nodes)
	if err != nil {
		return nil, err
	}
	for i := range o.Nodes {
		c.nodes = append(c.nodes, &Node{Name: fmt.Sprintf("n%d", i+1), Port: ports[4*i], ClusterPort: ports[4*i+1],
			LeafPort: ports[4*i+2], MonitorPort: ports[4*i+3], StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1))})
	}
	errs := make([]error, o.Nodes)
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := natsbus.WaitJetStream(ctx, js); err != nil {
		c.Shutdown()
		return nil, fmt.Errorf("natscluster: JetStream not ready: %w", err)
	}
	// Answering is not enough: a stream of 3 replicas is placed only once
	// the meta leader has every node as a current peer.
	for !c.metaReady() {
		select {
		case <-ctx.Done():
			c.Shutdown()
			return nil, fmt.Errorf("natscluster: JetStream's meta group does not have all %d nodes: %w", o.Nodes, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return c, nil
}

// metaReady says a node leads JetStream's meta group with every other
// node a current peer.
func (c *Cluster) metaReady() bool {
	for i, nd := range c.nodes {
		m, err := c.meta(i)
		if err != nil || m == nil || m.Leader != nd.Name || len(m.Replicas) != len(c.nodes)-1 {
			continue
		}
		ready := true
		for _, p := range m.Replicas {
			ready = ready && p.Current && !p.Offline
		}
		if ready {
			return true
		}
	}
	return false
}

// meta is node i's view of JetStream's meta group.
func (c *Cluster) meta(i int) (*server.MetaClusterInfo, error) {
	c.mu.Lock()
	srv, p, nd := c.nodes[i].srv, c.nodes[i].proc, c.nodes[i]
	c.mu.Unlock()
	switch {
	case srv != nil:
		info, err := srv.Jsz(nil)
		if err != nil {
			return nil, err
		}
		return info.Meta, nil
	case p != nil:
		var z struct {
			Meta *server.MetaClusterInfo `json:"meta_cluster"`
		}
		return z.Meta, monitor(nd.MonitorPort, "jsz", &z)
	}
	return nil, fmt.Errorf("natscluster: node %s is stopped", nd.Name)
}

// setPasswords sets the environment variables the configurations read.
func setPasswords(pw Passwords) error {
	env := map[string]string{"MATCHREC_RECORDER_PASSWORD": pw.Recorder, "MATCHREC_CLIENT_PASSWORD": pw.Client, "MATCHREC_VIEWER_PASSWORD": pw.Viewer,
		"MATCHREC_VENUE_NORTH_PASSWORD": pw.Venue, "MATCHREC_VENUE_SOUTH_PASSWORD": pw.Venue}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// ConfBlockOf returns the ```conf block of a document whose first line
// contains marker.
func ConfBlockOf(docPath, marker string) (string, error) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		return "", err
	}
	rest := string(b)
	for {
		var ok bool
		if _, rest, ok = strings.Cut(rest, "```conf\n"); !ok {
			return "", fmt.Errorf("%s has no ```conf block starting %q", docPath, marker)
		}
		conf, after, ok := strings.Cut(rest, "```")
		if !ok {
			return "", fmt.Errorf("%s: an unclosed ```conf block", docPath)
		}
		first, _, _ := strings.Cut(conf, "\n")
		if strings.Contains(first, marker) {
			return conf, nil
		}
		rest = after
	}
}

// routes are every node's route URL.
func (c *Cluster) routes() []*url.URL {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*url.URL, 0, len(c.nodes))
	for _, o := range c.nodes {
		out = append(out, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", o.ClusterPort)})
	}
	return out
}

// Restart starts node i (again) on its store directory and ports.
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	nd := c.nodes[i]
	c.mu.Unlock()
	if c.opts.Bin != "" {
		p, err := c.startProcess(nd)
		if err != nil {
			return err
		}
		c.mu.Lock()
		nd.proc = p
		c.mu.Unlock()
		return nil
	}
	opts, err := server.ProcessConfigFile(c.conf)
	if err != nil {
		return fmt.Errorf("docs/cluster.md's configuration: %w", err)
	}
	opts.ServerName, opts.Host, opts.Port, opts.StoreDir = nd.Name, "127.0.0.1", nd.Port, nd.StoreDir
	opts.Cluster.Host, opts.Cluster.Port, opts.Routes = "127.0.0.1", nd.ClusterPort, c.routes()
	if opts.LeafNode.Port != 0 {
		opts.LeafNode.Host, opts.LeafNode.Port = "127.0.0.1", nd.LeafPort
	}
	srv, err := runServer(opts, "node "+nd.Name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	nd.srv = srv
	c.mu.Unlock()
	return nil
}

// runServer starts a server in this process and waits until it takes
// connections.
func runServer(opts *server.Options, what string) (*server.Server, error) {
	opts.NoSigs, opts.NoLog = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	go srv.Start()
	if !srv.ReadyForConnections(20 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("%s not ready", what)
	}
	return srv, nil
}

// Stop stops node i (its store stays).
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	srv, p := c.nodes[i].srv, c.nodes[i].proc
	c.nodes[i].srv, c.nodes[i].proc = nil, nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if p != nil {
		p.stop()
	}
}

// Hang stops node i's process with SIGSTOP: its connections stay open and
// nothing answers on them, as with a hung machine. Only process nodes
// (Options.Bin) can hang.
func (c *Cluster) Hang(i int) error { return c.signal(i, sigStop) }

// Resume lets a hung node i go on (SIGCONT).
func (c *Cluster) Resume(i int) error { return c.signal(i, sigCont) }

func (c *Cluster) signal(i int, sig syscall.Signal) error {
	c.mu.Lock()
	p := c.nodes[i].proc
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("natscluster: node %s is no running process", c.nodes[i].Name)
	}
	return p.signal(sig)
}

// Shutdown stops every node.
func (c *Cluster) Shutdown() {
	for i := range c.nodes {
		c.Stop(i)
	}
}

// Len is the number of nodes.
func (c *Cluster) Len() int { return len(c.nodes) }

// Node returns node i.
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// URLs is every node's client URL, comma-separated (--nats).
func (c *Cluster) URLs() string {
	u := make([]string, len(c.nodes))
	for i := range c.nodes {
		u[i] = c.URL(i)
	}
	return strings.Join(u, ",")
}

// URL is node i's client URL.
func (c *Cluster) URL(i int) string { return fmt.Sprintf("nats://127.0.0.1:%d", c.nodes[i].Port) }

// Connect connects as user ("recorder", "client", "viewer") to any node,
// noticing a silent node as matchrec's own connections do.
func (c *Cluster) Connect(user string, opts ...nats.Option) (*nats.Conn, error) {
	pw := map[string]string{"recorder": c.Pw.Recorder, "client": c.Pw.Client, "viewer": c.Pw.Viewer}[user]
	all := append(natsbus.ConnectOptions("natscluster-"+user, zerolog.Nop(), natsbus.Reconnect{Wait: 100 * time.Millisecond, MaxWait: time.Second}),
		nats.UserInfo(user, pw), nats.CustomInboxPrefix("_INBOX_"+user))
	return nats.Connect(c.URLs(), append(all, opts...)...)
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

// Clients returns the names of the client connections node i holds.
func (c *Cluster) Clients(i int) ([]string, error) {
	c.mu.Lock()
	srv, p, nd := c.nodes[i].srv, c.nodes[i].proc, c.nodes[i]
	c.mu.Unlock()
	switch {
	case srv != nil:
		z, err := srv.Connz(&server.ConnzOptions{Limit: 1024})
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(z.Conns))
		for _, ci := range z.Conns {
			names = append(names, ci.Name)
		}
		return names, nil
	case p != nil:
		var z struct {
			Connections []struct {
				Name string `json:"name"`
			} `json:"connections"`
		}
		if err := monitor(nd.MonitorPort, "connz?limit=1024", &z); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(z.Connections))
		for _, ci := range z.Connections {
			names = append(names, ci.Name)
		}
		return names, nil
	}
	return nil, fmt.Errorf("natscluster: node %s is stopped", nd.Name)
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
