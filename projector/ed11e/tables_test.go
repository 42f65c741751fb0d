package ed11e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// All five S-vs-T bands at their boundaries, even and odd T.
func TestWoundNeedBands(t *testing.T) {
	cases := []struct{ s, t, need int }{
		{8, 4, 2}, {9, 4, 2}, // S = 2T, S > 2T
		{7, 4, 3}, {5, 4, 3}, // just under 2T, S = T+1
		{4, 4, 4},            // S = T
		{3, 4, 5},            // S = T−1
		{2, 4, 6}, {1, 4, 6}, // S = T/2, below
		{10, 5, 2}, {9, 5, 3}, {6, 5, 3}, {5, 5, 4}, {4, 5, 5}, // odd T
		{3, 5, 5},            // 3 > 5/2: not half
		{2, 5, 6},            // 2 ≤ 5/2
		{3, 7, 6}, {4, 7, 5}, // odd T: 3 ≤ 3.5 is half or less, 4 is not
		{2, 1, 2}, {1, 1, 4}, {1, 2, 6}, {1, 3, 6},
	}
	for _, c := range cases {
		if got := WoundNeed(c.s, c.t); got != c.need {
			t.Errorf("S%d vs T%d wounds on %d+, want %d+", c.s, c.t, got, c.need)
		}
	}
}

// Unmodified 1 fails, 6 hits; modifiers capped at ±1; cover worsens BS by
// 1 outside the cap; indirect thresholds are floors on the unmodified roll.
func TestHitNeed(t *testing.T) {
	cases := []struct {
		name          string
		bs            int
		cover         bool
		mod, min, out int
	}{
		{"BS3+", 3, false, 0, 0, 3},
		{"BS2+ +1: a 1 still fails", 2, false, 1, 0, 2},
		{"BS6+ −1: a 6 still hits", 6, false, -1, 0, 6},
		{"+2 capped at +1", 4, false, 2, 0, 3},
		{"−2 capped at −1", 3, false, -2, 0, 4},
		{"cover", 3, true, 0, 0, 4},
		{"cover and −1 (cover is not a modifier)", 3, true, -1, 0, 5},
		{"cover and +1", 4, true, 1, 0, 4},
		{"indirect 1–5 fail", 2, true, 0, 6, 6},
		{"indirect 1–3 fail", 2, true, 0, 4, 4},
		{"indirect 1–3 fail, BS4+ in cover", 4, true, 0, 4, 5},
	}
	for _, c := range cases {
		if got := HitNeed(c.bs, c.cover, c.mod, c.min); got != c.out {
			t.Errorf("%s: need %d, want %d", c.name, got, c.out)
		}
	}
}

// AP worsens the armour save; an invulnerable save ignores AP and the
// better one is used; no save at 7+; an unmodified 1 fails.
func TestSaveNeed(t *testing.T) {
	cases := []struct {
		name        string
		sv, inv, ap int
		need        int
	}{
		{"Sv3+ AP0", 3, 0, 0, 3},
		{"Sv3+ AP−1", 3, 0, -1, 4},
		{"AP written positive", 3, 0, 1, 4},
		{"Sv5+ AP−1", 5, 0, -1, 6},
		{"Sv5+ AP−2: no save", 5, 0, -2, 7},
		{"Sv3+ AP−3 Inv4+: invulnerable", 3, 4, -3, 4},
		{"Sv2+ AP0 Inv4+: armour is better", 2, 4, 0, 2},
		{"no armour, Inv5+", 0, 5, -4, 5},
		{"no save at all", 0, 0, 0, 7},
		{"Sv1+: a 1 still fails", 1, 0, 0, 2},
	}
	for _, c := range cases {
		m := &projector.Model{ModelSpec: events.ModelSpec{Sv: c.sv, Inv: c.inv}}
		if got := SaveNeed(m, c.ap); got != c.need {
			t.Errorf("%s: saves on %d+, want %d+", c.name, got, c.need)
		}
	}
}

// The exact odds the luck meter uses reproduce the numbers of
// docs/rules/11e.md#worked-numbers.
func TestExpectedMatchesWorkedNumbers(t *testing.T) {
	g := newGame(t, squad("a", "alice", 10, 10, gun("bolter", 4, 4)), squad("b", "bob", 10, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	if e := g.State.Attack.Expected; e < 1.25-1e-9 || e > 1.25+1e-9 {
		t.Fatalf("expected damage %v, want 1.25", e)
	}
	rr := squad("a", "alice", 10, 10, gun("bolter", 4, 4, KwRerollHitOnes))
	g = newGame(t, rr, squad("b", "bob", 10, 20))
	toShooting(g)
	g.Do(alice, shoot("a", "b", Normal))
	if e, want := g.State.Attack.Expected, 1.25*7/6; e < want-1e-9 || e > want+1e-9 {
		t.Fatalf("expected damage %v, want %v", e, want)
	}
}
