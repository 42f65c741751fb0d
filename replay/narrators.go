package replay

import (
	"context"

	"github.com/matchrec/matchrec/projector/fold"
)

// DefaultNarrators is how many positioned narrators a Narrators keeps.
const DefaultNarrators = 64

// Narrators hands out narrators of stored matches positioned at any event,
// so telling events from..to costs the events told, not the match: a
// narrator is either the one a reader left there (the last page of `log`
// ends where the next begins) or one folded from the nearest verified
// snapshot (fold.Seeker). It keeps at most Max narrators, dropping the
// least recently used. Safe for concurrent use.
type Narrators struct {
	// Seeker reads the store and its snapshots.
	Seeker *fold.Seeker
	// Max bounds the narrators kept; 0 is DefaultNarrators.
	Max int

	parked fold.LRU[parkedAt, *Narrator]
}

// parkedAt is where a kept narrator stands: its match and next event.
type parkedAt struct {
	match string
	next  uint64
}

// At returns a narrator of match whose next event is from (0 or 1: the
// first). The caller has it to itself; Put hands it back once told.
func (c *Narrators) At(ctx context.Context, match string, from uint64) (*Narrator, error) {
	from = max(from, 1)
	if n := c.take(parkedAt{match, from}); n != nil {
		// The fold reads the log again after a ruling: with this caller's
		// context, not the one that parked it.
		n.f.Reread = fold.FromLog(ctx, c.Seeker.Log, match)
		return n, nil
	}
	f, err := c.Seeker.FolderAt(ctx, match, from-1)
	if err != nil {
		return nil, err
	}
	return &Narrator{f: f}, nil
}

// Put keeps n, a narrator At handed out, for the next reader of its
// match's following events. A narrator whose last Next failed must not
// be put back.
func (c *Narrators) Put(match string, n *Narrator) {
	at := parkedAt{match, n.State().Seq + 1}
	n.f.Reread = nil // holds the last caller's context
	limit := c.Max
	if limit <= 0 {
		limit = DefaultNarrators
	}
	c.parked.Put(at, n, limit)
}

func (c *Narrators) take(at parkedAt) *Narrator {
	n, _ := c.parked.Take(at)
	return n
}
