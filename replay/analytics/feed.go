package analytics

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
)

// Recorded is an event as the recorder recorded it, with the payload it
// decided (so nobody decodes it again).
type Recorded struct {
	Event   events.Event
	Payload events.Payload
}

// Feed folds events the recorder has just recorded into the folds kept
// from earlier rounds and writes their rows, reading nothing from the
// store: the live tables cost the fold of each new event and its rows,
// not a scan. recs are in the order they were recorded, each match's
// events following one another. It returns the matches it could not feed
// — no fold kept at their checkpoint (a match new to this process, or
// evicted), events that do not follow it (some were dropped on the way),
// a write that failed — for the caller to catch up from the store
// (CatchUp).
func (u *Updater) Feed(ctx context.Context, recs []Recorded) (behind []string, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	var order []string
	byMatch := map[string][]Recorded{}
	for _, r := range recs {
		if _, ok := byMatch[r.Event.Match]; !ok {
			order = append(order, r.Event.Match)
		}
		byMatch[r.Event.Match] = append(byMatch[r.Event.Match], r)
	}
	if u.cps == nil { // the checkpoints are not loaded: CatchUp loads them
		return order, nil
	}
	var batches []Batch
	for _, id := range order {
		b, fed, whole := u.feedMatch(id, byMatch[id])
		if fed {
			batches = append(batches, b)
		}
		if !whole {
			behind = append(behind, id)
		}
	}
	if len(batches) == 0 {
		return behind, nil
	}
	if err := u.Sink.Write(ctx, batches); err != nil {
		for _, b := range batches {
			u.drop(b.Match)
			behind = append(behind, b.Match)
		}
		return behind, fmt.Errorf("analytics: write the live rows: %w", err)
	}
	for _, b := range batches {
		u.cps[b.Match] = Checkpoint{Seq: b.Seq, Head: b.Head}
	}
	return behind, nil
}

// feedMatch folds one match's recorded events into its kept fold: those
// it has folded already (a catch-up got there first) are skipped. fed says
// whether b holds rows to write; whole is false when it could not fold
// them all — no fold kept at its checkpoint, an event missing (dropped on
// the way), or one that does not fold (the fold is then dropped, to be
// restored from the store).
func (u *Updater) feedMatch(id string, recs []Recorded) (b Batch, fed, whole bool) {
	d, cp := u.live[id], u.cps[id]
	if d == nil || d.f.State.Seq != cp.Seq || d.f.State.Head != cp.Head {
		return b, false, false
	}
	b.Match = id
	whole = true
	for _, r := range recs {
		if r.Event.Seq <= d.f.State.Seq {
			continue
		}
		if r.Event.Seq != d.f.State.Seq+1 || r.Event.PrevHash != d.f.State.Head {
			whole = false
			break
		}
		if err := d.applyDecoded(r.Event, r.Payload, &b); err != nil {
			u.drop(id)
			return b, false, false
		}
		fed = true
	}
	if fed {
		b.Seq, b.Head, b.Row, b.Players = d.f.State.Seq, d.f.State.Head, d.matchRow(), d.playerRows()
		b.Measurements = d.measurementRows()
		u.keep(id, d)
	}
	return b, fed, whole
}
