package bolt

import (
	"sync"

	"golang.org/x/mod/sumdb/tlog"
)

// hashCache keeps stored hashes of the transparency log by index, in
// front of the tlog-hashes bucket. Every receipt and every bus message
// carries an inclusion proof, and each proof reads O(log n) stored hashes:
// the ones the last commits wrote and the roots of the big subtrees that
// every proof shares. A stored hash never changes once its transaction
// has committed, so a copy cannot go stale; only committed hashes enter
// (logTx.ReadHashes puts those it read below the size its transaction
// started at; a writer's own hashes enter when its transaction commits).
// Direct-mapped: slot index mod hashCacheSlots, the newer hash wins.
type hashCache struct {
	mu    sync.Mutex
	slots []cachedHash
}

type cachedHash struct {
	idx int64 // stored hash index + 1 (0: empty)
	h   tlog.Hash
}

// hashCacheSlots is a power of two: 16,384 slots, 640 KB, hold the hashes
// of the last few thousand entries and every subtree root a proof needs.
const hashCacheSlots = 1 << 14

func newHashCache() *hashCache {
	return &hashCache{slots: make([]cachedHash, hashCacheSlots)}
}

// get returns hash idx if cached. A nil cache holds nothing.
func (c *hashCache) get(idx int64) (tlog.Hash, bool) {
	if c == nil {
		return tlog.Hash{}, false
	}
	c.mu.Lock()
	s := c.slots[idx&(hashCacheSlots-1)]
	c.mu.Unlock()
	return s.h, s.idx == idx+1
}

// put caches committed hash idx.
func (c *hashCache) put(idx int64, h tlog.Hash) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.slots[idx&(hashCacheSlots-1)] = cachedHash{idx: idx + 1, h: h}
	c.mu.Unlock()
}

// putFrom caches hashes first, first+1, ... (a committed leaf's).
func (c *hashCache) putFrom(first int64, hs []tlog.Hash) {
	if c == nil {
		return
	}
	c.mu.Lock()
	for i, h := range hs {
		idx := first + int64(i)
		c.slots[idx&(hashCacheSlots-1)] = cachedHash{idx: idx + 1, h: h}
	}
	c.mu.Unlock()
}
