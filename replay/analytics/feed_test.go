package analytics_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/recorder"
)

// scanCounter is a store that counts the events its scans hand out.
type scanCounter struct {
	store.Store
	mu   sync.Mutex
	read int
}

func (s *scanCounter) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	return s.Store.Scan(ctx, match, from, func(e events.Event) error {
		s.mu.Lock()
		s.read++
		s.mu.Unlock()
		return fn(e)
	})
}

// Feeding the tables the events the recorder recorded, with the payloads
// it decided, writes the same rows as folding them from the store, and
// reads nothing from the store for a match whose fold is kept.
func TestFeedEqualsCatchUp(t *testing.T) {
	ctx := context.Background()
	src := newEnv(t)
	var recs []analytics.Recorded
	rec := recorder.New(src.st, recorder.Options{Rules: editions.Lookup, Recorded: func(evs []events.Event, ps []events.Payload) {
		for i := range evs {
			recs = append(recs, analytics.Recorded{Event: evs[i], Payload: ps[i]})
		}
	}})
	res, err := generate.Run(ctx, generate.Direct{Recorder: rec}, editions.Lookup,
		generate.Options{Edition: "6e", Matches: 3, Seed: 8, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || uint64(len(recs)) >= res.Events {
		t.Fatalf("%d events recorded, %d handed over", res.Events, len(recs))
	}

	dst := newEnv(t)
	counted := &scanCounter{Store: dst.st}
	up := &analytics.Updater{Store: counted, Lookup: editions.Lookup, Sink: dst.db}
	// Each match's first events reach the tables from the store; the
	// rest are fed as recorded, a few at a time.
	head := map[string]uint64{}
	for _, id := range res.Matches {
		var first []events.Event
		_ = src.st.Scan(ctx, id, 1, func(e events.Event) error {
			if e.Seq > 6 {
				return events.ErrStop
			}
			first = append(first, e)
			return nil
		})
		if err := dst.st.Append(ctx, id, 0, first); err != nil {
			t.Fatal(err)
		}
		head[id] = uint64(len(first))
	}
	catchUp(t, up)
	fed := 0
	ended := map[string]bool{} // matches whose end was fed
	for i := 0; i < len(recs); {
		n := min(1+i%5, len(recs)-i)
		var batch []analytics.Recorded
		for _, r := range recs[i : i+n] {
			if r.Event.Seq <= head[r.Event.Match] {
				continue
			}
			if err := dst.st.Append(ctx, r.Event.Match, r.Event.Seq-1, []events.Event{r.Event}); err != nil {
				t.Fatal(err)
			}
			head[r.Event.Match] = r.Event.Seq
			batch = append(batch, r)
		}
		i += n
		counted.read = 0
		behind, err := up.Feed(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		if len(behind) > 0 {
			// An ended match's fold is not kept (the reveal that follows
			// the end, in another batch here, is read from the store), as
			// the live consumer does.
			for _, id := range behind {
				if !ended[id] {
					t.Fatalf("match %s fell behind the feed before its end", id)
				}
			}
			if _, err := up.CatchUp(ctx, analytics.Round{IDs: behind}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if counted.read > 0 {
			t.Fatalf("feeding %d events read %d from the store", len(batch), counted.read)
		}
		fed += len(batch)
		for _, r := range batch {
			if _, ok := r.Payload.(*events.MatchEnded); ok {
				ended[r.Event.Match] = true
			}
		}
	}
	if fed == 0 {
		t.Fatal("nothing was fed")
	}
	fresh, freshUp := dst.openDB(t, "fresh.duckdb")
	catchUp(t, freshUp)
	got, want := dump(t, dst.db), dump(t, fresh)
	for _, tb := range analytics.Tables {
		if !reflect.DeepEqual(got[tb.Name], want[tb.Name]) {
			t.Errorf("table %s: %d rows fed, %d folded from the store; first difference: %s",
				tb.Name, len(got[tb.Name]), len(want[tb.Name]), firstDiff(got[tb.Name], want[tb.Name]))
		}
	}

}
