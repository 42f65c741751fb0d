package headlog

import (
	"fmt"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
)

// MemTree is a log kept in memory: the stored hashes (tlog's layout) and
// the entries. Tests, and verifiers that rebuild a tree from entries they
// read (a tile mirror), use it; the recorder's durable log lives in its
// bbolt file (store/bolt) with the same layout.
type MemTree struct {
	mu      sync.RWMutex
	hashes  []tlog.Hash
	entries [][]byte
}

// Append adds an entry and returns its index.
func (t *MemTree) Append(entry []byte) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int64(len(t.entries))
	hs, err := tlog.StoredHashes(n, entry, t.reader())
	if err != nil {
		return 0, err
	}
	t.hashes = append(t.hashes, hs...)
	t.entries = append(t.entries, entry)
	return n, nil
}

// Size is the number of entries.
func (t *MemTree) Size() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return int64(len(t.entries))
}

// Entry returns entry i.
func (t *MemTree) Entry(i int64) []byte {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.entries[i]
}

// ReadHashes implements tlog.HashReader.
func (t *MemTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.reader().ReadHashes(idx)
}

func (t *MemTree) reader() tlog.HashReader {
	return tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			if x < 0 || x >= int64(len(t.hashes)) {
				return nil, fmt.Errorf("headlog: no stored hash %d", x)
			}
			out[i] = t.hashes[x]
		}
		return out, nil
	})
}
