package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A league on loopback (docs/cluster.md, "Venues"): the hub — a 3-node
// cluster and its recorders, with --venues — and venues, each a leaf node
// (natscluster.Venue, its link to the hub cuttable) and its recorder
// (serve --venue) that its tables play against.

// VenueRigConfig configures StartVenues.
type VenueRigConfig struct {
	Bin, Doc, Dir string
	Passwords     natscluster.Passwords
	Log           io.Writer
	HubRecorders  int
	Venues        []string
}

// League is a running hub and its venues.
type League struct {
	Hub    *Rig
	Venues []*Venue
}

// Venue is one venue: its leaf node, recorder and a table's connection.
type Venue struct {
	Name     string
	Leaf     *natscluster.Venue
	Recorder *Recorder
	Client   *natsbus.Client
	nc       *nats.Conn
}

// StartVenues starts the hub's nodes, each venue's leaf node and recorder,
// then the hub's recorders.
func StartVenues(ctx context.Context, cfg VenueRigConfig) (*League, error) {
	c, err := natscluster.StartWith(cfg.Dir, cfg.Doc, natscluster.Options{Passwords: cfg.Passwords})
	if err != nil {
		return nil, err
	}
	l := &League{Hub: &Rig{Cluster: c}}
	fail := func(err error) (*League, error) { l.Close(); return nil, err }
	for _, name := range cfg.Venues {
		leaf, err := natscluster.StartVenue(cfg.Dir, cfg.Doc, name, c)
		if err != nil {
			return fail(err)
		}
		v := &Venue{Name: name, Leaf: leaf}
		l.Venues = append(l.Venues, v)
		v.Recorder = NewVenueRecorder(cfg.Bin, name, filepath.Join(cfg.Dir, "venue-"+name+"-recorder"), leaf.URL(), cfg.Passwords.Recorder, cfg.Log)
		if err := v.Recorder.Start(ctx); err != nil {
			return fail(err)
		}
		if v.nc, err = leaf.Connect("client"); err != nil {
			return fail(err)
		}
		v.Client = &natsbus.Client{Conn: v.nc, Timeout: 2 * time.Second}
	}
	for i := range cfg.HubRecorders {
		name := fmt.Sprintf("hub-recorder-%d", i+1)
		rec := NewRecorder(cfg.Bin, name, filepath.Join(cfg.Dir, name), l.Hub.urlsFrom(i), cfg.Passwords.Recorder, cfg.Log)
		rec.extra = []string{"--nats-in-order", "--venues", strings.Join(cfg.Venues, ",")}
		l.Hub.Recorders = append(l.Hub.Recorders, rec)
	}
	if err := l.Hub.startAll(ctx); err != nil {
		return fail(err)
	}
	if l.Hub.nc, err = c.Connect("client"); err != nil {
		return fail(err)
	}
	l.Hub.Client = &natsbus.Client{Conn: l.Hub.nc, Timeout: 2 * time.Second}
	return l, nil
}

// Venue returns the venue named name.
func (l *League) Venue(name string) *Venue {
	for _, v := range l.Venues {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// WaitLinked waits (at most d) until venue v's leaf node is connected to
// the hub (up) or not (down).
func (v *Venue) WaitLinked(ctx context.Context, d time.Duration, up bool) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for v.Leaf.Linked() != up {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return true
}

// VenueJS is a JetStream context on venue v's leaf node (its own domain).
func (v *Venue) VenueJS() (jetstream.JetStream, func(), error) {
	nc, err := v.Leaf.Connect("recorder")
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	return js, nc.Close, err
}

// ArchiveCaughtUp waits (at most d) until the hub's archive holds every
// message of each venue's stream, and returns how long it took.
func (l *League) ArchiveCaughtUp(ctx context.Context, d time.Duration) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	hnc, err := l.Hub.Cluster.Connect("recorder")
	if err != nil {
		return 0, err
	}
	defer hnc.Close()
	hjs, _ := jetstream.New(hnc)
	want := uint64(0)
	for _, v := range l.Venues {
		js, done, err := v.VenueJS()
		if err != nil {
			return 0, err
		}
		s, err := js.Stream(ctx, natsbus.StreamName)
		done()
		if err != nil {
			return 0, fmt.Errorf("venue %s's stream: %w", v.Name, err)
		}
		want += s.CachedInfo().State.Msgs
	}
	for {
		s, err := hjs.Stream(ctx, natsbus.ArchiveStream)
		if err == nil && s.CachedInfo().State.Msgs >= want {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			have := uint64(0)
			if err == nil {
				have = s.CachedInfo().State.Msgs
			}
			return time.Since(start), fmt.Errorf("the archive holds %d of the venues' %d messages: %w", have, want, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// HubCaughtUp waits (at most d) until reading every acknowledged match
// through the hub's recorders (a viewer's client, whichever answers)
// gives its acknowledged head or a later one, and returns how long it
// took. (Check compares every event afterwards.)
func (l *League) HubCaughtUp(ctx context.Context, d time.Duration, acked map[string][]api.EventRef) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for id, refs := range acked {
		last := refs[len(refs)-1]
		for {
			var s projector.State
			err := l.Hub.Client.Call(ctx, api.VerbState, api.StateRequest{Match: id, After: last.Seq}, &s)
			// At the acknowledged head, or past it (the tables play on).
			if err == nil && (s.Seq > last.Seq || (s.Seq == last.Seq && s.Head == last.Hash)) {
				break
			}
			var ae *api.Error
			if err != nil && !errors.As(err, &ae) && ctx.Err() == nil {
				continue // a transport error: ask again
			}
			if ctx.Err() != nil {
				return time.Since(start), fmt.Errorf("the hub reads match %s at event %d, not %d (%v): %w", id, s.Seq, last.Seq, err, ctx.Err())
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return time.Since(start), nil
}

// Close kills every recorder and stops every server.
func (l *League) Close() {
	for _, v := range l.Venues {
		if v.Recorder != nil {
			v.Recorder.Kill()
		}
		if v.nc != nil {
			v.nc.Close()
		}
	}
	for _, rec := range l.Hub.Recorders {
		rec.Kill()
	}
	if l.Hub.nc != nil {
		l.Hub.nc.Close()
	}
	for _, v := range l.Venues {
		v.Leaf.Shutdown()
	}
	l.Hub.Cluster.Shutdown()
}
