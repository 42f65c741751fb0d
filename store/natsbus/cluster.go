package natsbus

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The cluster write path (docs/cluster.md). In a cluster the MATCHREC
// stream is the truth and JetStream the serialisation point: a command's
// events are published with the expected last sequence of the match's
// subject (Nats-Expected-Last-Subject-Sequence: the stream sequence of
// the match's last event, kept in the store beside it), all of them in one
// atomic batch (Nats-Batch-Id, -Sequence, -Commit: stored all or none),
// and only once JetStream has acknowledged them — stored on a quorum of
// the stream's replicas — are they written to the recorder's own store,
// and only then acknowledged to the caller. Two recorders deciding on the
// same head race for the same expected sequence: JetStream takes one
// batch and refuses the other (wrong last sequence), so a match's chain
// cannot fork. The refused recorder waits until its follower has brought
// the winner's events into its store and reports a conflict, which the
// recorder answers by deciding again on the new head.

// Headers of the cluster's messages besides NewMsg's: the request index
// entry of the command (on its last event), so every recorder's follower
// indexes it and a retried command is answered wherever it lands.
const (
	HeaderRequestKey   = "Matchrec-Request-Key"   // base64 of the index key
	HeaderRequestEntry = "Matchrec-Request-Entry" // hex statement sum, first and last sequence
)

// Batch headers of JetStream's atomic publish (nats-server 2.12+).
const (
	hdrBatchID     = "Nats-Batch-Id"
	hdrBatchSeq    = "Nats-Batch-Sequence"
	hdrBatchCommit = "Nats-Batch-Commit"
)

// ClusterStore is what a cluster recorder's store does: the recorder's
// store and a full local copy of the stream (store.Streamed).
type ClusterStore interface {
	store.Store
	store.Streamed
}

// ClusterOptions configure a Cluster.
type ClusterOptions struct {
	// Conn is the recorder's connection to the cluster; the caller closes it.
	Conn *nats.Conn
	// Sign signs every event (the Matchrec-Sig header).
	Sign Signer
	// AckTimeout bounds the wait for JetStream's acknowledgement; past it
	// the append fails as unavailable. Default 3s: a cluster that lost its
	// quorum must fail commands fast, not hang them.
	AckTimeout time.Duration
	// CatchUp bounds the wait for the follower after a refused append
	// (another recorder moved the match); default 5s.
	CatchUp time.Duration
	// Moved is told each match whose head the follower moved, with the
	// new head (the recorder drops its stale live state, the analytics
	// follow). On the follower's goroutine: it must not block.
	Moved func(match string, head uint64)
	// Logger for divergences, outages and catch-up.
	Logger zerolog.Logger
	// Venues are the venues a hub's archive gathers (archive.go): their
	// matches are written at the venues only (Elsewhere).
	Venues []string
	// Recorders is the recorders' registry (RecordersBucket), where a hub
	// finds its venues' recorder keys: every event the archive follower
	// reads is checked against its venue's (archive_check.go). Required
	// with Venues.
	Recorders jetstream.KeyValue
}

// Cluster appends a cluster recorder's commands through the stream and
// follows the stream into the recorder's store (follower.go).
type Cluster struct {
	st   ClusterStore
	opts ClusterOptions
	js   jetstream.JetStream
	log  zerolog.Logger

	appended, conflicts, unavailable atomic.Uint64
	applied, diverged                atomic.Uint64
	followed                         atomic.Uint64 // the follower's position
	archived                         atomic.Uint64 // the archive follower's (a hub's)
	progress                         chan struct{} // closed and replaced after each follower round
	progressMu                       sync.Mutex
	vouch                            *archiveCheck // a hub's: the archive follower's check
}

