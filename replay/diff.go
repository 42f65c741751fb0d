package replay

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
)

// Diff is where two lines of play part and how their boards differ.
type Diff struct {
	A, B string
	// Common is the last event both lines share (same hash); 0 when they
	// share nothing.
	Common uint64     `json:"common"`
	LenA   uint64     `json:"len_a"`
	LenB   uint64     `json:"len_b"`
	Sides  []SideDiff `json:"sides"`
	Units  []UnitDiff `json:"units"`
}

// SideDiff compares a player's results in both lines.
type SideDiff struct {
	Player        string `json:"player"`
	ModelsLostA   int    `json:"models_lost_a"`
	ModelsLostB   int    `json:"models_lost_b"`
	WoundsCausedA int    `json:"wounds_caused_a"`
	WoundsCausedB int    `json:"wounds_caused_b"`
}

// UnitDiff compares a unit in both lines; only units that differ are listed.
type UnitDiff struct {
	Unit    string   `json:"unit"`
	Name    string   `json:"name"`
	Player  string   `json:"player"`
	ModelsA int      `json:"models_a"` // models left
	ModelsB int      `json:"models_b"`
	WoundsA int      `json:"wounds_a"` // wounds left, all models
	WoundsB int      `json:"wounds_b"`
	OnlyA   []string `json:"removed_only_in_b,omitempty"` // alive in A, removed in B
	OnlyB   []string `json:"removed_only_in_a,omitempty"` // alive in B, removed in A
}

// DiffMatches compares two matches (typically a match and a branch of it,
// or two branches).
func DiffMatches(ctx context.Context, st store.Store, a, b string, lookup fold.Lookup) (*Diff, error) {
	d := &Diff{A: a, B: b}
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
		d.Sides = append(d.Sides, SideDiff{Player: p.ID, ModelsLostA: ta.ModelsLost, ModelsLostB: tb.ModelsLost,
			WoundsCausedA: ta.WoundsCaused, WoundsCausedB: tb.WoundsCaused})
	}
	for _, ua := range sa.Units {
		ub := sb.Unit(ua.ID)
		if ub == nil {
			continue
		}
		u := UnitDiff{Unit: ua.ID, Name: ua.DisplayName(), Player: ua.Player}
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
