package fold

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// DefaultSnapshotEvery is K, how many events apart snapshots are kept.
// BenchmarkSeek measures seek time for several K on a 10,000-event match
// (docs/PERFORMANCE.md): K = 128 keeps the median seek well under 2 ms
// while a 10,000-event match carries only ~80 snapshots.
const DefaultSnapshotEvery = 128

// Seeker answers "the state of match M after event N" fast: it folds from
// the nearest cached snapshot (when Log has Snapshots) and keeps new
// snapshots every Every events as it goes. A snapshot is a cache, never
// trusted over the events: one that is damaged, stale (another
// StateVersion) or that does not sit on the stored event it claims is
// deleted and ignored.
type Seeker struct {
	Log    Log
	Lookup Lookup
	Every  uint64 // K; 0 = DefaultSnapshotEvery
	// States, when set, keeps the snapshot states this Seeker decodes,
	// for the next seeks of the process's Seekers that share it; nil:
	// each seek decodes its snapshot.
	States *States
}

func (k *Seeker) every() uint64 {
	if k.Every == 0 {
		return DefaultSnapshotEvery
	}
	return k.Every
}

// StateAt returns the state of match after event seq (0 = the last).
func (k *Seeker) StateAt(ctx context.Context, match string, seq uint64) (*projector.State, error) {
	upto := seq
	if seq == 0 {
		upto = math.MaxUint64
	}
	f, err := k.FolderAt(ctx, match, upto)
	if err != nil {
		return nil, err
	}
	if f.State.Seq < seq {
		return nil, fmt.Errorf("%w: match %s has %d events, not %d", ErrBeyondEnd, match, f.State.Seq, seq)
	}
	return f.State, nil
}

