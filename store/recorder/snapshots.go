package recorder

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
)

// keepSnapshot caches the live state of a match each time it crosses a
// multiple of fold.DefaultSnapshotEvery events (when the store keeps
// snapshots), so the first seek into a long match — a viewer's first
// page, a replay, a page of its events — starts from a snapshot near
// where it looks, never from event 1. The write runs in the background,
// off the command's path: a snapshot is a cache, and one lost to a crash
// or a closing store costs only a longer fold later.
func (r *Recorder) keepSnapshot(match string, before uint64, s *projector.State) {
	snaps, ok := r.st.(store.Snapshots)
	if !ok || s == nil || s.Seq/fold.DefaultSnapshotEvery == before/fold.DefaultSnapshotEvery {
		return
	}
	b, err := fold.EncodeSnapshot(s)
	if err != nil {
		r.opts.Log.Warn().Err(err).Str("match", match).Msg("encode a snapshot")
		return
	}
	seq := s.Seq
	go func() {
		err := snaps.PutSnapshots(context.Background(), match, map[uint64][]byte{seq: b})
		if err != nil && !errors.Is(err, store.ErrClosed) {
			r.opts.Log.Warn().Err(err).Str("match", match).Uint64("seq", seq).Msg("keep a snapshot")
		}
	}()
}
