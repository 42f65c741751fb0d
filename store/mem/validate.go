package mem

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// validate checks what does not depend on the head. It mirrors the bbolt
// backend's validate (store/bolt/validate.go) minus bbolt's key-size limit;
// the two are kept separate so each backend stands alone, and the
// conformance suite holds them to the same answers.
func validate(match string, expected uint64, evs []events.Event) error {
	if len(evs) == 0 {
		return fmt.Errorf("%w: match %q: no events", store.ErrInvalid, match)
	}
	if match == "" {
		return fmt.Errorf("%w: empty match id", store.ErrInvalid)
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