// FolderAt returns a Folder of match that has folded every event up to
// and including upto (or to the last, if the match is shorter; none for
// upto 0), started from the nearest verified snapshot, with the match's
// lineage and a Reread from the log: the caller may go on applying events
// from there.
func (k *Seeker) FolderAt(ctx context.Context, match string, upto uint64) (*Folder, error) {
	lin, err := LineageOf(ctx, k.Log, match)
	if err != nil {
		return nil, err
	}
	snaps, _ := k.Log.(Snapshots)
	f := NewFolder(match, k.Lookup)
	if snaps != nil {
		st, ok := k.States.get(match, upto-upto%k.every()) // where the nearest one is kept
		if !ok {
			if st, ok = k.trusted(ctx, snaps, match, upto); !ok {
				st, ok = k.inherited(ctx, snaps, match, lin, upto)
			}
			if ok {
				k.States.put(match, st)
			}
		}
		if ok {
			rules, err := k.Lookup(st.Edition)
			if err != nil {
				return nil, err
			}
			f.Resume(st, rules)
		}
	}
	f.Lineage, f.Reread = lin, FromLog(ctx, k.Log, match)
	if upto == 0 {
		return f, nil
	}
	from := f.State.Seq + 1
	keep := k.Keeper(match)
	// What was folded is kept even when the seek is cut short (a caller
	// that gave up): the next seek starts from there, so a long fold
	// makes progress across attempts instead of starting over.
	defer keep.Flush(ctx)
	err = k.Log.Scan(ctx, match, from, func(e events.Event) error {
		if e.Seq > upto {
			return events.ErrStop
		}
		if err := f.Apply(e); err != nil {
			return err
		}
		if e.Seq > from {
			keep.Offer(ctx, f.State)
		}
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, fmt.Errorf("seek match %s to %d: %w", match, upto, err)
	}
	if f.Rules == nil {
		return nil, fmt.Errorf("seek match %s: the log has no events", match)
	}
	return f, nil
}

// flushEvery is how many new snapshots a Keeper gathers before it writes
// them (one transaction).
const flushEvery = 16

// Keeper gathers snapshots of one match as a fold passes the sequences
// they are kept at, and writes them to the store's cache a batch at a
// time: a fold from event 1 (a seek, a reader telling the match from its
// start) leaves the match seekable behind it. A nil Keeper (a Log without
// Snapshots) keeps nothing.
type Keeper struct {
	k     *Seeker
	snaps Snapshots
	match string
	fresh map[uint64][]byte
}

// Keeper returns a Keeper of match, or nil when the log keeps no
// snapshots.
func (k *Seeker) Keeper(match string) *Keeper {
	snaps, ok := k.Log.(Snapshots)
	if !ok {
		return nil
	}
	return &Keeper{k: k, snaps: snaps, match: match, fresh: map[uint64][]byte{}}
}

// Offer keeps st, the state after its event, if a snapshot is due there.
func (kp *Keeper) Offer(ctx context.Context, st *projector.State) {
	if kp == nil || st.Seq == 0 || st.Seq%kp.k.every() != 0 {
		return
	}
	if b, err := EncodeSnapshot(st); err == nil {
		kp.fresh[st.Seq] = b
	}
	if len(kp.fresh) >= flushEvery {
		kp.Flush(ctx)
	}
}

// Flush writes the snapshots gathered. They are a cache: a failed write
// costs a longer fold later, nothing else; and they are written even when
// ctx is done (the fold they come from was paid for).
func (kp *Keeper) Flush(ctx context.Context) {
	if kp == nil || len(kp.fresh) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = kp.snaps.PutSnapshots(wctx, kp.match, kp.fresh)
	kp.fresh = map[uint64][]byte{}
}

// trusted returns the nearest snapshot at or before seq that passes its
// checks and sits on the stored event it names; failing ones are deleted.
func (k *Seeker) trusted(ctx context.Context, snaps Snapshots, match string, seq uint64) (*projector.State, bool) {
	for tries := 0; tries < 8; tries++ {
		at, data, err := snaps.NearestSnapshot(ctx, match, seq)
		if err != nil {
			return nil, false
		}
		st, err := DecodeSnapshot(data, k.Lookup)
		if err == nil && st.Seq == at && k.onLog(ctx, match, st) {
			return st, true
		}
		_ = snaps.DeleteSnapshot(ctx, match, at)
	}
	return nil, false
}

// inherited returns, for a branch with no snapshot of its own at or
// before seq, the nearest verified snapshot of the ancestor that recorded
// its events up to there: a branch's state after an inherited event is its
// ancestor's, but for the match it names.
func (k *Seeker) inherited(ctx context.Context, snaps Snapshots, match string, lin []events.BranchPoint, seq uint64) (*projector.State, bool) {
	for i := len(lin) - 2; i >= 0; i-- {
		p := lin[i]
		if st, ok := k.trusted(ctx, snaps, p.Match, min(seq, p.Upto)); ok {
			st.Match = match
			return st, true
		}
	}
	return nil, false
}

// onLog reports whether the stored event at st.Seq has st.Head's hash.
func (k *Seeker) onLog(ctx context.Context, match string, st *projector.State) bool {
	ok := false
	_ = k.Log.Scan(ctx, match, st.Seq, func(e events.Event) error {
		ok = e.Seq == st.Seq && e.Hash == st.Head
		return events.ErrStop
	})
	return ok
}

// SnapshotSums lists match's cached snapshots: the hash of the state each
// one holds, by the sequence it follows (the zero hash for one that is
// damaged or of another StateVersion). An audit compares them with its
// own fold of the events and has the ones that differ discarded
// (Discard): checking the cache costs the store a read of it, never a
// fold.
func (k *Seeker) SnapshotSums(ctx context.Context, match string) (map[uint64]events.Hash, error) {
	snaps, ok := k.Log.(Snapshots)
	if !ok {
		return nil, nil
	}
	sums := map[uint64]events.Hash{}
	for seq := uint64(math.MaxUint64); seq > 0; {
		at, data, err := snaps.NearestSnapshot(ctx, match, seq)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			break
		}
		sums[at] = snapshotSum(data)
		seq = at - 1
	}
	return sums, nil
}

// Discard deletes match's cached snapshots at seqs.
func (k *Seeker) Discard(ctx context.Context, match string, seqs []uint64) error {
	snaps, ok := k.Log.(Snapshots)
	if !ok {
		return nil
	}
	for _, seq := range seqs {
		k.States.drop(match, seq)
		if err := snaps.DeleteSnapshot(ctx, match, seq); err != nil {
			return fmt.Errorf("discard the snapshot of match %s at %d: %w", match, seq, err)
		}
	}
	return nil
}
