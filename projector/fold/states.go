package fold

import (
	"container/list"
	"sync"

	"github.com/matchrec/matchrec/projector"
)

// DefaultStates is how many decoded snapshot states a States keeps.
const DefaultStates = 128

// States keeps the snapshot states a Seeker decoded and verified, so the
// next seek near them copies a state instead of decoding one: decoding a
// snapshot is most of a seek. It holds at most Max states, dropping the
// least recently used, and is shared by the Seekers of a process (one per
// store: the recorder's). A state here was checked as a snapshot is
// (checksum, version, sitting on its stored event) when it was decoded.
// Safe for concurrent use.
type States struct {
	// Max bounds the states kept; 0 is DefaultStates.
	Max int

	mu    sync.Mutex
	order *list.List // of *keptState, most recently used first
	index map[stateAt]*list.Element
}

// stateAt names a kept state: its match and the event it follows.
type stateAt struct {
	match string
	seq   uint64
}

type keptState struct {
	at stateAt
	st *projector.State
}

// get returns a copy of match's state after event seq, if kept.
func (c *States) get(match string, seq uint64) (*projector.State, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[stateAt{match, seq}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*keptState).st.Clone(), true
}

// put keeps a copy of st, a verified state of match.
func (c *States) put(match string, st *projector.State) {
	if c == nil {
		return
	}
	kept := st.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order == nil {
		c.order, c.index = list.New(), map[stateAt]*list.Element{}
	}
	at := stateAt{match, st.Seq}
	if el, ok := c.index[at]; ok {
		el.Value.(*keptState).st = kept
		c.order.MoveToFront(el)
		return
	}
	c.index[at] = c.order.PushFront(&keptState{at, kept})
	limit := c.Max
	if limit <= 0 {
		limit = DefaultStates
	}
	for c.order.Len() > limit {
		old := c.order.Remove(c.order.Back()).(*keptState)
		delete(c.index, old.at)
	}
}

// drop forgets match's state after event seq (a snapshot found wrong).
func (c *States) drop(match string, seq uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[stateAt{match, seq}]; ok {
		c.order.Remove(el)
		delete(c.index, el.Value.(*keptState).at)
	}
}
