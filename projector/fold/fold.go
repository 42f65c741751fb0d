// Package fold turns a match's events back into board state: the fold of
// a match up to any event (Fold, Folder), as ruled or as played, the
// lineage of branches (which match recorded which events), and seeks
// through verified snapshots (Seeker). Folding is the projector's job, so
// the recorder and every reader (audit, narration, what-if, analytics, the
// web pages) fold through this one package.
//
// It reads a store through the small interfaces below (Log, Lineager,
// Snapshots), declared here with the signatures store/bolt and store/mem
// already have, so the projector needs no store.
package fold

import (
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Errors of the fold. Callers test them with errors.Is.
var (
	// ErrBeyondEnd: the sequence asked for is past the match's last event.
	ErrBeyondEnd = errors.New("sequence past the end of the match")
	// ErrBadSnapshot: a cached snapshot failed its checks.
	ErrBadSnapshot = errors.New("bad snapshot")
)

// Lookup finds an edition's rules by id (projector/editions.Lookup).
type Lookup func(edition string) (projector.Rules, error)

// Log is the event log a fold reads (store.Store has this method). Scan
// calls fn for each event of match with Seq >= from, in order, and returns
// fn's error when fn fails; an unknown match is an error.
type Log interface {
	Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error
}

// Lineager is an optional ability of a Log (store.Brancher has it): the
// lineage of a branch, from the root match down to id itself.
type Lineager interface {
	Lineage(ctx context.Context, id string) ([]events.BranchPoint, error)
}

// Fold folds match id from log up to and including event at (0 = all) and
// returns the state and the edition's rules. Every event is decoded and
// applied: an event that no longer folds fails loudly, naming it.
func Fold(ctx context.Context, log Log, id string, at uint64, lookup Lookup) (*projector.State, projector.Rules, error) {
	f := NewFolder(id, lookup)
	lin, err := LineageOf(ctx, log, id)
	if err != nil {
		return nil, nil, fmt.Errorf("fold match %s: %w", id, err)
	}
	f.Lineage, f.Reread = lin, FromLog(ctx, log, id)
	err = log.Scan(ctx, id, 1, func(e events.Event) error {
		if at != 0 && e.Seq > at {
			return events.ErrStop
		}
		return f.Apply(e)
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, nil, fmt.Errorf("fold match %s: %w", id, err)
	}
	if f.Rules == nil {
		return nil, nil, fmt.Errorf("fold match %s: the log has no events", id)
	}
	if at != 0 && f.State.Seq < at {
		return nil, nil, fmt.Errorf("%w: match %s has %d events, not %d", ErrBeyondEnd, id, f.State.Seq, at)
	}
	return f.State, f.Rules, nil
}

// Mode says how a fold reads judges' rulings.
type Mode int

const (
	// AsRuled folds the match as the judge ruled it: voided events are
	// skipped, amended ones read with the amended values, and events that
	// no longer fold after a ruling are skipped (and listed in
	// State.Skipped). Play goes on from this state.
	AsRuled Mode = iota
	// AsPlayed ignores rulings: the match as it was played. Events
	// recorded after a ruling that only make sense as ruled are skipped.
	AsPlayed
)

// Folder folds one match event by event, finding the edition from event 1.
//
// It keeps no history: a void or amend ruling changes how earlier events
// read, so the Folder then folds the match again from event 1, reading the
// events back through Reread. A Folder as ruled without Reread keeps the
// events it folds instead (in memory, for folds of an in-memory list);
// every fold of a stored match sets Reread, so its memory does not grow
// with the match.
type Folder struct {
	State *projector.State
	Rules projector.Rules
	Mode  Mode

	// Lineage, for a branch, says which match recorded which events
	// (Lineager); nil means every event must be of this match.
	Lineage []events.BranchPoint

	// Reread calls fn with the match's events from event 1, in order,
	// until fn fails (FromLog makes one). It is called only after a void
	// or amend ruling, as ruled; nil: a Folder as ruled keeps every event
	// it folds.
	Reread func(fn func(events.Event) error) error

	id      string // the match folded; "" = whichever match the events say (narration)
	lookup  Lookup
	vocab   events.Vocabulary             // the core's until event 1 names the edition, then the edition's
	kept    []events.Event                // the events folded, when there is no Reread
	last    folded                        // the event folded last
	rulings map[uint64]*events.RulingMade // ruled event seq → the void/amend ruling in force on it
	ruled   bool                          // a void/amend ruling has been seen
}

type folded struct {
	e events.Event
	p events.Payload
}

// NewFolder starts a fold of match id, as ruled.
func NewFolder(id string, lookup Lookup) *Folder {
	return &Folder{State: projector.New(id), id: id, lookup: lookup, vocab: events.Core(), rulings: map[uint64]*events.RulingMade{}}
}

// Resume makes f go on from s, a state of edition r folded elsewhere (a
// verified snapshot, a narrator's state): the next event f applies must
// follow s. It takes up the void and amend rulings s records, so as ruled
// a later ruling refolds under all of them, and events that no longer
// fold after one are skipped, as in a fold from event 1.
func (f *Folder) Resume(s *projector.State, r projector.Rules) {
	f.State, f.Rules, f.vocab = s, r, projector.Vocabulary(r)
	for _, d := range s.Disputes {
		if d.Ruling == 0 || !projector.Changes(d.Decision) {
			continue
		}
		f.ruled = true
		if in := s.InForce(d.Event); f.Mode == AsRuled && in != nil && in.Seq == d.Seq {
			// The ruling in force, whatever order the disputes were raised in.
			f.rulings[d.Event] = &events.RulingMade{Dispute: d.Seq, Event: d.Event, Decision: d.Decision, Values: d.Values, Models: d.Models, Facts: d.Facts, Note: d.Note}
		}
	}
}

// Decode decodes e's payload with the event types of the match's edition
// (only the core's before event 1 is folded, which is all event 1 needs),
// for a caller that reads a payload before folding it (ApplyDecoded).
func (f *Folder) Decode(e events.Event) (events.Payload, error) {
	return f.vocab.Decode(e)
}

// FromEvents returns a Reread (a scan) over events held in memory, in
// order, for a fold of them or a reader that scans (replay.Tell).
func FromEvents(evs []events.Event) func(fn func(events.Event) error) error {
	return func(fn func(events.Event) error) error {
		for _, e := range evs {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// FromLog returns a Reread over match id of log, for a Folder folding it.
func FromLog(ctx context.Context, log Log, id string) func(fn func(events.Event) error) error {
	return func(fn func(events.Event) error) error { return log.Scan(ctx, id, 1, fn) }
}

// Apply decodes and folds the next event.
func (f *Folder) Apply(e events.Event) error {
	p, err := f.vocab.Decode(e)
	if err != nil {
		return err
	}
	return f.ApplyDecoded(e, p)
}

// ApplyDecoded is Apply for an event whose payload the caller decoded
// already (with Decode): the audit looks at each payload before folding
// it, and decoding is the costliest part of a fold.
func (f *Folder) ApplyDecoded(e events.Event, p events.Payload) error {
	if want := RecordedBy(f.Lineage, f.id, e.Seq); f.id != "" && e.Match != want {
		return fmt.Errorf("event %d was recorded by match %s, but %s of match %s should be", e.Seq, e.Match, want, f.State.Match)
	}
	if f.Rules == nil {
		mc, ok := p.(*events.MatchCreated)
		if !ok {
			return fmt.Errorf("match %s: event %d is %s, not match.created", e.Match, e.Seq, e.Type)
		}
		r, err := f.lookup(mc.Edition)
		if err != nil {
			return err
		}
		f.Rules, f.vocab = r, projector.Vocabulary(r)
	}
	f.last = folded{e, p}
	if f.Reread == nil && f.Mode == AsRuled { // as played, nothing is refolded
		f.kept = append(f.kept, e)
	}
	if r, ok := p.(*events.RulingMade); ok && projector.Changes(r.Decision) {
		f.ruled = true
		if f.Mode == AsRuled {
			// The last void or amend ruling on an event is the one in
			// force (projector.State.InForce): it replaces any before it.
			f.rulings[r.Event] = r
			return f.refold()
		}
	}
	if f.ruled && f.Mode == AsRuled {
		// After a ruling, events that no longer fold are skipped (apply),
		// but an event recorded after it was decided against this very
		// state, as ruled: whoever recorded it must have been allowed to.
		if err := projector.CheckActor(f.Rules, f.State, &f.last.e, p); err != nil {
			return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
		}
	}
	// The event the projector reads is the Folder's copy (f.last): taking
	// the address of e would move every event folded to the heap.
	return f.apply(&f.last.e, p)
}

// Last returns the event folded last and its decoded payload (nil before
// the first).
func (f *Folder) Last() (events.Event, events.Payload) { return f.last.e, f.last.p }

// Payload decodes an earlier event of the fold (a projector.History, for
// re-deciding a ruling that names it): from the kept events, or read back
// through Reread (a rare call, so it costs a scan rather than memory).
func (f *Folder) Payload(seq uint64) (events.Payload, bool) {
	if seq < 1 || seq > f.last.e.Seq {
		return nil, false
	}
	if seq == f.last.e.Seq {
		return f.last.p, f.last.p != nil
	}
	if f.Reread == nil {
		if len(f.kept) == 0 || seq < f.kept[0].Seq || seq-f.kept[0].Seq >= uint64(len(f.kept)) {
			return nil, false
		}
		e := f.kept[seq-f.kept[0].Seq]
		p, err := f.Decode(e)
		return p, err == nil && e.Seq == seq
	}
	var p events.Payload
	err := f.Reread(func(e events.Event) error {
		if e.Seq < seq {
			return nil
		}
		if e.Seq == seq {
			var err error
			if p, err = f.Decode(e); err != nil {
				return err
			}
		}
		return events.ErrStop
	})
	return p, p != nil && errors.Is(err, events.ErrStop)
}

// Ruled reports whether the fold has met a void or amend ruling: from
// there on events may be skipped rather than fail (see Mode).
func (f *Folder) Ruled() bool { return f.ruled }

// refold rebuilds the state from event 1 under the rulings known now,
// reading the events folded so far again (Reread, or the kept ones).
func (f *Folder) refold() error {
	upto := f.last.e.Seq
	f.State = projector.New(f.State.Match)
	each := func(e events.Event) error {
		if e.Seq > upto {
			return events.ErrStop
		}
		p := f.last.p
		if e.Seq != upto {
			var err error
			if p, err = f.Decode(e); err != nil {
				return err
			}
		}
		return f.apply(&e, p)
	}
	if f.Reread == nil {
		for _, e := range f.kept {
			if err := each(e); err != nil {
				return err
			}
		}
		return nil
	}
	if err := f.Reread(each); err != nil && !errors.Is(err, events.ErrStop) {
		return fmt.Errorf("refold match %s after the ruling at event %d: %w", f.State.Match, upto, err)
	}
	if f.State.Seq != upto {
		return fmt.Errorf("refold match %s after the ruling at event %d: the log gave events up to %d only", f.State.Match, upto, f.State.Seq)
	}
	return nil
}

func (f *Folder) apply(e *events.Event, p events.Payload) error {
	if r := f.rulings[e.Seq]; r != nil {
		if r.Decision == events.RulingVoid {
			projector.Skip(f.State, e, fmt.Sprintf("voided by ruling %d", r.Dispute))
			return nil
		}
		p = projector.Amend(p, r)
	}
	if !f.ruled {
		return projector.ApplyDecoded(f.Rules, f.State, e, p)
	}
	// After a ruling an event may no longer fold (a voided roll leaves the
	// next one answering a different step): keep the state as it was and
	// list the event instead of failing the whole match.
	if r, ok := p.(*events.DiceRolled); ok {
		// A roll answers the step it recorded, never another one that
		// happens to ask for as many dice.
		if pd := f.State.Pending; pd.Purpose != r.Purpose || pd.Need != r.Need || pd.Dice != r.Count || pd.Player != r.Roller {
			projector.Skip(f.State, e, fmt.Sprintf("rolled to %s needing %d+, but as ruled the match waits for: %s", r.Purpose, r.Need, pd.Text))
			return nil
		}
	}
	before := f.State.Clone()
	if err := projector.ApplyDecoded(f.Rules, f.State, e, p); err != nil {
		f.State = before
		projector.Skip(f.State, e, "does not fold after a ruling: "+err.Error())
	}
	return nil
}

// RecordedBy names the match that recorded event seq of match id, given
// id's lineage (nil: id itself).
func RecordedBy(lineage []events.BranchPoint, id string, seq uint64) string {
	for _, p := range lineage {
		if p.Upto == 0 || seq <= p.Upto {
			return p.Match
		}
	}
	return id
}

// LineageOf returns a match's lineage when the log keeps branches
// (Lineager), nil otherwise or for a match that is no branch.
func LineageOf(ctx context.Context, log Log, id string) ([]events.BranchPoint, error) {
	br, ok := log.(Lineager)
	if !ok {
		return nil, nil
	}
	lin, err := br.Lineage(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(lin) == 1 {
		return nil, nil
	}
	return lin, nil
}
