package bolt

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/matchrec/matchrec/store"
)

// Outbox acks ride along with appends. A relay acks each batch it
// published; deleting those entries in a transaction of their own would
// cost a second fsync per batch, next to the append's. Instead Ack only
// records the keys (ackSet): Pending stops returning them at once, and the
// writer deletes them in its next commit — the next append's, or, when no
// append comes within AckDelay, one of their own. A crash before that
// commit brings them back as pending, and the relay meets events it has
// already published, which it recognises on the stream (store/natsbus):
// late acks cost nothing but a lookup, and never a duplicate.

// DefaultAckDelay is how long acked outbox entries wait for an append to
// carry their deletion before they get a commit of their own.
const DefaultAckDelay = 250 * time.Millisecond

// ackSet is the keys acked but not yet deleted on disk.
type ackSet struct {
	mu     sync.RWMutex
	hidden map[uint64]struct{}
}

func (a *ackSet) add(keys []uint64) {
	a.mu.Lock()
	if a.hidden == nil {
		a.hidden = make(map[uint64]struct{}, len(keys))
	}
	for _, k := range keys {
		a.hidden[k] = struct{}{}
	}
	a.mu.Unlock()
}

// has reports whether key is acked; callers hold no lock.
func (a *ackSet) has(key uint64) bool {
	a.mu.RLock()
	_, ok := a.hidden[key]
	a.mu.RUnlock()
	return ok
}

// take returns the keys to delete in the next commit (they stay hidden
// until deleted confirms the commit).
func (a *ackSet) take() []uint64 {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if len(a.hidden) == 0 {
		return nil
	}
	keys := make([]uint64, 0, len(a.hidden))
	for k := range a.hidden {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deletes in key order touch each page once
	return keys
}

// deleted forgets keys whose deletion is committed.
func (a *ackSet) deleted(keys []uint64) {
	if len(keys) == 0 {
		return
	}
	a.mu.Lock()
	for _, k := range keys {
		delete(a.hidden, k)
	}
	a.mu.Unlock()
}

// waiting is how many acked keys wait for a commit (tests).
func (a *ackSet) waiting() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.hidden)
}

// Ack marks published entries: Pending no longer returns them, and their
// deletion is committed with the next append (or after AckDelay). Unknown
// keys are ignored. It does not wait for the disk.
func (s *Store) Ack(ctx context.Context, keys []uint64) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	s.acks.add(keys)
	select {
	case s.ackKick <- struct{}{}:
	default: // the writer already knows acks are waiting
	}
	return nil
}
