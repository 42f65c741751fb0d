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
// of the match, never a mix, and the public head only ever grows. The event
// stream applies the same rule event by event (release), so /state,
// /events and /stream agree on what is public.
type visibility struct {
	st    store.Store
	delay time.Duration
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*recorded
}

// recorded caches the recording times of a match's events, read once each.
type recorded struct {
	times  []int64 // times[i] is the Time of event i+1
	public uint64  // the public head found last time; it never shrinks
}

func newVisibility(st store.Store, delay time.Duration) *visibility {
	return &visibility{st: st, delay: delay, now: time.Now, m: map[string]*recorded{}}
}

// Head returns the last event the viewer may see: the stored head for the
// judge or without a delay, the public head otherwise (0 while nothing of
// the match is public yet). An unknown match is store.ErrNotFound.
func (v *visibility) Head(ctx context.Context, match string, judge bool) (uint64, error) {
	h, err := v.st.Head(ctx, match)
	if err != nil {
		return 0, err
	}
	if judge || v.delay == 0 {
		return h.Seq, nil
	}
	return v.publicHead(ctx, match, h.Seq)
}

func (v *visibility) publicHead(ctx context.Context, match string, head uint64) (uint64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	r := v.m[match]
	if r == nil {
		r = &recorded{}
		v.m[match] = r
	}
	if have := uint64(len(r.times)); have < head {
		err := v.st.Scan(ctx, match, have+1, func(e events.Event) error {
			if e.Seq > head {
				return events.ErrStop
			}
			r.times = append(r.times, e.Time)
			return nil
		})
		if err != nil && !errors.Is(err, events.ErrStop) {
			return 0, err
		}
	}
	cutoff := v.now().Add(-v.delay).UnixNano()
	for r.public < uint64(len(r.times)) && r.times[r.public] <= cutoff {
		r.public++
	}
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
