package fold

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Snapshots is an optional ability of a Log (store.Snapshots has the same
// methods): a cache of encoded states, each under the sequence of the event
// it follows. The store keeps bytes; this file frames and checks them, and
// the Seeker never trusts one over the events.
type Snapshots interface {
	// PutSnapshots writes snapshots (data by sequence) in one transaction.
	PutSnapshots(ctx context.Context, match string, snaps map[uint64][]byte) error
	// NearestSnapshot returns the snapshot with the greatest sequence <=
	// seq, or an error when there is none.
	NearestSnapshot(ctx context.Context, match string, seq uint64) (at uint64, data []byte, err error)
	DeleteSnapshot(ctx context.Context, match string, seq uint64) error
}

// snapshot framing: a checksum so a damaged cache is caught before it is
// decoded, and the version and head so a stale one is caught after.
type snapshotRecord struct {
	Version int         `json:"v"`
	Edition string      `json:"e"`
	Seq     uint64      `json:"s"`
	Head    events.Hash `json:"h"`
	Sum     []byte      `json:"c"` // SHA-256 of State
	State   []byte      `json:"st"`
}

// EncodeSnapshot frames a state for the cache.
func EncodeSnapshot(s *projector.State) ([]byte, error) {
	b, err := s.Encode()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return events.EncodeValue(snapshotRecord{Version: projector.StateVersion, Edition: s.Edition, Seq: s.Seq, Head: s.Head, Sum: sum[:], State: b})
}

// DecodeSnapshot checks and decodes a cached snapshot, with the rules of
// the edition its framing names (lookup): the state's edition part is the
// edition's own type.
func DecodeSnapshot(b []byte, lookup Lookup) (*projector.State, error) {
	var r snapshotRecord
	if err := events.DecodeValue(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSnapshot, err)
	}
	if r.Version != projector.StateVersion {
		return nil, fmt.Errorf("%w: state version %d, this build folds version %d", ErrBadSnapshot, r.Version, projector.StateVersion)
	}
	if sum := sha256.Sum256(r.State); !bytes.Equal(sum[:], r.Sum) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadSnapshot)
	}
	rules, err := lookup(r.Edition)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSnapshot, err)
	}
	s, err := projector.DecodeState(r.State, rules)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSnapshot, err)
	}
	if s.Seq != r.Seq || s.Head != r.Head || s.Edition != r.Edition {
		return nil, fmt.Errorf("%w: framing does not match the state inside", ErrBadSnapshot)
	}
	return s, nil
}

// snapshotSum returns the state hash a snapshot holds (its checksum, the
// SHA-256 of the encoded state, which is State.Hash), or the zero hash for
// one that is damaged or of another StateVersion.
func snapshotSum(b []byte) events.Hash {
	var r snapshotRecord
	if events.DecodeValue(b, &r) != nil || r.Version != projector.StateVersion {
		return events.Hash{}
	}
	sum := sha256.Sum256(r.State)
	if !bytes.Equal(sum[:], r.Sum) {
		return events.Hash{}
	}
	return sum
}
