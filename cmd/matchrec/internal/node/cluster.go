package node

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
	"github.com/matchrec/matchrec/store/recorder"
)

// The two ways a node writes (docs/cluster.md): on one machine the store
// is the truth and the relay publishes it (openSingle); in a cluster the
// stream is, the recorder appends through it and a follower keeps the
// store a full copy of it (openCluster).

// migrateTimeout bounds the relay's drain of a store being migrated.
const migrateTimeout = 10 * time.Minute

// openSingle claims the stream for this recorder and starts the relay.
func (n *Node) openSingle(ctx context.Context, js jetstream.JetStream, connect func(...nats.Option) (*nats.Conn, error), claim natsbus.Claim) error {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, _, err := natsbus.EnsureClaimed(sctx, js, claim)
	cancel()
	if err != nil {
		return err
	}
	n.relay = natsbus.NewRelay(n.store, natsbus.RelayOptions{
		Connect: connect, Sign: n.id, Logger: n.cfg.Log, Reconnect: n.cfg.Reconnect, Claim: &claim,
	})
	rctx, rstop := context.WithCancel(context.WithoutCancel(ctx))
	n.relayStop, n.relayDone = rstop, make(chan struct{})
	go func() {
		defer close(n.relayDone)
		if err := n.relay.Run(rctx); err != nil {
			n.log.Error().Err(err).Msg("relay stopped")
		}
	}()
	return nil
}

// openCluster claims the stream for the cluster (migrating this data
// directory's store into it first, if asked), makes the KV buckets,
// registers the recorder's identity, and sets the recorder's appender and
// seeds to the cluster's.
func (n *Node) openCluster(ctx context.Context, js jetstream.JetStream, ropts *recorder.Options) error {
	cfg := n.cfg
	if cfg.NATSURL == "" {
		return errors.New("node: cluster mode needs the cluster's NATS servers (--nats URL[,URL...])")
	}
	owner := hex.EncodeToString(n.id.PublicKey())
	if cfg.Migrate {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := natsbus.WaitJetStream(wctx, js)
		cancel()
		if err != nil {
			return err
		}
		if err := n.migrate(ctx, js, owner); err != nil {
			return err
		}
	}
	claim := natsbus.Claim{Mode: natsbus.ModeCluster, Owner: owner, Replicas: cfg.Replicas, Migrate: cfg.Migrate, Venue: cfg.Venue}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := natsbus.WaitJetStream(sctx, js); err != nil {
		return err
	}
	s, _, err := natsbus.EnsureClaimed(sctx, js, claim)
	if err != nil {
		return err
	}
	if err := n.store.MarkFollower(sctx); err != nil {
		return err
	}
	replicas := s.CachedInfo().Config.Replicas
	secrets, recorders, err := natsbus.EnsureBuckets(sctx, js, replicas)
	if err != nil {
		return err
	}
	if err := natsbus.Register(sctx, recorders, n.id.PublicKey()); err != nil {
		return err
	}
	if len(cfg.Venues) > 0 {
		if err := natsbus.EnsureArchive(sctx, js, cfg.Venues, replicas); err != nil {
			return err
		}
		n.recorders = recorders
	}
	n.cluster, err = natsbus.NewCluster(n.store, natsbus.ClusterOptions{
		Conn: n.nc, Sign: n.id, Logger: cfg.Log, Venues: cfg.Venues, Recorders: recorders,
		Moved: func(match string, head uint64) {
			n.rec.Moved(match, head)
			n.an.Appended(match)
		},
	})
	if err != nil {
		return err
	}
	ropts.Appender = n.cluster
	if len(cfg.Venues) > 0 {
		ropts.Elsewhere = n.cluster.Elsewhere
	}
	ropts.Secrets = &natsbus.ClusterSecrets{KV: secrets, Local: n.store}
	registry := &natsbus.Registry{KV: recorders}
	ropts.Ping = func(ctx context.Context, p *api.PingResult) {
		p.NATS = n.nc.ConnectedServerName()
		keys, err := registry.Keys(ctx)
		if err != nil {
			n.log.Debug().Err(err).Msg("the recorders' registry did not answer ping")
		}
		p.Cluster = keys
	}
	n.log.Info().Int("replicas", replicas).Str("identity", owner).Msg("cluster recorder")
	return nil
}

// migrate hands a single-machine data directory's matches to a cluster:
// it claims the stream as this single recorder (refused if another one
// owns it), lets the relay publish the whole store into it (the relay
// backfills a stream that lacks events, reconcile.go), and returns once
// everything is on the stream; openCluster then claims it for the
// cluster, and the follower records each event's stream sequence.
func (n *Node) migrate(ctx context.Context, js jetstream.JetStream, owner string) error {
	single := natsbus.Claim{Mode: natsbus.ModeSingle, Owner: owner}
	if s, err := js.Stream(ctx, natsbus.StreamName); err == nil && natsbus.Mode(s.CachedInfo().Config.Metadata[natsbus.MetaMode]) == natsbus.ModeCluster {
		// Migrated before (or joining a cluster's stream): what this store
		// has must already be on it, which the follower checks event by
		// event (a divergence is reported, never written over).
		n.log.Info().Msg("the stream is the cluster's already; nothing to migrate")
		return nil
	}
	if err := n.openSingle(ctx, js, n.recorderConnect, single); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	err := n.relay.Drained(dctx)
	n.relayStop()
	<-n.relayDone
	n.relayStop, n.relay = nil, nil
	if err != nil {
		return fmt.Errorf("migrate: the store was not relayed whole: %w", err)
	}
	n.log.Info().Msg("migrate: the store is on the stream; handing it to the cluster")
	return nil
}

// startFollower starts the follower and waits (bounded) until it has
// applied the stream as it stands, so a recorder that was down, or is new,
// serves reads from a current copy.
func (n *Node) startFollower(ctx context.Context) error {
	fctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	n.follower, n.following = stop, make(chan struct{})
	go func() {
		defer close(n.following)
		_ = n.cluster.Follow(fctx)
	}()
	if len(n.cfg.Venues) > 0 {
		// A hub's: the venues' archive, followed beside the stream, and
		// the venues' recorders registered as their links come up.
		n.archiving.Go(func() { _ = n.cluster.FollowArchive(fctx) })
		n.archiving.Go(func() { n.watchVenues(fctx) })
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := n.cluster.CaughtUp(wctx); err != nil {
		n.log.Warn().Err(err).Msg("serving before the follower caught up with the stream; reads wait for what a client saw")
	}
	return nil
}

// watchVenues watches the hub's venues until ctx ends (natsbus.WatchVenues).
func (n *Node) watchVenues(ctx context.Context) {
	js, err := jetstream.New(n.nc)
	if err != nil {
		n.log.Error().Err(err).Msg("venues not watched")
		return
	}
	natsbus.WatchVenues(ctx, n.nc, js, n.recorders, n.cfg.Venues, natsbus.VenueWatch, n.log)
}

// stopFollower stops the follower once it has applied what the stream
// holds (bounded: with the cluster down the copy catches up at the next
// start), so a clean stop leaves a complete copy.
func (n *Node) stopFollower() {
	if n.follower != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := n.cluster.CaughtUp(ctx); err != nil {
			n.log.Warn().Err(err).Msg("stopping before the follower caught up with the stream")
		}
		cancel()
		n.follower()
		<-n.following
		n.archiving.Wait()
	}
}

// Cluster returns the cluster write path (nil on one machine).
func (n *Node) Cluster() *natsbus.Cluster { return n.cluster }
