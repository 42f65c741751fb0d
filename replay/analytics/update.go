package analytics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Checkpoint is how far the tables have folded a match: its last event
// folded and that event's hash, so a store that no longer holds that event
// (a replaced data directory) is noticed and the match rebuilt.
type Checkpoint struct {
	Seq  uint64
	Head events.Hash
}

// Sink keeps the tables (replay/analytics/duckdb). Write applies batches atomically:
// either every row and checkpoint of the call is kept, or none.
type Sink interface {
	Checkpoints(ctx context.Context) (map[string]Checkpoint, error)
	Write(ctx context.Context, batches []Batch) error
}

// Defaults of an Updater.
const (
	// DefaultFlushRows is how many rows are written per transaction while
	// catching up: large enough to amortise the commit, small enough to
	// show progress and bound memory.
	DefaultFlushRows = 200_000
	// DefaultKeep is how many per-match folds stay in memory between
	// rounds, so a match that goes on is not folded again.
	DefaultKeep = 1024
)

// Updater keeps the tables current with a store incrementally: each match
// is folded once, from its checkpoint on, and only the rows of new events
// are written. It is safe for concurrent use; rounds run one at a time.
type Updater struct {
	Store  store.Store
	Lookup fold.Lookup
	Sink   Sink
	// FlushRows and Keep override DefaultFlushRows and DefaultKeep.
	FlushRows int
	Keep      int

	mu    sync.Mutex
	cps   map[string]Checkpoint // nil until loaded from the sink
	live  map[string]*deriver   // folds kept between rounds
	order []string              // live, oldest first (eviction)
}

// Round says what CatchUp does.
type Round struct {
	// IDs limits the round to these matches (nil: every match, and the
	// rows of matches the store no longer has are deleted).
	IDs []string
	// Budget, when set, ends the round once it has run that long (after
	// writing what it folded): callers that show progress ask again.
	Budget time.Duration
	// Progress is told how many of the matches behind have been folded.
	Progress func(done, total int)
}

