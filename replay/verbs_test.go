package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// exampleReader records the example's manual steps (playInMemory) on a
// bbolt file and serves the readers' verbs on it with pages of pageBytes.
func exampleReader(t *testing.T, pageBytes int) (api.Verbs, *recorder.Recorder, string) {
	t.Helper()
	const id = "example"
	st := openBolt(t)
	if err := st.Append(context.Background(), id, 0, projtest.Relabel(id, playInMemory(t).Events)); err != nil {
		t.Fatal(err)
	}
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	return (&replay.Reader{Recorder: rec, PageBytes: pageBytes}).Verbs(), rec, id
}

func call[T any](t *testing.T, v api.Verbs, verb string, req string) (T, error) {
	t.Helper()
	var zero T
	res, err := v.Handle(context.Background(), verb, []byte(req))
	if err != nil {
		return zero, err
	}
	return res.(T), nil
}

// The events verb tells every event with its narration, and pages a long
// match so that no reply outgrows a NATS message.
func TestEventsVerbPagesAndNarrates(t *testing.T) {
	v, rec, id := exampleReader(t, 0)
	all, err := call[api.EventsResult](t, v, api.VerbEvents, `{"match":"example"}`)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := rec.Store().Head(context.Background(), id)
	if uint64(len(all.Events)) != head.Seq || all.Next != 0 {
		t.Fatalf("%d events (next %d) for a match of %d", len(all.Events), all.Next, head.Seq)
	}
	var summaries int
	for i, e := range all.Events {
		if e.Seq != uint64(i+1) || e.Text == "" || len(e.Payload) == 0 {
			t.Fatalf("event %d: %+v", i+1, e)
		}
		if strings.Contains(e.Text, "\nTurn ") {
			summaries++
		}
		if e.Type == events.TypeMatchCreated && strings.Contains(string(e.Payload), "tokens") {
			t.Error("the log shows the token hashes")
		}
	}
	if summaries == 0 {
		t.Error("no attack summary in the narration")
	}

	// Small pages: the same events, in order, across several replies.
	small, _, _ := exampleReader(t, 4<<10)
	var paged []api.EventView
	req := api.EventsRequest{Match: id, From: 2}
	pages := 0
	for {
		res, err := small.Handle(context.Background(), api.VerbEvents, mustJSON(t, req))
		if err != nil {
			t.Fatal(err)
		}
		page := res.(api.EventsResult)
		pages++
		paged = append(paged, page.Events...)
		if page.Next == 0 {
			break
		}
		req.From = page.Next
	}
	if pages < 2 || !reflect.DeepEqual(paged, all.Events[1:]) {
		t.Fatalf("%d pages gave %d events; want the %d events after the first", pages, len(paged), len(all.Events)-1)
	}

	// Text only: the same lines, no payloads.
	text, err := call[api.EventsResult](t, v, api.VerbEvents, `{"match":"example","text_only":true}`)
	if err != nil || len(text.Events) != len(all.Events) {
		t.Fatalf("text only: %d events, %v", len(text.Events), err)
	}
	for i, e := range text.Events {
		if e.Payload != nil || e.Text != all.Events[i].Text || e.Hash != all.Events[i].Hash {
			t.Fatalf("text only, event %d: %+v", e.Seq, e)
		}
	}

	// A range, and the errors of the verb.
	some, err := call[api.EventsResult](t, v, api.VerbEvents, `{"match":"example","from":5,"to":7}`)
	if err != nil || len(some.Events) != 3 || some.Events[0].Seq != 5 {
		t.Fatalf("range 5..7: %+v %v", some.Events, err)
	}
	for body, code := range map[string]projector.Code{
		`{"match":"nosuchmatch"}`:             projector.CodeNotFound,
		`{"match":"../etc"}`:                  projector.CodeBadRequest,
		`{"match":"example","from":9,"to":3}`: projector.CodeBadRequest,
		`{"match":"example","form":9}`:        projector.CodeBadRequest,
	} {
		if _, err := v.Handle(context.Background(), api.VerbEvents, []byte(body)); api.CodeOf(err) != code {
			t.Errorf("%s: want %s, got %v", body, code, err)
		}
	}
}

// The bundle verb pages through a match's records: every record once, in
// order, the audit context on the first page only, and the assembled
// bundle verifies against the recorder's live state.
func TestBundleVerbPages(t *testing.T) {
	v, rec, id := exampleReader(t, 4<<10)
	var b *api.Bundle
	pages := 0
	for req := (api.BundleRequest{Match: id}); ; pages++ {
		res, err := v.Handle(context.Background(), api.VerbBundle, mustJSON(t, req))
		if err != nil {
			t.Fatal(err)
		}
		page := res.(api.BundleResult)
		if b == nil {
			first := page.Bundle
			b = &first
		} else {
			if page.StateHash != (events.Hash{}) {
				t.Fatal("a later page repeats the first page's context")
			}
			b.Keys = append(b.Keys, page.Keys...)
			b.Records = append(b.Records, page.Records...)
		}
		if page.Next == 0 {
			break
		}
		req.From = page.Next
	}
	head, _ := rec.Store().Head(context.Background(), id)
	if pages < 2 || uint64(len(b.Records)) != head.Seq {
		t.Fatalf("%d pages, %d records for %d events", pages+1, len(b.Records), head.Seq)
	}
	for i, k := range b.Keys {
		if k != uint64(i+1) {
			t.Fatalf("record %d has key %d", i+1, k)
		}
	}
	// The match was folded by the test harness, not the recorder, so its
	// participant events carry no statement (missing_statement): the pages
	// must still give every record intact and a state that re-folds to the
	// recorder's.
	rep := replay.VerifyBundle(b, editions.Lookup, nil)
	if c := rep.Checks; !c.Chain.OK || c.Refold == nil || !c.Refold.OK || !c.Refold.Compared || !c.Dice.OK || !c.End.OK {
		t.Fatalf("assembled bundle: %s %v %v", rep.Verdict, rep.Problems, rep.Unresolved)
	}
	for _, p := range rep.Problems {
		if p.Code != "missing_statement" {
			t.Errorf("assembled bundle: %s", p)
		}
	}

	// Written page by page (as export does) or at once, the file reads
	// back as the same bundle.
	var whole, paged bytes.Buffer
	if err := replay.WriteBundle(&whole, b); err != nil {
		t.Fatal(err)
	}
	bw, err := replay.NewBundleWriter(&paged, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(b.Keys); i += 7 {
		j := min(i+7, len(b.Keys))
		if err := bw.Add(b.Keys[i:j], b.Records[i:j]); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, buf := range map[string]*bytes.Buffer{"whole": &whole, "paged": &paged} {
		got, err := replay.ReadBundle(buf)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, b) {
			t.Fatalf("%s: the bundle read back differs", name)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
