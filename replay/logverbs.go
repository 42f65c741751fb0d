package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// The transparency log's verbs (docs/transparency.md): the newest
// checkpoint, a match's proof, and consistency between tree sizes. Every
// role may call them: the log is public.

func (rd *Reader) headLog() (store.HeadLog, error) {
	hl, ok := rd.Recorder.Store().(store.HeadLog)
	if !ok {
		return nil, api.Errorf(projector.CodeUnavailable, "this recorder keeps no transparency log")
	}
	return hl, nil
}

func (rd *Reader) logCheckpoint(ctx context.Context, _ []byte) (any, error) {
	hl, err := rd.headLog()
	if err != nil {
		return nil, err
	}
	cp, err := hl.Checkpoint(ctx)
	if err != nil {
		return nil, api.Errorf(projector.CodeUnavailable, "no checkpoint: %v", err)
	}
	vk, err := headlog.VerifierKey(rd.Recorder.Identity().PublicKey())
	if err != nil {
		return nil, err
	}
	note, size := cp.Note, cp.Size
	if rd.Cosigned != nil {
		if cn, cs := rd.Cosigned(); cn != nil {
			note, size = cn, cs
		}
	}
	return api.LogCheckpoint{Checkpoint: string(note), Size: size, VerifierKey: vk}, nil
}

func (rd *Reader) logProve(ctx context.Context, body []byte) (any, error) {
	var req api.ProveRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	hl, err := rd.headLog()
	if err != nil {
		return nil, err
	}
	p, err := ProveMatch(ctx, hl, req.Match, req.At, req.From)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(projector.CodeNotFound, "%v", err)
	}
	return p, err
}

func (rd *Reader) logConsistency(ctx context.Context, body []byte) (any, error) {
	var req api.ConsistencyRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	hl, err := rd.headLog()
	if err != nil {
		return nil, err
	}
	res := api.ConsistencyResult{From: req.From, To: req.To}
	if req.To == 0 {
		cp, err := hl.Checkpoint(ctx)
		if err != nil {
			return nil, api.Errorf(projector.CodeUnavailable, "no checkpoint: %v", err)
		}
		res.To, res.Checkpoint = cp.Size, string(cp.Note)
	}
	if req.From < 0 || req.From > res.To {
		return nil, api.Errorf(projector.CodeBadRequest, "no consistency proof from %d entries to %d", req.From, res.To)
	}
	if res.Proof, err = hl.ProveConsistency(ctx, req.From, res.To); err != nil {
		return nil, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	return res, nil
}

// ProveMatch is the log's proof of a match (headlog.Proof) in its newest
// checkpoint: the inclusion proofs of its created, ended (if any) and
// newest entries — or of the entry of event at — and consistency proofs
// from each tree size in from.
func ProveMatch(ctx context.Context, hl store.HeadLog, match string, at uint64, from []int64) (*headlog.Proof, error) {
	cp, err := hl.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	var leaves []int64
	if at > 0 {
		leaf, err := hl.LogLeaf(ctx, match, at)
		if err != nil {
			return nil, err
		}
		leaves = []int64{leaf}
	} else {
		lv, err := hl.LogLeaves(ctx, match)
		if err != nil {
			return nil, err
		}
		leaves = append(leaves, lv.Created)
		if lv.Ended >= 0 && lv.Ended != lv.Created {
			leaves = append(leaves, lv.Ended)
		}
		if lv.Newest != lv.Created && lv.Newest != lv.Ended {
			leaves = append(leaves, lv.Newest)
		}
	}
	p := &headlog.Proof{Checkpoint: string(cp.Note)}
	for _, leaf := range leaves {
		if leaf >= cp.Size {
			return nil, fmt.Errorf("match %s: entry %d is newer than the checkpoint (%d entries)", match, leaf, cp.Size)
		}
		in, err := hl.ProveInclusion(ctx, leaf, cp.Size)
		if err != nil {
			return nil, err
		}
		p.Entries = append(p.Entries, in)
	}
	for _, n := range from {
		if n <= 0 || n >= cp.Size {
			continue
		}
		cons, err := hl.ProveConsistency(ctx, n, cp.Size)
		if err != nil {
			return nil, err
		}
		p.Consistency = append(p.Consistency, headlog.Consistency{From: n, Proof: cons})
	}
	return p, nil
}
