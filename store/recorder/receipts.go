package recorder

import (
	"context"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
)

// Receipts: what the recorder gives a caller for the head it recorded —
// the transparency log's checkpoint (signed once per group commit) and the
// head's inclusion proof where the store keeps the log, else the
// recorder's signature of the head (docs/transparency.md).

// receipt is the receipt of match's head after an earlier append (a
// retried request, a status): the newest checkpoint and the head's
// inclusion proof when the store keeps the log and has the head in it,
// else the recorder's signature of the head.
func (r *Recorder) receipt(ctx context.Context, match string, last events.Event) *auth.Receipt {
	if hl, ok := r.st.(store.HeadLog); ok {
		leaf, err := hl.LogLeaf(ctx, match, last.Seq)
		if err == nil {
			if cp, err := hl.Checkpoint(ctx); err == nil {
				if rc := r.logReceipt(ctx, match, last, store.Logged{Leaf: leaf, Checkpoint: cp}); rc != nil {
					return rc
				}
			}
		}
	}
	return r.signedReceipt(match, last)
}

// signedReceipt signs the receipt of match's head (receipts of version 1,
// docs/bundle.md): a store without the transparency log.
func (r *Recorder) signedReceipt(match string, last events.Event) *auth.Receipt {
	rc := r.opts.Identity.Receipt(auth.Receipt{Match: match, Seq: last.Seq, Hash: last.Hash})
	return &rc
}

// appendedReceipt is the receipt of the append that just wrote last: the
// checkpoint its group commit signed and the inclusion proof of last's
// entry — no signature of its own (docs/transparency.md).
func (r *Recorder) appendedReceipt(ctx context.Context, match string, last events.Event, lg store.Logged) *auth.Receipt {
	if lg.Checkpoint.Note != nil {
		if rc := r.logReceipt(ctx, match, last, lg); rc != nil {
			return rc
		}
	}
	return r.signedReceipt(match, last)
}

// proveFrom adds to a log receipt the consistency proof from the tree of
// size from (a checkpoint its caller kept) to the receipt's.
func (r *Recorder) proveFrom(ctx context.Context, rc *auth.Receipt, from int64) {
	hl, ok := r.st.(store.HeadLog)
	if !ok || rc == nil || rc.Log == nil || from <= 0 || len(rc.Log.Entries) != 1 {
		return
	}
	cp, err := headlog.ParseSize(rc.Log.Checkpoint)
	if err != nil || from >= cp {
		return
	}
	if p, err := hl.ProveConsistency(ctx, from, cp); err == nil {
		rc.Log.Consistency = []headlog.Consistency{{From: from, Proof: p}}
	}
}

// logReceipt proves last's entry (leaf lg.Leaf) in lg's checkpoint; nil
// if the store cannot (then the caller signs).
func (r *Recorder) logReceipt(ctx context.Context, match string, last events.Event, lg store.Logged) *auth.Receipt {
	hl, ok := r.st.(store.HeadLog)
	if !ok {
		return nil
	}
	in, err := hl.ProveInclusion(ctx, lg.Leaf, lg.Checkpoint.Size)
	if err != nil {
		r.opts.Log.Warn().Err(err).Str("match", match).Uint64("seq", last.Seq).Msg("no inclusion proof for a receipt; signing it instead")
		return nil
	}
	return &auth.Receipt{Match: match, Seq: last.Seq, Hash: last.Hash, Recorder: r.opts.Identity.PublicKey(),
		Log: &headlog.Proof{Checkpoint: string(lg.Checkpoint.Note), Entries: []headlog.Inclusion{in}}}
}
