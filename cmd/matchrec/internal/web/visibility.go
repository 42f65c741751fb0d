package web

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// visibility decides what a public viewer may see under the broadcast
// delay D: event N is public once every event up to N was recorded at
// least D ago (recording time = the event's Time). The public events are
// therefore always a prefix of the match, so a public view is a real state
// of the match, never a mix, and the public head only ever grows. The hubs
// release events by the same rule (release), so /state, /events, /stream
// and /matches agree on what is public.
//
// Most matches are wholly public: the index entry's Updated (the latest
// event time, never decreasing) is older than D, and that answers without
// reading the match. Only a match with events in the last D reads their
// times, once each, kept for a few hundred such matches.
type visibility struct {
	st    store.Store
	ix    store.Index
	delay time.Duration
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*recent
}

// recent is what a match recorded lately: the times of its events after
// public, its public head (which never shrinks).
type recent struct {
	public uint64
	times  []int64 // times[i] is the Time of event public+1+i
}

// maxRecent bounds the matches whose recent times are kept.
const maxRecent = 512

func newVisibility(st store.Store, ix store.Index, delay time.Duration) *visibility {
	return &visibility{st: st, ix: ix, delay: delay, now: time.Now, m: map[string]*recent{}}
}

// Head returns the last event the viewer may see: the stored head for the
// judge or without a delay, the public head otherwise (0 while nothing of
// the match is public yet). An unknown match is store.ErrNotFound.
func (v *visibility) Head(ctx context.Context, match string, judge bool) (uint64, error) {
	if judge || v.delay == 0 {
		h, err := v.st.Head(ctx, match)
		return h.Seq, err
	}
	e, err := v.ix.MatchEntry(ctx, match)
	if err != nil {
		return 0, err
	}
	return v.public(ctx, &e)
}

// Public is e as a public viewer may see it: its head, last event time,
// status and winner as of its public head (ok is false while nothing of it
// is public).
func (v *visibility) Public(ctx context.Context, e store.MatchEntry) (store.MatchEntry, bool, error) {
	if v.delay == 0 {
		return e, true, nil
	}
	p, err := v.public(ctx, &e)
	if err != nil || p == 0 {
		return e, false, err
	}
	if p < e.Head {
		e.Head, e.Updated = p, v.cutoff()
		if e.EndedAt > p {
			e.Status, e.Winner, e.EndedAt = store.StatusLive, "", 0
		}
	}
	return e, true, nil
}

func (v *visibility) cutoff() int64 { return v.now().Add(-v.delay).UnixNano() }

// public is the public head of the match of entry e.
func (v *visibility) public(ctx context.Context, e *store.MatchEntry) (uint64, error) {
	cutoff := v.cutoff()
	if e.Updated <= cutoff {
		v.mu.Lock()
		delete(v.m, e.ID)
		v.mu.Unlock()
		return e.Head, nil
	}
	if e.Created > cutoff {
		return 0, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	r := v.m[e.ID]
	if r == nil {
		if len(v.m) >= maxRecent {
			clear(v.m) // a cache: matches still recent fill it again
		}
		r = &recent{}
		v.m[e.ID] = r
	}
	if have := r.public + uint64(len(r.times)); have < e.Head {
		err := v.st.Scan(ctx, e.ID, have+1, func(ev events.Event) error {
			if ev.Seq > e.Head {
				return events.ErrStop
			}
			r.times = append(r.times, ev.Time)
			return nil
		})
		if err != nil && !errors.Is(err, events.ErrStop) {
			return 0, err
		}
	}
	n := 0
	for n < len(r.times) && r.times[n] <= cutoff {
		n++
	}
	r.public += uint64(n)
	r.times = r.times[n:]
	return r.public, nil
}

// release is when an event recorded at t (Unix ns) may reach the viewer,
// given the release of the event before it: never before that one, so a
// clock that stepped back cannot reorder the stream.
func (v *visibility) release(judge bool, t int64, prev time.Time) time.Time {
	if judge || v.delay == 0 {
		return time.Time{}
	}
	at := time.Unix(0, t).Add(v.delay)
	if at.Before(prev) {
		return prev
	}
	return at
}
