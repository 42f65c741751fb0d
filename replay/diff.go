package replay

import (
	"context"
	"errors"

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
	ha, err := hashes(ctx, st, a)
	if err != nil {
		return nil, err
	}
	hb, err := hashes(ctx, st, b)
	if err != nil {
		return nil, err
	}
	d.LenA, d.LenB = uint64(len(ha)), uint64(len(hb))
	for i := 0; i < len(ha) && i < len(hb) && ha[i] == hb[i]; i++ {
		d.Common = uint64(i + 1)
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

func hashes(ctx context.Context, st store.Store, id string) ([]events.Hash, error) {
	var out []events.Hash
	err := st.Scan(ctx, id, 1, func(e events.Event) error {
		out = append(out, e.Hash)
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return out, err
}
