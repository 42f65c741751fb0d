package fold

import (
	"container/list"
	"sync"
)

// LRU is a bounded map that forgets its least recently used entries: the
// decoded snapshot states a Seeker keeps (States) and the positioned
// narrators the readers keep (replay.Narrators) are both one. The zero
// value is empty and ready; safe for concurrent use.
type LRU[K comparable, V any] struct {
	mu    sync.Mutex
	order *list.List // of *lruEntry, most recently used first
	index map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

// Get returns k's value and makes it the most recently used.
func (c *LRU[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).val, true
}

// Take returns k's value and forgets it: its caller has it to itself.
func (c *LRU[K, V]) Take(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.Remove(el)
	delete(c.index, k)
	return el.Value.(*lruEntry[K, V]).val, true
}

// Put keeps v under k as the most recently used, then forgets the least
// recently used entries past max.
func (c *LRU[K, V]) Put(k K, v V, max int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order == nil {
		c.order, c.index = list.New(), map[K]*list.Element{}
	}
	if el, ok := c.index[k]; ok {
		el.Value.(*lruEntry[K, V]).val = v
		c.order.MoveToFront(el)
		return
	}
	c.index[k] = c.order.PushFront(&lruEntry[K, V]{k, v})
	for c.order.Len() > max {
		old := c.order.Remove(c.order.Back()).(*lruEntry[K, V])
		delete(c.index, old.key)
	}
}

// Delete forgets k.
func (c *LRU[K, V]) Delete(k K) { c.Take(k) }

// Len is how many entries are kept.
func (c *LRU[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order == nil {
		return 0
	}
	return c.order.Len()
}
