package bolt

import (
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// validate checks everything about an append that does not depend on the
// match's current head: it runs in the caller's goroutine, so the hashing
// is spread over the callers instead of serialised in the writer. The
// writer then checks only expected against the head and the first PrevHash
// against the head's hash.
//
// Consequently an append that is both malformed and stale gets ErrInvalid,
// not ErrConflict: retrying it against a fresh head could never succeed.
func validate(match string, expected uint64, evs []events.Event) error {
	if len(evs) == 0 {
		return fmt.Errorf("%w: match %q: no events", store.ErrInvalid, match)
	}
	if match == "" || len(match) > bbolt.MaxKeySize {
		return fmt.Errorf("%w: match id must be 1..%d bytes, got %d", store.ErrInvalid, bbolt.MaxKeySize, len(match))
	}
	for i, e := range evs {
		if e.Match != match {
			return fmt.Errorf("%w: match %q: event %d belongs to match %q", store.ErrInvalid, match, i, e.Match)
		}
		if want := expected + 1 + uint64(i); e.Seq != want {
			return fmt.Errorf("%w: match %q: event %d has seq %d, want %d", store.ErrInvalid, match, i, e.Seq, want)
		}
		if i > 0 && e.PrevHash != evs[i-1].Hash {
			return fmt.Errorf("%w: match %q event %d: prev_hash does not link to event %d", store.ErrInvalid, match, e.Seq, e.Seq-1)
		}
		if events.ComputeHash(e) != e.Hash {
			return fmt.Errorf("%w: match %q event %d: hash does not match its content", store.ErrInvalid, match, e.Seq)
		}
	}
	return nil
}
