package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// DiffMatches compares two matches (typically a match and a branch of it,
// or two branches).
func DiffMatches(ctx context.Context, st store.Store, a, b string, lookup fold.Lookup) (*api.Diff, error) {
	d := &api.Diff{A: a, B: b}
	ha, err := st.Head(ctx, a)
	if err != nil {
		return nil, err
	}
	hb, err := st.Head(ctx, b)
	if err != nil {
		return nil, err
	}
	d.LenA, d.LenB = ha.Seq, hb.Seq
	if d.Common, err = common(ctx, st, a, b, min(ha.Seq, hb.Seq)); err != nil {
		return nil, err
	}
	k := &fold.Seeker{Log: st, Lookup: lookup}
	sa, err := k.StateAt(ctx, a, 0)
	if err != nil {
		return nil, err
	}
	sb, err := k.StateAt(ctx, b, 0)
	if err != nil {
		return nil, err
	}
	for _, p := range sa.Players {
		ta, tb := sa.TallyOf(p.ID), sb.TallyOf(p.ID)
		d.Sides = append(d.Sides, api.SideDiff{Player: p.ID, ModelsLostA: ta.ModelsLost, ModelsLostB: tb.ModelsLost,
			WoundsCausedA: ta.WoundsCaused, WoundsCausedB: tb.WoundsCaused})
	}
	for _, ua := range sa.Units {
		ub := sb.Unit(ua.ID)
		if ub == nil {
			continue
		}
		u := api.UnitDiff{Unit: ua.ID, Name: ua.DisplayName(), Player: ua.Player}
		u.ModelsA, u.WoundsA = alive(ua)
		u.ModelsB, u.WoundsB = alive(ub)
		for _, ma := range ua.Models {
			mb := ub.Model(ma.ID)
			if mb == nil {
				continue
			}
			if ma.Alive() && !mb.Alive() {
				u.OnlyA = append(u.OnlyA, ma.ID)
			}
			if !ma.Alive() && mb.Alive() {
				u.OnlyB = append(u.OnlyB, ma.ID)
			}
		}
		if u.ModelsA != u.ModelsB || u.WoundsA != u.WoundsB || len(u.OnlyA)+len(u.OnlyB) > 0 {
			d.Units = append(d.Units, u)
		}
	}
	return d, nil
}

func alive(u *projector.Unit) (models, wounds int) {
	for _, m := range u.Models {
		if m.Alive() {
			models++
			wounds += m.WoundsLeft
		}
	}
	return models, wounds
}

// common is the last event two matches share, of their first upto: the
// events are hash-chained, so two matches that agree on event k agree on
// every event before it, and a binary search reads about 2·log2(upto)
// events instead of both matches.
func common(ctx context.Context, st store.Store, a, b string, upto uint64) (uint64, error) {
	lo, hi := uint64(0), upto // event lo is shared (0: none); events past hi are not
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		x, err := hashAt(ctx, st, a, mid)
		if err != nil {
			return 0, err
		}
		y, err := hashAt(ctx, st, b, mid)
		if err != nil {
			return 0, err
		}
		if x == y {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// hashAt is the hash of event seq of match.
func hashAt(ctx context.Context, st store.Store, match string, seq uint64) (events.Hash, error) {
	var h events.Hash
	found := false
	err := st.Scan(ctx, match, seq, func(e events.Event) error {
		h, found = e.Hash, e.Seq == seq
		return events.ErrStop
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return h, err
	}
	if !found {
		return h, fmt.Errorf("match %s has no event %d: %w", match, seq, store.ErrNotFound)
	}
	return h, nil
}
