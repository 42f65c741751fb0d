package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The JSON API answers what the recorder knows: the same state at any
// event, the same narrated lines as the node's events verb, and never a
// token hash.
func TestAPIStateEventsAndMatches(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 20)

	var res web.MatchesResponse
	if code, b := r.get("/api/matches", nil, &res); code != http.StatusOK {
		t.Fatalf("matches: %d %s", code, b)
	}
	list := res.Matches
	if len(list) != 1 || list[0].ID != m.id || list[0].Head != head || list[0].Name != "Boltguns vs Boyz" ||
		len(list[0].Players) != 2 || list[0].Players[0].Name != "Alice" || list[0].Status != "live" || res.Rev == 0 {
		t.Fatalf("matches: %+v", res)
	}

	for _, at := range []uint64{0, 1, 11, head} {
		path := "/api/matches/" + m.id + "/state"
		if at != 0 {
			path += fmt.Sprintf("?at=%d", at)
		}
		var got web.StateResponse
		code, b := r.get(path, nil, &got)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, code, b)
		}
		if bytes.Contains(b, []byte(`"tokens"`)) {
			t.Fatalf("%s leaks the token hashes", path)
		}
		want := r.state(m.id, at)
		if got.Head != head || got.View != "public" || got.DelayMS != 0 {
			t.Fatalf("%s: head %d view %s delay %d", path, got.Head, got.View, got.DelayMS)
		}
		want.Tokens = nil
		if a, b := jsonOf(t, got.State), jsonOf(t, want); a != b {
			t.Fatalf("%s: the state differs from the recorder's\n got %.300s\nwant %.300s", path, a, b)
		}
	}

	// Paging, and the narrator's lines as the node's events verb tells them.
	var page web.EventsResponse
	if code, b := r.get("/api/matches/"+m.id+"/events?from=3&limit=7", nil, &page); code != http.StatusOK {
		t.Fatalf("events: %d %s", code, b)
	}
	if len(page.Events) != 7 || page.Events[0].Seq != 3 || page.Next != 10 || page.Head != head {
		t.Fatalf("events page: %d events from %d, next %d, head %d", len(page.Events), page.Events[0].Seq, page.Next, page.Head)
	}
	var verb api.EventsResult
	if err := r.api.Call(context.Background(), api.VerbEvents, api.EventsRequest{Match: m.id, From: 3, To: 9}, &verb); err != nil {
		t.Fatal(err)
	}
	for i, e := range page.Events {
		if v := verb.Events[i]; e.Seq != v.Seq || e.Text != v.Text || e.Hash != v.Hash || e.Type != v.Type {
			t.Fatalf("event %d: %+v, the events verb says %+v", e.Seq, e, v)
		}
	}
	var first web.EventsResponse
	if _, b := r.get("/api/matches/"+m.id+"/events?from=1&limit=1", nil, &first); bytes.Contains(b, []byte("tokens")) || first.Events[0].Seq != 1 {
		t.Fatalf("match.created leaks the token hashes: %s", b)
	}
	// Without from: the last events, the tail a page shows first.
	var last web.EventsResponse
	if code, b := r.get("/api/matches/"+m.id+"/events?limit=4", nil, &last); code != http.StatusOK ||
		len(last.Events) != 4 || last.Events[0].Seq != head-3 || last.Events[3].Seq != head || last.Next != 0 {
		t.Fatalf("the last 4 events: %d %s", code, b)
	}
	var tail web.EventsResponse
	if code, b := r.get(fmt.Sprintf("/api/matches/%s/events?from=%d", m.id, head+1), nil, &tail); code != http.StatusOK || len(tail.Events) != 0 || tail.Next != 0 {
		t.Fatalf("the tail: %d %s", code, b)
	}

	// The pages and their assets are built in, with a policy that lets them
	// load nothing from elsewhere.
	for _, p := range []string{"/", "/matches/" + m.id, "/matches/" + m.id + "?overlay=1", "/static/js/match.js", "/static/css/base.css"} {
		req, _ := http.NewRequest(http.MethodGet, r.base+p, nil)
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Fatalf("%s: %d, CSP %q", p, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	// Both sides go through the same decode, so fields JSON does not
	// carry are dropped alike.
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var st projector.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(&st)
	return string(b)
}

// Bad input gets a clear 4xx with a JSON error, at once: never a 500, and
// never a hang (every request here has a 10 s client timeout, and an
// event stream that should fail must not start streaming).
func TestAPIBadInput(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 6)
	player := m.tokens[api.RolePlayer("alice")]
	id := "/api/matches/" + m.id

	cases := []struct {
		name, method, path string
		hdr                http.Header
		status             int
		code               projector.Code
	}{
		{"unknown match: state", "GET", "/api/matches/nosuchmatch/state", nil, 404, projector.CodeNotFound},
		{"unknown match: events", "GET", "/api/matches/nosuchmatch/events", nil, 404, projector.CodeNotFound},
		{"unknown match: stream", "GET", "/api/matches/nosuchmatch/stream", nil, 404, projector.CodeNotFound},
		{"unknown match: judge", "POST", "/api/matches/nosuchmatch/judge", bearer("x"), 404, projector.CodeNotFound},
		{"not a match id", "GET", "/api/matches/no.such%20match/state", nil, 400, projector.CodeBadRequest},
		{"too long an id", "GET", "/api/matches/" + strings.Repeat("x", 65) + "/events", nil, 400, projector.CodeBadRequest},
		{"page of a bad id", "GET", "/matches/bad.id", nil, 400, projector.CodeBadRequest},

		{"state past the end", "GET", fmt.Sprintf("%s/state?at=%d", id, head+1), nil, 404, projector.CodeBeyondEnd},
		{"state far past the end", "GET", id + "/state?at=18446744073709551615", nil, 404, projector.CodeBeyondEnd},
		{"events past the end", "GET", fmt.Sprintf("%s/events?from=%d", id, head+2), nil, 404, projector.CodeBeyondEnd},
		{"stream past the end", "GET", fmt.Sprintf("%s/stream?from=%d", id, head+2), nil, 404, projector.CodeBeyondEnd},
		{"Last-Event-ID past the end", "GET", id + "/stream", http.Header{"Last-Event-Id": {fmt.Sprint(head + 1)}}, 404, projector.CodeBeyondEnd},

		{"at not a number", "GET", id + "/state?at=abc", nil, 400, projector.CodeBadRequest},
		{"at zero", "GET", id + "/state?at=0", nil, 400, projector.CodeBadRequest},
		{"at negative", "GET", id + "/state?at=-1", nil, 400, projector.CodeBadRequest},
		{"at fraction", "GET", id + "/state?at=1.5", nil, 400, projector.CodeBadRequest},
		{"at empty", "GET", id + "/state?at=", nil, 400, projector.CodeBadRequest},
		{"at overflow", "GET", id + "/state?at=99999999999999999999999", nil, 400, projector.CodeBadRequest},
		{"at twice", "GET", id + "/state?at=1&at=2", nil, 400, projector.CodeBadRequest},
		{"unknown parameter", "GET", id + "/state?seq=3", nil, 400, projector.CodeBadRequest},
		{"bad escape", "GET", id + "/state?at=%zz", nil, 400, projector.CodeBadRequest},
		{"bad view", "GET", id + "/state?view=boss", nil, 400, projector.CodeBadRequest},
		{"from not a number", "GET", id + "/events?from=1x", nil, 400, projector.CodeBadRequest},
		{"limit zero", "GET", id + "/events?limit=0", nil, 400, projector.CodeBadRequest},
		{"limit too big", "GET", id + "/events?limit=100000", nil, 400, projector.CodeBadRequest},
		{"stream from not a number", "GET", id + "/stream?from=abc", nil, 400, projector.CodeBadRequest},
		{"bad Last-Event-ID", "GET", id + "/stream", http.Header{"Last-Event-Id": {"abc"}}, 400, projector.CodeBadRequest},
		{"matches with a parameter", "GET", "/api/matches?x=1", nil, 400, projector.CodeBadRequest},
		{"matches of a bad status", "GET", "/api/matches?status=over", nil, 400, projector.CodeBadRequest},
		{"matches in a bad order", "GET", "/api/matches?sort=name", nil, 400, projector.CodeBadRequest},
		{"matches, limit zero", "GET", "/api/matches?limit=0", nil, 400, projector.CodeBadRequest},
		{"matches, limit too big", "GET", "/api/matches?limit=1001", nil, 400, projector.CodeBadRequest},
		{"matches, a bad cursor", "GET", "/api/matches?cursor=xyz", nil, 400, projector.CodeBadRequest},
		{"matches, a bad since", "GET", "/api/matches?since=-1", nil, 400, projector.CodeBadRequest},
		{"turns of an unknown match", "GET", "/api/matches/nosuchmatch/turns", nil, 404, projector.CodeNotFound},
		{"turns with a parameter", "GET", id + "/turns?at=3", nil, 400, projector.CodeBadRequest},
		{"overlay of an unknown kind", "GET", "/matches/" + m.id + "?overlay=huge", nil, 400, projector.CodeBadRequest},

		{"judge view without a token", "GET", id + "/stream?view=judge", nil, 401, projector.CodeUnauthorized},
		{"a wrong token", "GET", id + "/state", bearer("0123456789abcdef"), 401, projector.CodeUnauthorized},
		{"a player's token", "GET", id + "/state", bearer(player), 403, projector.CodeForbidden},
		{"judge cookie without a token", "POST", id + "/judge", nil, 401, projector.CodeUnauthorized},
		{"judge cookie for a player", "POST", id + "/judge", bearer(player), 403, projector.CodeForbidden},

		{"no such endpoint", "GET", "/api/nothing", nil, 404, projector.CodeNotFound},
		{"no such endpoint of a match", "GET", id + "/nothing", nil, 404, projector.CodeNotFound},
		{"no such page", "GET", "/nothing", nil, 404, projector.CodeNotFound},
		{"wrong method", "POST", "/api/matches", nil, 405, projector.CodeMethodNotAllowed},
		{"wrong method for judge", "GET", id + "/judge", nil, 405, projector.CodeMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, r.base+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range c.hdr {
				req.Header[k] = vs
			}
			start := time.Now()
			resp, err := r.hc.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", c.method, c.path, err)
			}
			defer resp.Body.Close()
			var body web.APIError
			err = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != c.status || err != nil || body.Error.Code != c.code || body.Error.Message == "" {
				t.Fatalf("%s %s: %d %+v (%v); want %d %s", c.method, c.path, resp.StatusCode, body, err, c.status, c.code)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %s", d)
			}
		})
	}
}
