package fold

import "github.com/matchrec/matchrec/projector"

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

	kept LRU[stateAt, *projector.State]
}

// stateAt names a kept state: its match and the event it follows.
type stateAt struct {
	match string
	seq   uint64
}

// get returns a copy of match's state after event seq, if kept.
func (c *States) get(match string, seq uint64) (*projector.State, bool) {
	if c == nil {
		return nil, false
	}
	st, ok := c.kept.Get(stateAt{match, seq})
	if !ok {
		return nil, false
	}
	return st.Clone(), true
}

// put keeps a copy of st, a verified state of match.
func (c *States) put(match string, st *projector.State) {
	if c == nil {
		return
	}
	limit := c.Max
	if limit <= 0 {
		limit = DefaultStates
	}
	c.kept.Put(stateAt{match, st.Seq}, st.Clone(), limit)
}

// drop forgets match's state after event seq (a snapshot found wrong).
func (c *States) drop(match string, seq uint64) {
	if c == nil {
		return
	}
	c.kept.Delete(stateAt{match, seq})
}