// NewCluster returns the cluster write path on st; start its follower
// with Follow.
func NewCluster(st ClusterStore, opts ClusterOptions) (*Cluster, error) {
	if opts.Conn == nil {
		return nil, errors.New("natsbus: cluster needs a connection")
	}
	if opts.AckTimeout <= 0 {
		opts.AckTimeout = 3 * time.Second
	}
	if opts.CatchUp <= 0 {
		opts.CatchUp = 5 * time.Second
	}
	js, err := jetstream.New(opts.Conn)
	if err != nil {
		return nil, fmt.Errorf("natsbus: cluster jetstream: %w", err)
	}
	c := &Cluster{st: st, opts: opts, js: js, log: opts.Logger.With().Str("component", "cluster").Logger(), progress: make(chan struct{})}
	if len(opts.Venues) > 0 {
		if opts.Recorders == nil {
			return nil, errors.New("natsbus: a hub's cluster needs the recorders' registry, to check its venues' events")
		}
		c.vouch = newArchiveCheck(opts.Conn, opts.Recorders, opts.Venues, c.log)
	}
	return c, nil
}

// ClusterStats are the cluster path's counters since it was created.
type ClusterStats struct {
	Appended    uint64 `json:"appended"`    // commands acknowledged by the stream
	Conflicts   uint64 `json:"conflicts"`   // appends refused: another recorder moved the match
	Unavailable uint64 `json:"unavailable"` // appends the stream did not confirm
	Applied     uint64 `json:"applied"`     // events the follower wrote (the rest it found stored)
	Diverged    uint64 `json:"diverged"`    // events the follower refused: they differ from the store
	Followed    uint64 `json:"followed"`    // the follower's stream position
	Archived    uint64 `json:"archived"`    // a hub's: the position in its venues' archive
}

// Stats returns the counters.
func (c *Cluster) Stats() ClusterStats {
	return ClusterStats{Appended: c.appended.Load(), Conflicts: c.conflicts.Load(), Unavailable: c.unavailable.Load(),
		Applied: c.applied.Load(), Diverged: c.diverged.Load(), Followed: c.followed.Load(), Archived: c.archived.Load()}
}

// Append publishes a command's events (numbered expected+1...) to the
// stream, expecting the match's last stored event to be the subject's
// last message, and writes them to the store once JetStream has
// acknowledged them. key and req are the command's request index entry
// (nil key: none). A branch's first events (a branch.created numbered
// after its fork) go on the branch's own, empty subject. Errors:
// store.ErrConflict (another recorder moved the match; the store has
// caught up when it returns), store.ErrUnavailable (not confirmed:
// nothing in the store; if the stream took the events after all, the
// follower brings them — or the store did not catch up after a lost
// race: deciding again on it would lose again).
func (c *Cluster) Append(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) error {
	if err := store.CheckAppend(match, expected, evs); err != nil {
		return err
	}
	head, last, err := c.st.StreamHead(ctx, match)
	if err != nil {
		return fmt.Errorf("natsbus: head of %s: %w", match, err)
	}
	branch := head.Seq == 0 && last == 0 && evs[0].Type == events.TypeBranchCreated
	if head.Seq != expected && !branch {
		// The follower has brought another recorder's events already.
		c.conflicts.Add(1)
		return fmt.Errorf("%w: match %q: expected seq %d, head is %d", store.ErrConflict, match, expected, head.Seq)
	}
	msgs := make([]*nats.Msg, len(evs))
	for i, e := range evs {
		if msgs[i], err = NewMsg(e, c.opts.Sign); err != nil {
			return err
		}
	}
	msgs[0].Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(last, 10))
	if key != nil && req != nil {
		h := msgs[len(msgs)-1].Header
		h.Set(HeaderRequestKey, base64.StdEncoding.EncodeToString(key))
		h.Set(HeaderRequestEntry, fmt.Sprintf("%s %d %d", hex.EncodeToString(req.Statement[:]), req.First, req.Last))
	}
	seq, err := c.publish(ctx, msgs)
	switch {
	case errors.Is(err, store.ErrConflict):
		c.conflicts.Add(1)
		if cerr := c.catchUp(ctx, match); cerr != nil {
			// Deciding again on a copy that did not catch up would lose
			// the race again: say so, once.
			c.log.Warn().Err(cerr).Str("match", match).Msg("not caught up after a refused append")
			return fmt.Errorf("%w: match %s moved on the stream and this recorder's copy has not caught up (%v); nothing was recorded", store.ErrUnavailable, match, cerr)
		}
		return fmt.Errorf("append to %s: %w", match, err)
	case errors.Is(err, store.ErrUnavailable):
		c.unavailable.Add(1)
		return fmt.Errorf("append to %s: %w", match, err)
	case err != nil:
		return fmt.Errorf("append to %s: %w", match, err)
	}
	c.appended.Add(1)
	out := make([]store.StreamEvent, len(evs))
	first := seq - uint64(len(evs)) + 1 // an atomic batch is stored at consecutive sequences
	for i, e := range evs {
		out[i] = store.StreamEvent{Event: e, StreamSeq: first + uint64(i)}
	}
	if key != nil && req != nil {
		out[len(out)-1].Key, out[len(out)-1].Request = key, *req
	}
	if err := c.st.AppendStream(ctx, match, out); err != nil {
		// Durable on the stream, not here: the follower writes it. The
		// caller is not told "recorded" by this recorder.
		return fmt.Errorf("append to %s: on the stream, not yet in this recorder's store: %w", match, err)
	}
	return nil
}

