// Package store defines where matchrec keeps its events: a small interface
// with a bbolt backend (store/bolt) for real use and an in-memory one
// (store/mem) for unit tests of logic, both held to one conformance suite
// (store/storetest).
package store

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/matchrec/matchrec/events"
)

// Sentinel errors. Implementations wrap them with context; test with errors.Is.
var (
	// ErrConflict: the expected sequence given to Append is not the match's
	// head. Nothing was written.
	ErrConflict = errors.New("append conflict: the match has moved on")
	// ErrNotFound: no such match.
	ErrNotFound = errors.New("match not found")
	// ErrInvalid: the events given to Append are not a valid continuation
	// (wrong match, sequence gap, broken hash link). Nothing was written.
	ErrInvalid = errors.New("invalid append")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store closed")
	// ErrDuplicate: AppendRequest's request key is already in the index:
	// the command was recorded before. Nothing was written.
	ErrDuplicate = errors.New("request already recorded")
	// ErrDiverged: an event read from the cluster's stream differs from
	// the one stored at its place (docs/cluster.md). Nothing was
	// overwritten; it is an alarm, never a retry.
	ErrDiverged = errors.New("the store diverges from the stream")
	// ErrUnavailable: a cluster's stream could not confirm an append
	// (quorum lost, no stream leader, timeout). Nothing is in the store;
	// if the stream did take the events, the follower brings them.
	ErrUnavailable = errors.New("the cluster is unavailable")
	// ErrDiskFull: the store could not write for want of disk space (or
	// quota). Nothing of the write is in the store; once space is freed
	// the same append succeeds.
	ErrDiskFull = errors.New("the disk is full")
)

// DiskFull wraps err with ErrDiskFull when the operating system said the
// disk (or the user's quota) is full: ENOSPC, EDQUOT. Other errors come
// back as they are.
func DiskFull(err error) error {
	if err != nil && !errors.Is(err, ErrDiskFull) && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	}
	return err
}

// Head is the last event of a match.
type Head struct {
	Seq  uint64      `json:"seq"`
	Hash events.Hash `json:"hash"`
}

// MatchInfo summarises a stored match for listing.
type MatchInfo struct {
	ID      string `json:"id"`
	Head    Head   `json:"head"`
	Created int64  `json:"created"` // time of event 1, Unix nanoseconds
	// Parent and At name the match and event a branch was forked from.
	Parent string `json:"parent,omitempty"`
	At     uint64 `json:"at,omitempty"`
}

// Store is an append-only, per-match event log.
//
// Edge cases every implementation honours (the conformance suite checks them):
//   - Append with expected == the match's head Seq (0 for a new match)
//     writes all events atomically; otherwise ErrConflict and nothing is
//     written. evs must be non-empty, all of the match, numbered expected+1,
//     expected+2, ... and hash-linked to the head; otherwise ErrInvalid.
//   - Append returns only once its events are durable.
//   - Scan calls fn for each event with Seq >= from (from 0 or 1 = all), in
//     sequence order; it stops early and returns fn's error if fn fails.
//     Scanning an unknown match returns ErrNotFound.
//   - Head of an unknown match returns ErrNotFound.
//   - Matches lists every match, ordered by id.
type Store interface {
	Append(ctx context.Context, match string, expected uint64, evs []events.Event) error
	Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error
	Head(ctx context.Context, match string) (Head, error)
	Matches(ctx context.Context) ([]MatchInfo, error)
	Close() error
}

// OutboxEntry names an event waiting to be published.
type OutboxEntry struct {
	Key   uint64 // the outbox's own order, ascending in commit order
	Event events.Event
	// Leaf is the event's entry in the store's transparency log (HeadLog),
	// -1 when the store does not say.
	Leaf int64
}

// Outbox is an optional ability (found by type assertion): a store that
// also records, in the same transaction as each append, that the event is
// still to be published. A relay reads Pending in commit order and calls Ack
// once the bus has acknowledged them, so events survive a bus outage.
type Outbox interface {
	// Pending calls fn for up to limit waiting entries, in commit order.
	Pending(ctx context.Context, limit int, fn func(OutboxEntry) error) error
	// Ack removes published entries from Pending at once. Their removal
	// may become durable only with the store's next write (store/bolt
	// folds it into the next append's transaction), so after a crash an
	// acked entry can be pending again: a relay must recognise an event it
	// already published. Unknown keys are ignored.
	Ack(ctx context.Context, keys []uint64) error
	// Notify returns a channel that receives a value (non-blocking send)
	// whenever new entries are committed.
	Notify() <-chan struct{}
}

// Secrets is a durable place for each match's secret dice seeds, outside
// the event log, so they are never published or exported before the
// recorder reveals them (docs/dice.md). It is not optional for recording:
// the recorder takes a store that has it (recorder.Store), because Create
// and Branch commit to a seed. Readers never need it. PutSecret returns
// only once the secret is durable.
type Secrets interface {
	PutSecret(ctx context.Context, match string, epoch int, secret []byte) error
	// Secret returns ErrNotFound for an unknown match or epoch.
	Secret(ctx context.Context, match string, epoch int) ([]byte, error)
}

