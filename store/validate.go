package store

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
)

// CheckAppend checks everything about an append that does not depend on
// the match's current head: a valid match id, events of that match
// numbered expected+1, expected+2, …, each linked to the one before and
// hashed over its content. Backends run it in the caller's goroutine (so
// hashing is spread over callers) and then check only expected and the
// first PrevHash against the head.
//
// Consequently an append that is both malformed and stale gets ErrInvalid,
// not ErrConflict: retrying it against a fresh head could never succeed.
func CheckAppend(match string, expected uint64, evs []events.Event) error {
	if len(evs) == 0 {
		return fmt.Errorf("%w: match %q: no events", ErrInvalid, match)
	}
	if !events.ValidMatchID(match) {
		return fmt.Errorf("%w: match id %q must be 1-64 letters, digits, '-' or '_'", ErrInvalid, match)
	}
	for i, e := range evs {
		if e.Match != match {
			return fmt.Errorf("%w: match %q: event %d belongs to match %q", ErrInvalid, match, i, e.Match)
		}
		if want := expected + 1 + uint64(i); e.Seq != want {
			return fmt.Errorf("%w: match %q: event %d has seq %d, want %d", ErrInvalid, match, i, e.Seq, want)
		}
		if i > 0 && e.PrevHash != evs[i-1].Hash {
			return fmt.Errorf("%w: match %q event %d: prev_hash does not link to event %d", ErrInvalid, match, e.Seq, e.Seq-1)
		}
		if events.ComputeHash(e) != e.Hash {
			return fmt.Errorf("%w: match %q event %d: hash does not match its content", ErrInvalid, match, e.Seq)
		}
	}
	return nil
}