// Elsewhere is a hub recorder's recorder.Options.Elsewhere: a match in a
// venue's namespace, or one that only the archive brought (its events
// have no place on this cluster's stream), is written at its venue.
func (c *Cluster) Elsewhere(ctx context.Context, match string) (string, bool) {
	if len(c.opts.Venues) == 0 {
		return "", false
	}
	if v := VenueOf(match); slices.Contains(c.opts.Venues, v) {
		return v, true
	}
	head, sseq, err := c.st.StreamHead(ctx, match)
	if err == nil && head.Seq > 0 && sseq == 0 {
		return "(the hub's archive brought it)", true
	}
	return "", false
}

// pubReply is JetStream's reply to a publish or a batch commit.
type pubReply struct {
	Stream string `json:"stream"`
	Seq    uint64 `json:"seq"`
	Count  int    `json:"count"`
	Error  *struct {
		Code        int    `json:"code"`
		ErrCode     uint16 `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

// publish stores msgs on the stream, all or none, and returns the stream
// sequence of the last.
func (c *Cluster) publish(ctx context.Context, msgs []*nats.Msg) (uint64, error) {
	pctx, cancel := context.WithTimeout(ctx, c.opts.AckTimeout)
	defer cancel()
	if len(msgs) > 1 {
		id := rand.Text() // a fresh batch id per command
		for i, m := range msgs {
			m.Header.Set(hdrBatchID, id)
			m.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
			if i == len(msgs)-1 {
				m.Header.Set(hdrBatchCommit, "1")
				break
			}
			if err := c.opts.Conn.PublishMsg(m); err != nil {
				return 0, fmt.Errorf("%w: %v", store.ErrUnavailable, err)
			}
		}
	}
	reply, err := c.opts.Conn.RequestMsgWithContext(pctx, msgs[len(msgs)-1])
	if err != nil {
		return 0, fmt.Errorf("%w: the stream did not confirm (%v); nothing was recorded by this recorder", store.ErrUnavailable, err)
	}
	var r pubReply
	if err := json.Unmarshal(reply.Data, &r); err != nil {
		return 0, fmt.Errorf("natsbus: publish reply %q: %w", reply.Data, err)
	}
	if r.Error != nil {
		code := jetstream.ErrorCode(r.Error.ErrCode)
		switch {
		case code == jetstream.JSErrCodeStreamWrongLastSequence || code == jetstream.JSErrCodeStreamWrongLastSequenceConstant:
			return 0, fmt.Errorf("%w: %s", store.ErrConflict, r.Error.Description)
		case r.Error.Code == 503:
			return 0, fmt.Errorf("%w: %s", store.ErrUnavailable, r.Error.Description)
		}
		return 0, fmt.Errorf("natsbus: the stream refused the events: %s (code %d)", r.Error.Description, r.Error.ErrCode)
	}
	if r.Stream != StreamName || r.Seq == 0 || (len(msgs) > 1 && r.Count != len(msgs)) {
		return 0, fmt.Errorf("natsbus: unexpected publish reply %q", reply.Data)
	}
	return r.Seq, nil
}

// catchUp waits until the follower has written the match's last message
// on the stream into the store.
func (c *Cluster) catchUp(ctx context.Context, match string) error {
	_, err := c.CatchUp(ctx, match)
	return err
}

// CatchUp implements recorder.CatcherUp: it asks the stream for the
// match's last message and, if the store is behind it, waits (up to
// ClusterOptions.CatchUp) until the follower has written it. moved says
// the store was behind.
func (c *Cluster) CatchUp(ctx context.Context, match string) (moved bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CatchUp)
	defer cancel()
	subj, err := Subject(match)
	if err != nil {
		return false, err
	}
	s, err := c.js.Stream(ctx, StreamName)
	if err != nil {
		return false, err
	}
	m, err := s.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, have, err := c.st.StreamHead(ctx, match)
	if err != nil || have >= m.Sequence {
		return false, err
	}
	return true, c.waitStream(ctx, match, m.Sequence)
}

// waitStream waits until the store holds match's events up to stream
// sequence seq.
func (c *Cluster) waitStream(ctx context.Context, match string, seq uint64) error {
	for {
		ch := c.progressCh()
		_, have, err := c.st.StreamHead(ctx, match)
		if err != nil {
			return err
		}
		if have >= seq {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsbus: match %s: the follower has not reached stream sequence %d: %w", match, seq, ctx.Err())
		case <-ch:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WaitHead waits (up to ctx) until the store holds match's event seq, so
// a client that saw seq on one recorder reads it on any other
// (read-your-writes across recorders).
func (c *Cluster) WaitHead(ctx context.Context, match string, seq uint64) error {
	for {
		ch := c.progressCh()
		head, _, err := c.st.StreamHead(ctx, match)
		if err != nil {
			return err
		}
		if head.Seq >= seq {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: match %s: event %d has not reached this recorder yet (it has %d)", store.ErrUnavailable, match, seq, head.Seq)
		case <-ch:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// requestHeaders reads the request index entry a message carries.
func requestHeaders(h nats.Header) (key []byte, req store.Request, ok bool, err error) {
	k, v := h.Get(HeaderRequestKey), h.Get(HeaderRequestEntry)
	if k == "" && v == "" {
		return nil, store.Request{}, false, nil
	}
	if key, err = base64.StdEncoding.DecodeString(k); err != nil || len(key) == 0 {
		return nil, store.Request{}, false, fmt.Errorf("natsbus: bad %s header %q", HeaderRequestKey, k)
	}
	f := strings.Fields(v)
	if len(f) != 3 {
		return nil, store.Request{}, false, fmt.Errorf("natsbus: bad %s header %q", HeaderRequestEntry, v)
	}
	sum, err := hex.DecodeString(f[0])
	if err != nil || len(sum) != len(req.Statement) {
		return nil, store.Request{}, false, fmt.Errorf("natsbus: bad %s header %q", HeaderRequestEntry, v)
	}
	copy(req.Statement[:], sum)
	if req.First, err = strconv.ParseUint(f[1], 10, 64); err == nil {
		req.Last, err = strconv.ParseUint(f[2], 10, 64)
	}
	if err != nil {
		return nil, store.Request{}, false, fmt.Errorf("natsbus: bad %s header %q", HeaderRequestEntry, v)
	}
	return key, req, true, nil
}
