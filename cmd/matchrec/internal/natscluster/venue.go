package natscluster

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/store/natsbus"
)

// VenueBlock is the marker of docs/cluster.md's configuration block for a
// venue's leaf node (written for venue north).
const VenueBlock = "nats-server.conf of a venue's leaf node"

// Venue is a venue's leaf node, in this process: docs/cluster.md's venue
// block with the venue's name, its own store directory and client port,
// and its remotes through a Link to the hub's nodes.
type Venue struct {
	Name string
	Port int
	Link *Link
	dir  string
	conf string
	pw   Passwords
	mu   sync.Mutex
	srv  *server.Server
}

// StartVenue starts venue name's leaf node under dir, linked to hub.
func StartVenue(dir, docPath, name string, hub *Cluster) (*Venue, error) {
	conf, err := ConfBlockOf(docPath, VenueBlock)
	if err != nil {
		return nil, err
	}
	// The block is north's: the same for any venue, but its names.
	conf = strings.ReplaceAll(conf, "north", name)
	path := filepath.Join(dir, "venue-"+name+".conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	var targets []string
	for _, nd := range hub.nodes {
		targets = append(targets, fmt.Sprintf("127.0.0.1:%d", nd.LeafPort))
	}
	link, err := NewLink(targets)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	v := &Venue{Name: name, Port: ports[0], Link: link, dir: filepath.Join(dir, "venue-"+name), conf: path, pw: hub.Pw}
	return v, v.Restart()
}

// Restart starts the leaf node (again) on its store directory and port.
func (v *Venue) Restart() error {
	opts, err := server.ProcessConfigFile(v.conf)
	if err != nil {
		return fmt.Errorf("docs/cluster.md's venue configuration: %w", err)
	}
	opts.Host, opts.Port, opts.StoreDir = "127.0.0.1", v.Port, v.dir
	if len(opts.LeafNode.Remotes) != 1 {
		return fmt.Errorf("docs/cluster.md's venue configuration has %d leaf node remotes, want 1", len(opts.LeafNode.Remotes))
	}
	// The hub's nodes are reached through the link, as the venue's user.
	var urls []*url.URL
	for _, a := range v.Link.Addrs() {
		urls = append(urls, &url.URL{Scheme: "nats-leaf", Host: a, User: url.UserPassword("venue-"+v.Name, v.pw.Venue)})
	}
	opts.LeafNode.Remotes[0].URLs = urls
	opts.LeafNode.ReconnectInterval = 250 * time.Millisecond
	srv, err := runServer(opts, "venue "+v.Name+"'s leaf node")
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.srv = srv
	v.mu.Unlock()
	return nil
}

// Linked says the leaf node is connected to the hub.
func (v *Venue) Linked() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.srv != nil && v.srv.NumLeafNodes() > 0
}

// Stop stops the leaf node (its store stays).
func (v *Venue) Stop() {
	v.mu.Lock()
	srv := v.srv
	v.srv = nil
	v.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// Shutdown stops the leaf node and its link.
func (v *Venue) Shutdown() {
	v.Stop()
	v.Link.Cut()
}

// URL is the leaf node's client URL (the venue's recorder and tables).
func (v *Venue) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", v.Port) }

// Connect connects to the venue's leaf node as user.
func (v *Venue) Connect(user string, opts ...nats.Option) (*nats.Conn, error) {
	pw := map[string]string{"recorder": v.pw.Recorder, "client": v.pw.Client, "viewer": v.pw.Viewer}[user]
	all := append(natsbus.ConnectOptions("venue-"+v.Name+"-"+user, zerolog.Nop(), natsbus.Reconnect{Wait: 100 * time.Millisecond, MaxWait: time.Second}),
		nats.UserInfo(user, pw), nats.CustomInboxPrefix("_INBOX_"+user))
	return nats.Connect(v.URL(), append(all, opts...)...)
}
