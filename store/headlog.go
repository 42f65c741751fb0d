package store

import (
	"context"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
)

// HeadLog is an optional ability (found by type assertion): the
// transparency log of heads (docs/transparency.md, events/headlog) kept
// in the store beside the events — every event an append writes is an
// entry of one Merkle tree over all matches, added in the append's own
// transaction, so the log never misses an acknowledged event nor names
// one that was not written. After each group commit the store signs one
// checkpoint of the tree (one signature for every append of the batch).
//
//   - AppendLogged is AppendRequest (nil key: Append) that also says where
//     the append's last event is in the log and which signed checkpoint
//     covers it. Without a signer the checkpoint is zero.
//   - Checkpoint is the newest signed checkpoint (ErrNotFound: nothing
//     signed yet, or no signer).
//   - LogLeaf is the leaf of match's event seq (seq 0: the match's newest
//     entry), ErrNotFound if the log has none.
//   - LogLeaves lists a match's entries: the leaf of its first (created),
//     its ended one (-1: none) and its newest.
//   - ProveInclusion and ProveConsistency prove against the tree of a size
//     up to the log's; LogEntry and LogHashes read the tree (the tiles the
//     web server serves).
type HeadLog interface {
	AppendLogged(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *Request) (Logged, error)
	Checkpoint(ctx context.Context) (headlog.Checkpoint, error)
	LogLeaf(ctx context.Context, match string, seq uint64) (int64, error)
	LogLeaves(ctx context.Context, match string) (MatchLeaves, error)
	ProveInclusion(ctx context.Context, leaf, size int64) (headlog.Inclusion, error)
	ProveConsistency(ctx context.Context, from, to int64) ([]tlog.Hash, error)
	LogEntry(ctx context.Context, leaf int64) ([]byte, error)
	LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error)
}

// Logged is where an append's last event is in the log, and the signed
// checkpoint of the batch that wrote it.
type Logged struct {
	Leaf       int64
	Checkpoint headlog.Checkpoint
}

// MatchLeaves are the leaves of a match's notable entries (-1: none).
type MatchLeaves struct {
	Created, Ended, Newest int64
}