// Request is the index entry of a recorded command: the SHA-256 of its
// statement and the events it recorded.
type Request struct {
	Statement [32]byte `json:"statement"`
	First     uint64   `json:"first"`
	Last      uint64   `json:"last"`
}

// Requests is an optional ability (found by type assertion), required by
// the recorder: an index of the commands recorded in each match, by a key
// (the statement's role and nonce, events/auth.Statement.Key), written in
// the same transaction as the command's events. A retried command is
// answered from it with what it recorded the first time, and the index
// can never name events that were not written, nor miss events that were.
type Requests interface {
	// AppendRequest is Append plus the index entry key → req, atomically.
	// If key is indexed already it returns ErrDuplicate and writes
	// nothing (that check comes before the head's).
	AppendRequest(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req Request) error
	// Request returns the entry of key in match's index, or ErrNotFound.
	Request(ctx context.Context, match string, key []byte) (Request, error)
}

// RawScanner is an optional ability (found by type assertion): the stored
// records of a match exactly as they are, keyed by their position, without
// decoding or checking them. The audit reads through it, so a damaged,
// swapped or undecodable record is reported by the audit (naming its
// position) instead of stopping the read.
type RawScanner interface {
	// ScanRaw calls fn with each record's key (the sequence number it is
	// stored under) and bytes, in key order, from key from on (0 or 1 =
	// all). The bytes are a copy.
	ScanRaw(ctx context.Context, match string, from uint64, fn func(key uint64, record []byte) error) error
}

// Snapshots is an optional ability (found by type assertion): a cache of
// encoded states, each kept under the sequence number of the event it
// follows, so a seek folds from the nearest snapshot instead of event 1.
// The store only keeps bytes: encoding, checking and trusting them is the
// fold's business (projector/fold, snapshot.go), which never trusts a
// snapshot over the events and deletes one that fails its checks. The
// signatures use plain types so that package declares the same interface
// without importing this one.
type Snapshots interface {
	// PutSnapshots writes snapshots (data by sequence) in one transaction.
	PutSnapshots(ctx context.Context, match string, snaps map[uint64][]byte) error
	// NearestSnapshot returns the snapshot with the greatest sequence <=
	// seq, or ErrNotFound.
	NearestSnapshot(ctx context.Context, match string, seq uint64) (at uint64, data []byte, err error)
	DeleteSnapshot(ctx context.Context, match string, seq uint64) error
}

// Brancher is an optional ability (found by type assertion): a branch is a
// match whose history is another match's events 1..at, kept as a pointer
// (parent, fork sequence) and never copied, followed by its own events.
//
//   - Branch creates branch id of parent at event at (1 <= at <= the
//     parent's head) together with its first own events (numbered at+1…,
//     the first linked to the parent's event at), atomically. ErrConflict if
//     id exists, ErrNotFound if parent does not, ErrInvalid otherwise.
//   - Scan of a branch yields the inherited events first (each with the
//     Match of the match that recorded it), then its own; Head and Append
//     continue from the branch's own head. Branches of branches work.
//   - Lineage returns the branch's chain from the root match, the last
//     element being id itself with Upto 0; a match that is no branch has a
//     lineage of one element.
type Brancher interface {
	Branch(ctx context.Context, id, parent string, at uint64, evs []events.Event) error
	Lineage(ctx context.Context, id string) ([]events.BranchPoint, error)
}

// StreamEvent is an event as a cluster's stream holds it: its stream
// sequence and, on the last event of a command, the request index entry
// the command made (Requests), so a retried command is recognised by
// every recorder (docs/cluster.md).
type StreamEvent struct {
	Event     events.Event
	StreamSeq uint64
	Key       []byte // nil: no index entry
	Request   Request
}

// Streamed is an optional ability (found by type assertion), required by a
// cluster recorder: a store that is a full local copy of the cluster's
// stream. Both ways in are idempotent — an event stored already is
// skipped if it is the same, and ErrDiverged if it differs — because the
// recorder's own appends and its follower write the same events in
// either order.
type Streamed interface {
	// AppendStream writes the events of one command that the stream has
	// acknowledged, returning once they are durable.
	AppendStream(ctx context.Context, match string, evs []StreamEvent) error
	// Follow applies events read from a stream in stream order, in one
	// transaction, and records that stream's position pos (stream "": the
	// cluster's own; another name: a stream followed beside it, a hub's
	// archive of its venues, whose events' StreamSeq is 0: they are never
	// appended to here). It returns the matches whose head moved (with the
	// new head) and the events it refused (divergences, gaps), having
	// applied the others.
	Follow(ctx context.Context, stream string, evs []StreamEvent, pos uint64) (moved map[string]uint64, rejected []error, err error)
	// Followed is the position Follow last recorded for stream (0: none).
	Followed(ctx context.Context, stream string) (uint64, error)
	// StreamHead is a match's head and the stream sequence of its last
	// event (zero values for an unknown match), read together.
	StreamHead(ctx context.Context, match string) (head Head, streamSeq uint64, err error)
}
