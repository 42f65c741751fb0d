package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The match index (store.Index): kept by every append, listed in pages.

// IndexedMatch returns the first n >= 2 events of a match: a match.created
// of edition ed named name (players alice "Alice" with a Tactical Squad and
// bob "Bob" with Ork Boyz), then turns; with end, the last is a
// match.ended won by bob. Event seq is stamped at Clock + at + seq seconds,
// so matches made with a later at are newer.
func IndexedMatch(id, ed, name string, at int64, n int, end bool) []events.Event {
	stamp := func(seq uint64) int64 { return Clock + (at+int64(seq))*int64(time.Second) }
	mc := events.MatchCreated{Edition: ed, Name: name, Table: events.Table{W: 72, H: 48}, FirstPlayer: "alice",
		Players: []events.PlayerSpec{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}},
		Units: []events.UnitSpec{
			{ID: "tac", Name: "Tactical Squad", Player: "alice", Models: []events.ModelSpec{{ID: "tac-1", T: 4, W: 1}}},
			{ID: "boyz", Name: "Ork Boyz", Player: "bob", Models: []events.ModelSpec{{ID: "boy-1", T: 4, W: 1}}},
		}}
	var out []events.Event
	var prev events.Hash
	for seq := uint64(1); seq <= uint64(n); seq++ {
		var p events.Payload = events.TurnStarted{Turn: int(seq), Player: "alice"}
		switch {
		case seq == 1:
			p = mc
		case end && seq == uint64(n):
			p = events.MatchEnded{Winner: "bob", Reason: "tabled"}
		}
		e, err := events.New(id, seq, prev, stamp(seq), events.Actor{Kind: events.ActorSystem}, p)
		if err != nil {
			panic(fmt.Sprintf("storetest: events.New: %v", err))
		}
		out, prev = append(out, e), e.Hash
	}
	return out
}

func index(t *testing.T, s store.Store) store.Index {
	t.Helper()
	x, ok := s.(store.Index)
	if !ok {
		t.Skip("no store.Index")
	}
	return x
}

func list(t *testing.T, x store.Index, q store.MatchQuery) store.MatchPage {
	t.Helper()
	p, err := x.ListMatches(bg, q)
	if err != nil {
		t.Fatalf("ListMatches(%+v): %v", q, err)
	}
	return p
}

func ids(p store.MatchPage) []string {
	out := make([]string, len(p.Matches))
	for i, e := range p.Matches {
		out[i] = e.ID
	}
	return out
}

func testIndexEntries(t *testing.T, s store.Store) {
	x := index(t, s)
	if _, err := x.MatchEntry(bg, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("entry of an unknown match: %v", err)
	}
	evs := IndexedMatch("m", "3e", "Friday", 0, 5, true)
	mustAppend(t, s, "m", 0, evs[:2])
	e, err := x.MatchEntry(bg, "m")
	if err != nil {
		t.Fatal(err)
	}
	want := store.MatchEntry{ID: "m", Name: "Friday", Edition: "3e",
		Players: []store.PlayerEntry{{ID: "alice", Name: "Alice", Army: []string{"Tactical Squad"}}, {ID: "bob", Name: "Bob", Army: []string{"Ork Boyz"}}},
		Created: evs[0].Time, Updated: evs[1].Time, Head: 2, Status: store.StatusLive, Rev: e.Rev}
	if e.Rev == 0 || fmt.Sprint(e) != fmt.Sprint(want) {
		t.Fatalf("entry after 2 events:\n got %+v\nwant %+v", e, want)
	}
	rev := e.Rev
	mustAppend(t, s, "m", 2, evs[2:])
	e, _ = x.MatchEntry(bg, "m")
	if e.Head != 5 || e.Updated != evs[4].Time || e.Status != store.StatusEnded || e.Winner != "bob" || e.EndedAt != 5 || e.Rev <= rev {
		t.Fatalf("entry after match.ended: %+v (rev before %d)", e, rev)
	}
	// Events that are no match.created still get an entry.
	mustAppend(t, s, "plain", 0, MakeEvents("plain", 1, events.Hash{}, 3))
	if e, err := x.MatchEntry(bg, "plain"); err != nil || e.Head != 3 || e.Status != store.StatusLive || e.Name != "" {
		t.Fatalf("entry of a match without match.created: %+v %v", e, err)
	}
}

