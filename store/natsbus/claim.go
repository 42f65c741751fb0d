package natsbus

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The stream's claim. A match's truth must never be split: two recorders
// that each keep their own store, answering one queue group on one bus,
// would each record half of the commands (issue 15). So the MATCHREC
// stream says, in its metadata, how it is written:
//
//   - single: one recorder's store is the truth and its outbox relay
//     publishes it; the metadata names that recorder's identity (its
//     receipts' public key). Any other recorder refuses the stream.
//   - cluster: the stream itself is the truth (JetStream serialises every
//     append, docs/cluster.md) and any number of cluster recorders share
//     it; a single-machine recorder refuses it.
//
// A stream without a claim (made before claims existed) is claimed by the
// first single-machine recorder that starts on it, or by a cluster
// recorder when it holds nothing yet; one that holds events of an
// unclaimed or single-machine recorder is moved into a cluster only by
// migrating (Claim.Migrate: the single recorder's own data directory,
// relayed whole first), never by accident.
const (
	// MetaMode is the stream metadata key of the claim's mode.
	MetaMode = "matchrec.mode"
	// MetaOwner is the stream metadata key naming a single-machine
	// stream's recorder: its identity, hex.
	MetaOwner = "matchrec.owner"
)

// Mode is how the stream is written.
type Mode string

// The modes of a claim.
const (
	ModeSingle  Mode = "single"
	ModeCluster Mode = "cluster"
)

// DefaultReplicas is the replica count of a cluster's stream and buckets:
// a quorum survives the loss of any one of three nodes.
const DefaultReplicas = 3

// Sentinel errors of the claim. A recorder that gets one refuses to start
// and has written nothing.
var (
	// ErrClaimed: the stream is another single-machine recorder's.
	ErrClaimed = errors.New("the stream is claimed by another recorder")
	// ErrModeMismatch: the stream is written in the other mode.
	ErrModeMismatch = errors.New("the stream is written in another mode")
	// ErrIncompatible: the stream's settings cannot hold matchrec's events
	// safely (limits that drop events, another storage, other subjects).
	ErrIncompatible = errors.New("the stream's settings are incompatible")
)

// Claim is how a recorder means to write the stream.
type Claim struct {
	Mode Mode
	// Owner is the recorder's identity (hex): a single stream's owner.
	Owner string
	// Replicas of a cluster stream (default DefaultReplicas); a single
	// stream has 1.
	Replicas int
	// Migrate lets a cluster claim take over a single stream owned by
	// Owner, or an unclaimed stream that holds events: the caller has
	// relayed its whole store into it first (docs/cluster.md).
	Migrate bool
	// Venue names the venue whose stream this is (MetaVenue; "": none).
	Venue string
}

func (c Claim) replicas() int {
	if c.Mode != ModeCluster {
		return 1
	}
	if c.Replicas <= 0 {
		return DefaultReplicas
	}
	return c.Replicas
}

// Config is StreamConfig with the claim: its metadata, its replicas and,
// in a cluster, atomic batch publishing (a command's events are stored
// all or none, cluster.go).
func (c Claim) Config() jetstream.StreamConfig {
	cfg := StreamConfig()
	cfg.Replicas = c.replicas()
	cfg.Metadata = map[string]string{MetaMode: string(c.Mode)}
	if c.Mode == ModeSingle {
		cfg.Metadata[MetaOwner] = c.Owner
	}
	if c.Venue != "" {
		cfg.Metadata[MetaVenue] = c.Venue
	}
	cfg.AllowAtomicPublish = c.Mode == ModeCluster
	return cfg
}

