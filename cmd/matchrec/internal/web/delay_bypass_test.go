package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The broadcast delay holds back every event, through every endpoint and
// every parameter: a turn that started and a match that ended within the
// delay show nowhere public — not in the state (now or ?at=), the events
// (the tail, ?from=, ?limit=), the turn marks, the stream (?from= or a
// Last-Event-ID past the public head), nor the match list (its head, last
// event, status, winner, the status filter or a refresh by ?since=) —
// until the delay has passed; the judge sees them at once.
func TestBroadcastDelayCannotBeBypassed(t *testing.T) {
	const delay = 2 * time.Second
	r := newRig(t, delay)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	id := "/api/matches/" + m.id
	waitPublic := func(head uint64) {
		t.Helper()
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			var s web.StateResponse
			if code, _ := r.get(id+"/state", nil, &s); code == http.StatusOK && s.Head == head {
				return
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("event %d never became public", head)
			}
		}
	}
	waitPublic(2)
	var before web.MatchesResponse
	r.get("/api/matches", nil, &before)

	// Within the delay: Alice's turn starts (event 3) and the judge ends
	// the match.
	r.step(m)
	end := r.command(m, api.RoleJudge, projector.Command{Type: "end", Winner: "alice", Reason: "time"})
	recorded := time.Now()
	head := end.Events[len(end.Events)-1].Seq
	within := func() bool { return time.Since(recorded) < delay-300*time.Millisecond }

	type check struct {
		name, path string
		hdr        http.Header
		status     int
		held       func(body string) bool // true when the answer tells what the delay holds
	}
	hasEvent3 := func(b string) bool { return strings.Contains(b, `"seq":3`) }
	checks := []check{
		{"state now", id + "/state", nil, 200, func(b string) bool { return !strings.Contains(b, `"seq":2,`) || strings.Contains(b, `"ended":true`) }},
		{"state at the held turn", id + "/state?at=3", nil, 404, nil},
		{"state at the end", fmt.Sprintf("%s/state?at=%d", id, head), nil, 404, nil},
		{"events, the tail", id + "/events", nil, 200, hasEvent3},
		{"events from 1", id + "/events?from=1&limit=5000", nil, 200, hasEvent3},
		{"events from the public tail", id + "/events?from=3", nil, 200, func(b string) bool { return !strings.Contains(b, `"events":[]`) }},
		{"events from past the public tail", id + "/events?from=4", nil, 404, nil},
		{"turn marks", id + "/turns", nil, 200, func(b string) bool { return !strings.Contains(b, `"turns":[]`) }},
		{"stream from past the public head", id + "/stream?from=4", nil, 404, nil},
		{"stream resuming past the public head", id + "/stream", http.Header{"Last-Event-Id": {"3"}}, 404, nil},
		{"the judge view without a login", id + "/state?view=judge", nil, 401, nil},
		{"the list", "/api/matches", nil, 200, func(b string) bool {
			return strings.Contains(b, `"status":"ended"`) || strings.Contains(b, `"winner"`) || !strings.Contains(b, `"head":2,`)
		}},
		{"the list of ended matches", "/api/matches?status=ended", nil, 200, func(b string) bool { return strings.Contains(b, m.id) }},
		{"the list of live matches", "/api/matches?status=live", nil, 200, func(b string) bool { return !strings.Contains(b, m.id) }},
		{"the list's refresh", fmt.Sprintf("/api/matches?since=%d", before.Rev), nil, 200, func(b string) bool {
			return strings.Contains(b, `"status":"ended"`) || strings.Contains(b, `"head":`+fmt.Sprint(head))
		}},
	}
	for _, c := range checks {
		code, b := r.get(c.path, c.hdr, nil)
		if !within() {
			t.Fatal("the checks took longer than the delay; nothing can be concluded")
		}
		if code != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, code, c.status, b)
			continue
		}
		if c.held != nil && c.held(string(b)) {
			t.Errorf("%s tells what the delay holds: %s", c.name, b)
		}
		if c.status == 404 && strings.Contains(string(b), "beyond_end") && !strings.Contains(string(b), "has 2 public events") {
			t.Errorf("%s: %s", c.name, b)
		}
	}
	// Streams that may open get nothing held.
	for _, c := range []struct {
		name, path string
		hdr        http.Header
	}{{"stream from the public tail", id + "/stream?from=3", nil}, {"stream resuming at the public head", id + "/stream", http.Header{"Last-Event-Id": {"2"}}}} {
		s, code, b := r.openSSE(c.path, c.hdr)
		if s == nil {
			t.Fatalf("%s: %d %s", c.name, code, b)
		}
		if msg, quiet := s.quiet(time.Until(recorded.Add(delay - 300*time.Millisecond))); !quiet {
			t.Fatalf("%s sent event %d within the delay", c.name, msg.data.Event.Seq)
		}
		s.close()
	}
	// The judge sees everything at once.
	var js web.StateResponse
	if code, b := r.get(id+"/state", bearer(m.judge()), &js); code != 200 || js.Head != head || !js.State.Ended {
		t.Fatalf("judge: %d %s", code, b)
	}
	var jt web.TurnsResponse
	if r.get(id+"/turns", bearer(m.judge()), &jt); len(jt.Turns) != 1 || jt.Turns[0].Seq != 3 {
		t.Fatalf("judge turns: %+v", jt)
	}

	// Once the delay has passed, the public sees it all, the list's
	// refresh included.
	waitPublic(head)
	var after web.MatchesResponse
	if code, b := r.get(fmt.Sprintf("/api/matches?since=%d", before.Rev), nil, &after); code != 200 || len(after.Matches) != 1 ||
		after.Matches[0].Status != "ended" || after.Matches[0].Winner != "alice" || after.Matches[0].Head != head {
		t.Fatalf("the refresh after the delay: %d %s", code, b)
	}
}