func testIndexListing(t *testing.T, s store.Store) {
	x := index(t, s)
	if p := list(t, x, store.MatchQuery{}); len(p.Matches) != 0 || p.Next != "" {
		t.Fatalf("empty store lists %+v", p)
	}
	// Created in the order a..e; b and d ended; c and e are 6e.
	type spec struct {
		id, ed string
		end    bool
	}
	specs := []spec{{"a", "3e", false}, {"b", "3e", true}, {"c", "6e", false}, {"d", "3e", true}, {"e", "6e", false}}
	logs := map[string][]events.Event{}
	for i, sp := range specs {
		logs[sp.id] = IndexedMatch(sp.id, sp.ed, "Match "+sp.id, int64(i)*100, 4, sp.end)
		mustAppend(t, s, sp.id, 0, logs[sp.id])
	}
	// Then a is played on: it changed last.
	more := IndexedMatch("a", "3e", "Match a", 0, 6, false)[4:]
	mustAppend(t, s, "a", 4, more)

	all := list(t, x, store.MatchQuery{})
	if got := ids(all); !slices.Equal(got, []string{"a", "e", "d", "c", "b"}) {
		t.Fatalf("default order %v, want the last changed first", got)
	}
	if got := ids(list(t, x, store.MatchQuery{Sort: store.SortCreated})); !slices.Equal(got, []string{"e", "d", "c", "b", "a"}) {
		t.Fatalf("by creation %v, want the newest first", got)
	}
	for _, c := range []struct {
		q    store.MatchQuery
		want []string
	}{
		{store.MatchQuery{Edition: "6e"}, []string{"e", "c"}},
		{store.MatchQuery{Status: store.StatusEnded}, []string{"d", "b"}},
		{store.MatchQuery{Status: store.StatusLive, Edition: "3e"}, []string{"a"}},
		{store.MatchQuery{Player: "BOB"}, []string{"a", "e", "d", "c", "b"}},
		{store.MatchQuery{Player: "carol"}, []string{}},
		{store.MatchQuery{Text: "match C"}, []string{"c"}},
		{store.MatchQuery{Text: "ork boy"}, []string{"a", "e", "d", "c", "b"}},
	} {
		if got := ids(list(t, x, c.q)); !slices.Equal(got, c.want) {
			t.Errorf("%+v lists %v, want %v", c.q, got, c.want)
		}
	}

	// Pages: every match once, in order, whatever the page size.
	for _, sort := range []string{store.SortUpdated, store.SortCreated} {
		whole := ids(list(t, x, store.MatchQuery{Sort: sort}))
		for limit := 1; limit <= 5; limit++ {
			var got []string
			q := store.MatchQuery{Sort: sort, Limit: limit}
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatalf("%s pages of %d never end", sort, limit)
				}
				p := list(t, x, q)
				if len(p.Matches) > limit {
					t.Fatalf("a page of %d holds %d", limit, len(p.Matches))
				}
				got = append(got, ids(p)...)
				if p.Next == "" {
					break
				}
				q.Cursor = p.Next
			}
			if !slices.Equal(got, whole) {
				t.Fatalf("%s in pages of %d: %v, want %v", sort, limit, got, whole)
			}
		}
	}

	// Since: only what changed after a revision, oldest change first.
	rev := all.Rev
	if p := list(t, x, store.MatchQuery{Since: rev}); len(p.Matches) != 0 || p.Rev != rev {
		t.Fatalf("nothing changed since %d, yet %+v", rev, p)
	}
	end := IndexedMatch("c", "6e", "Match c", 200, 5, true)[4:]
	mustAppend(t, s, "c", 4, end)
	mustAppend(t, s, "e", 4, IndexedMatch("e", "6e", "Match e", 400, 5, false)[4:])
	changed := list(t, x, store.MatchQuery{Since: rev})
	if got := ids(changed); !slices.Equal(got, []string{"c", "e"}) || changed.Rev <= rev {
		t.Fatalf("changed since %d: %v (rev %d), want c then e", rev, got, changed.Rev)
	}
	if c := changed.Matches[0]; c.Status != store.StatusEnded || c.Winner != "bob" || c.Head != 5 {
		t.Fatalf("changed entry of c: %+v", c)
	}
	first := list(t, x, store.MatchQuery{Since: rev, Limit: 1})
	second := list(t, x, store.MatchQuery{Since: rev, Limit: 1, Cursor: first.Next})
	if ids(first)[0] != "c" || len(second.Matches) != 1 || second.Matches[0].ID != "e" {
		t.Fatalf("changes in pages of 1: %v then %v", ids(first), ids(second))
	}

	// Bad queries are refused, naming what is wrong.
	for _, q := range []store.MatchQuery{{Status: "over"}, {Sort: "name"}, {Limit: -1}, {Limit: store.MaxMatchLimit + 1},
		{Cursor: "zz"}, {Cursor: "01"}, {Since: 3, Sort: store.SortCreated}} {
		if _, err := x.ListMatches(bg, q); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", q, err)
		}
	}
}

func testIndexBranch(t *testing.T, s store.Store) {
	x := index(t, s)
	br, ok := s.(store.Brancher)
	if !ok {
		t.Skip("no store.Brancher")
	}
	parent := IndexedMatch("p", "3e", "Final", 0, 6, true)
	mustAppend(t, s, "p", 0, parent)
	for _, c := range []struct {
		id, status string
		at         uint64
	}{{"early", store.StatusLive, 3}, {"late", store.StatusEnded, 6}} {
		own, err := events.New(c.id, c.at+1, parent[c.at-1].Hash, parent[c.at-1].Time+1, events.Actor{Kind: events.ActorSystem},
			events.BranchCreated{Parent: "p", At: c.at, Name: "what if " + c.id})
		if err != nil {
			t.Fatal(err)
		}
		if err := br.Branch(bg, c.id, "p", c.at, []events.Event{own}); err != nil {
			t.Fatal(err)
		}
		e, err := x.MatchEntry(bg, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != "what if "+c.id || e.Edition != "3e" || len(e.Players) != 2 || e.Parent != "p" || e.At != c.at ||
			e.Head != c.at+1 || e.Created != parent[0].Time || e.Status != c.status {
			t.Fatalf("branch %s at %d: %+v", c.id, c.at, e)
		}
	}
	if got := ids(list(t, x, store.MatchQuery{})); !slices.Equal(got, []string{"late", "early", "p"}) {
		t.Fatalf("with branches: %v", got)
	}
}