// EnsureClaimed creates the stream with the claim, or checks an existing
// stream against it and brings it to the claim's configuration (scaling a
// cluster stream's replicas up, never down). It refuses, changing
// nothing, a stream that is another recorder's or another mode's, or
// whose settings are incompatible. created says the stream did not exist.
func EnsureClaimed(ctx context.Context, js jetstream.JetStream, c Claim) (s jetstream.Stream, created bool, err error) {
	if c.Mode != ModeSingle && c.Mode != ModeCluster {
		return nil, false, fmt.Errorf("natsbus: claim mode %q", c.Mode)
	}
	if c.Mode == ModeSingle && c.Owner == "" {
		return nil, false, errors.New("natsbus: a single-machine claim needs the recorder's identity")
	}
	want := c.Config()
	s, err = js.Stream(ctx, StreamName)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = createStream(ctx, js, want)
		if err == nil {
			return s, true, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			if want.Replicas > 1 {
				return nil, false, fmt.Errorf("natsbus: create stream %s with %d replicas (a cluster of fewer JetStream nodes needs --replicas): %w", StreamName, want.Replicas, err)
			}
			return nil, false, fmt.Errorf("natsbus: create stream %s: %w", StreamName, err)
		}
		s, err = js.Stream(ctx, StreamName) // created meanwhile: check it
	}
	if err != nil {
		return nil, false, fmt.Errorf("natsbus: stream %s: %w", StreamName, err)
	}
	info := s.CachedInfo()
	have := info.Config
	if err := checkClaim(have, info.State.Msgs, c); err != nil {
		return nil, false, err
	}
	if c.Mode == ModeCluster {
		if err := compatible(have); err != nil {
			return nil, false, err
		}
		if have.Replicas > want.Replicas {
			want.Replicas = have.Replicas // never scale down behind an operator's back
		}
	}
	if sameConfig(have, want) && have.Replicas == want.Replicas && have.AllowAtomicPublish == want.AllowAtomicPublish &&
		have.Metadata[MetaMode] == want.Metadata[MetaMode] && have.Metadata[MetaOwner] == want.Metadata[MetaOwner] &&
		have.Metadata[MetaVenue] == want.Metadata[MetaVenue] {
		return s, false, nil
	}
	// Keep whatever else the metadata says (the server's own keys).
	meta := maps.Clone(have.Metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	delete(meta, MetaOwner)
	delete(meta, MetaVenue)
	maps.Copy(meta, want.Metadata)
	want.Metadata = meta
	if s, err = js.UpdateStream(ctx, want); err != nil {
		return nil, false, fmt.Errorf("natsbus: update stream %s to %s mode, %d replicas: %w", StreamName, c.Mode, want.Replicas, err)
	}
	// Two recorders claiming an unclaimed stream at the same instant both
	// update it; the later update wins, and the loser sees it here.
	info, err = s.Info(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("natsbus: stream %s: %w", StreamName, err)
	}
	if m := info.Config.Metadata; m[MetaMode] != string(c.Mode) || (c.Mode == ModeSingle && m[MetaOwner] != c.Owner) {
		return nil, false, checkClaim(info.Config, info.State.Msgs, c)
	}
	return s, false, nil
}

// checkClaim says whether a stream with config have holding msgs messages
// may be written under claim c.
func checkClaim(have jetstream.StreamConfig, msgs uint64, c Claim) error {
	mode, owner := Mode(have.Metadata[MetaMode]), have.Metadata[MetaOwner]
	switch venue := have.Metadata[MetaVenue]; {
	case venue != "" && venue != c.Venue:
		return fmt.Errorf("natsbus: %w: stream %s is venue %s's: its recorders run with --venue %s (docs/cluster.md, \"Venues\")", ErrModeMismatch, StreamName, venue, venue)
	case mode == "" && c.Mode == ModeSingle:
		return nil // an unclaimed stream: the first single recorder takes it
	case mode == "" && (msgs == 0 || c.Migrate):
		return nil
	case mode == "":
		return fmt.Errorf("natsbus: %w: stream %s holds %d events of a recorder that never claimed it; "+
			"to move them into a cluster, run that recorder's data directory with --cluster --migrate (docs/cluster.md)", ErrModeMismatch, StreamName, msgs)
	case mode == ModeSingle && c.Mode == ModeSingle && owner != c.Owner:
		return fmt.Errorf("natsbus: %w: stream %s is written by the single-machine recorder %s, and this is recorder %s: "+
			"two single-machine recorders on one bus would split the matches between their stores; stop the other one, "+
			"or run every recorder with --cluster (docs/cluster.md)", ErrClaimed, StreamName, owner, c.Owner)
	case mode == ModeSingle && c.Mode == ModeCluster && !(c.Migrate && owner == c.Owner):
		return fmt.Errorf("natsbus: %w: stream %s is written by the single-machine recorder %s; a cluster recorder "+
			"would fork its matches: migrate it with --cluster --migrate on that recorder's data directory (docs/cluster.md)", ErrModeMismatch, StreamName, owner)
	case mode == ModeCluster && c.Mode == ModeSingle:
		return fmt.Errorf("natsbus: %w: stream %s is a cluster's: a single-machine recorder would keep its own truth beside it; "+
			"start this recorder with --cluster", ErrModeMismatch, StreamName)
	case mode != ModeSingle && mode != ModeCluster:
		return fmt.Errorf("natsbus: %w: stream %s claims the unknown mode %q", ErrModeMismatch, StreamName, mode)
	}
	return nil
}