// CatchUp folds every event the tables lack and writes the rows; it says
// what it did (the analytics-sync verb's result).
func (u *Updater) CatchUp(ctx context.Context, r Round) (api.SyncStats, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	start := time.Now()
	ids, progress := r.IDs, r.Progress
	var st api.SyncStats
	if u.cps == nil {
		cps, err := u.Sink.Checkpoints(ctx)
		if err != nil {
			return st, err
		}
		u.cps, u.live = cps, map[string]*deriver{}
	}
	infos, err := u.Store.Matches(ctx)
	if err != nil {
		return st, fmt.Errorf("analytics: list matches: %w", err)
	}
	st.Matches = len(infos)
	var stale []store.MatchInfo
	var batches []Batch
	if ids == nil {
		present := make(map[string]bool, len(infos))
		for _, mi := range infos {
			present[mi.ID] = true
		}
		for id := range u.cps {
			if !present[id] {
				batches = append(batches, Batch{Match: id, Gone: true})
			}
		}
	} else {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		kept := infos[:0:0]
		for _, mi := range infos {
			if want[mi.ID] {
				kept = append(kept, mi)
			}
		}
		infos = kept
	}
	for _, mi := range infos {
		if cp, ok := u.cps[mi.ID]; !ok || cp.Seq != mi.Head.Seq || cp.Head != mi.Head.Hash {
			stale = append(stale, mi)
		}
	}
	st.Behind = len(stale)
	flush := func() error {
		if len(batches) == 0 {
			return nil
		}
		if err := u.Sink.Write(ctx, batches); err != nil {
			// What was folded is not written: forget those folds, so the
			// next round starts again from the stored checkpoints.
			for _, b := range batches {
				u.drop(b.Match)
			}
			return err
		}
		for _, b := range batches {
			if b.Gone {
				delete(u.cps, b.Match)
				u.drop(b.Match)
				continue
			}
			u.cps[b.Match] = Checkpoint{Seq: b.Seq, Head: b.Head}
			st.Rows += b.Rows()
		}
		batches = batches[:0]
		return nil
	}
	rows := 0
	for i, mi := range stale {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if r.Budget > 0 && i > 0 && time.Since(start) > r.Budget { // one match at least: every round progresses
			st.Remaining = len(stale) - i
			break
		}
		st.Folded++
		b, n, err := u.fold(ctx, mi)
		if err != nil {
			return st, fmt.Errorf("analytics: match %s: %w", mi.ID, err)
		}
		st.Events += n
		batches = append(batches, b)
		rows += b.Rows()
		if rows >= u.flushRows() {
			if err := flush(); err != nil {
				return st, err
			}
			rows = 0
		}
		if progress != nil {
			progress(i+1, len(stale))
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	st.Took = time.Since(start)
	return st, nil
}

// fold folds match mi's events past its checkpoint into one batch.
func (u *Updater) fold(ctx context.Context, mi store.MatchInfo) (Batch, uint64, error) {
	cp, had := u.cps[mi.ID]
	b := Batch{Match: mi.ID}
	d := u.live[mi.ID]
	if d != nil && d.f.State.Seq != cp.Seq {
		d = nil // out of step with the checkpoint (a failed write): restore
	}
	from := cp.Seq
	if had && from > 0 {
		// The event at the checkpoint must still be the one folded; if
		// the store says otherwise, the match is rebuilt from event 1.
		ok := false
		err := u.Store.Scan(ctx, mi.ID, from, func(e events.Event) error {
			ok = e.Seq == cp.Seq && e.Hash == cp.Head
			return events.ErrStop
		})
		if err != nil && !errors.Is(err, events.ErrStop) {
			return b, 0, err
		}
		if !ok {
			had, from, d = false, 0, nil
			b.Reset = true
		}
	}
	if d == nil {
		var err error
		if d, err = u.restore(ctx, mi, from); err != nil {
			return b, 0, err
		}
	}
	d.info = mi
	var n uint64
	err := u.Store.Scan(ctx, mi.ID, from+1, func(e events.Event) error {
		n++
		return d.apply(e, &b)
	})
	if err != nil {
		u.drop(mi.ID)
		return b, n, err
	}
	b.Seq, b.Head, b.Row, b.Players = d.f.State.Seq, d.f.State.Head, d.matchRow(), d.playerRows()
	b.Measurements = d.measurementRows()
	u.keep(mi.ID, d)
	return b, n, nil
}

// restore makes a fold of match mi at event seq (0: a fresh one) whose
// next event yields rows. The state comes from the store's snapshots
// (fold.Seeker); an attack in progress there is folded again from its
// declaration, without rows, so its expected values count every roll.
func (u *Updater) restore(ctx context.Context, mi store.MatchInfo, seq uint64) (*deriver, error) {
	lin, err := fold.LineageOf(ctx, u.Store, mi.ID)
	if err != nil {
		return nil, err
	}
	d := newDeriver(mi, u.Lookup, lin)
	if seq == 0 {
		return d, nil
	}
	k := &fold.Seeker{Log: u.Store, Lookup: u.Lookup}
	s, err := k.StateAt(ctx, mi.ID, seq)
	if err != nil {
		return nil, err
	}
	if s.Attack != nil && s.Attack.Seq > 1 {
		if s, err = k.StateAt(ctx, mi.ID, s.Attack.Seq-1); err != nil {
			return nil, err
		}
	}
	rules, err := u.Lookup(s.Edition)
	if err != nil {
		return nil, err
	}
	d.f.Resume(s, rules)
	d.edition, d.silent = s.Edition, seq
	if s.LastAttack != nil {
		d.lastAttack = s.LastAttack.Seq
	}
	var sink Batch
	err = u.Store.Scan(ctx, mi.ID, s.Seq+1, func(e events.Event) error {
		if e.Seq > seq {
			return events.ErrStop
		}
		return d.apply(e, &sink)
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	return d, nil
}

func (u *Updater) keep(id string, d *deriver) {
	if d.f.State.Ended {
		// An ended match rarely gets more events; fold it again if it does.
		u.drop(id)
		return
	}
	if _, ok := u.live[id]; !ok {
		u.order = append(u.order, id)
	}
	u.live[id] = d
	for len(u.live) > u.keepN() && len(u.order) > 0 {
		old := u.order[0]
		u.order = u.order[1:]
		delete(u.live, old)
	}
}

func (u *Updater) drop(id string) {
	if _, ok := u.live[id]; !ok {
		return
	}
	delete(u.live, id)
	for i, x := range u.order {
		if x == id {
			u.order = append(u.order[:i], u.order[i+1:]...)
			break
		}
	}
}

func (u *Updater) flushRows() int {
	if u.FlushRows > 0 {
		return u.FlushRows
	}
	return DefaultFlushRows
}

func (u *Updater) keepN() int {
	if u.Keep > 0 {
		return u.Keep
	}
	return DefaultKeep
}

// Forget drops what the updater knows of the sink's checkpoints, so the
// next round reads them again (after the sink was rebuilt).
func (u *Updater) Forget() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.cps, u.live, u.order = nil, nil, nil
}