// compatible checks what a cluster cannot do without: the stream is its
// truth, so nothing may ever drop, delete or replace an event.
func compatible(have jetstream.StreamConfig) error {
	want := StreamConfig()
	var bad []string
	if len(have.Subjects) != 1 || have.Subjects[0] != StreamSubjects {
		bad = append(bad, fmt.Sprintf("subjects %v (want [%s])", have.Subjects, StreamSubjects))
	}
	if have.Storage != want.Storage {
		bad = append(bad, fmt.Sprintf("storage %s (want file)", have.Storage))
	}
	if have.Retention != want.Retention {
		bad = append(bad, fmt.Sprintf("retention %s (want limits)", have.Retention))
	}
	if have.MaxAge != 0 || have.MaxMsgs > 0 || have.MaxBytes > 0 || have.MaxMsgsPerSubject > 0 {
		bad = append(bad, "limits that drop events (max age, messages, bytes or per-subject messages)")
	}
	if have.Discard != want.Discard && (have.MaxMsgs > 0 || have.MaxBytes > 0) {
		bad = append(bad, "discard policy")
	}
	if have.Sealed {
		bad = append(bad, "sealed")
	}
	if have.Mirror != nil || len(have.Sources) > 0 {
		bad = append(bad, "a mirror or sources (the stream must be written by recorders only)")
	}
	if len(bad) > 0 {
		return fmt.Errorf("natsbus: %w: stream %s: %v; fix or remove it (nats stream edit/rm), nothing was written", ErrIncompatible, StreamName, bad)
	}
	return nil
}

// WaitJetStream waits until the server (a cluster: its JetStream meta
// leader) answers JetStream requests, asking every second until ctx ends.
// A server without JetStream, or credentials without the right to it,
// fail at once with a clear error.
func WaitJetStream(ctx context.Context, js jetstream.JetStream) error {
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := js.AccountInfo(actx)
		cancel()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
			return fmt.Errorf("natsbus: the NATS server has no JetStream for this user's account (enable it: docs/cluster.md): %w", err)
		case ctx.Err() != nil:
			return fmt.Errorf("natsbus: JetStream did not answer (no quorum, or no JetStream): %w", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// peersForming bounds how long a new stream waits for the cluster's
// JetStream peers to come online: a recorder started with its cluster
// (a venue's machines booting together) is refused placement, "peer
// offline", until every node has joined the meta group.
const peersForming = 20 * time.Second

// errCodeNoPeers is JetStream's "no suitable peers for placement"
// (nats-server's JSClusterNoPeersErrF), which nats.go does not name.
const errCodeNoPeers jetstream.ErrorCode = 10005

// createStream creates the stream, waiting out a cluster whose peers are
// still coming online (err_code 10005, "peer offline") for up to
// peersForming; any other refusal, or a cluster still short of peers
// after it, is returned.
func createStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	deadline := time.Now().Add(peersForming)
	wait := 50 * time.Millisecond
	for {
		s, err := js.CreateStream(ctx, cfg)
		var apiErr *jetstream.APIError
		if err == nil || !errors.As(err, &apiErr) || apiErr.ErrorCode != errCodeNoPeers ||
			!strings.Contains(apiErr.Description, "offline") || time.Now().Add(wait).After(deadline) {
			return s, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}
