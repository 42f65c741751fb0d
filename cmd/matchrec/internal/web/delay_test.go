package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
)

// With a broadcast delay, a public client gets no event before its
// recording time plus the delay, by the stream or by /state and /events;
// the judge's view gets it at once.
func TestBroadcastDelay(t *testing.T) {
	const delay = 1500 * time.Millisecond
	r := newRig(t, delay)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	id := "/api/matches/" + m.id

	// Just created: not public yet, not even listed, yet the judge sees it.
	if code, b := r.get(id+"/state", nil, nil); code != http.StatusNotFound {
		t.Fatalf("public state of a match created just now: %d %s", code, b)
	}
	var list web.MatchesResponse
	if r.get("/api/matches", nil, &list); len(list.Matches) != 0 {
		t.Fatalf("listed before the delay: %+v", list)
	}
	var js web.StateResponse
	if code, b := r.get(id+"/state", bearer(m.judge()), &js); code != http.StatusOK || js.View != "judge" || js.Head != 2 || js.DelayMS != 0 {
		t.Fatalf("judge state: %d %s", code, b)
	}
	var first web.EventsResponse
	if code, b := r.get(id+"/events", bearer(m.judge()), &first); code != http.StatusOK || len(first.Events) != 2 {
		t.Fatalf("judge events: %d %s", code, b)
	}
	created, err := time.Parse(time.RFC3339Nano, first.Events[1].Time) // events 1 and 2 share their time
	if err != nil {
		t.Fatal(err)
	}

	// Wait for the match to become public; it must not before the delay.
	var ps web.StateResponse
	for {
		code, _ := r.get(id+"/state", nil, &ps)
		if code == http.StatusOK {
			break
		}
		if time.Since(created) > 10*time.Second {
			t.Fatal("the match never became public")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The answer came after the server decided, so after the release.
	if d := time.Since(created); d < delay {
		t.Fatalf("public %s after it was recorded, before the %s delay", d, delay)
	}
	if ps.View != "public" || ps.DelayMS != delay.Milliseconds() || ps.Head != 2 {
		t.Fatalf("public state: %+v", ps)
	}

	pub, code, b := r.openSSE(id+"/stream?from=3", nil)
	if pub == nil {
		t.Fatalf("public stream: %d %s", code, b)
	}
	judge, code, b := r.openSSE(id+"/stream?from=3", bearer(m.judge()))
	if judge == nil {
		t.Fatalf("judge stream: %d %s", code, b)
	}

	res := r.step(m) // event 3: Alice's turn begins
	acked := time.Now()
	seq := res.Events[0].Seq

	jm := judge.next(5 * time.Second)
	if jm.data.Event.Seq != seq || jm.at.Sub(acked) > delay/2 {
		t.Fatalf("judge got event %d after %s", jm.data.Event.Seq, jm.at.Sub(acked))
	}
	var recorded time.Time
	recorded, err = time.Parse(time.RFC3339Nano, jm.data.Event.Time)
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile nothing of event 3 is public, through any endpoint. An
	// answer read after the release may show it (a loaded machine can
	// take that long): only answers read before it are checked.
	release := recorded.Add(delay)
	held := func(what string) bool {
		if time.Now().Before(release) {
			return true
		}
		t.Logf("%s: answered after the release, not checked", what)
		return false
	}
	if msg, quiet := pub.quiet(delay / 3); !quiet {
		t.Fatalf("a public client got event %d %s after it was recorded", msg.data.Event.Seq, msg.at.Sub(recorded))
	}
	var now web.StateResponse
	if code, b := r.get(id+"/state", nil, &now); held("public state") && (code != http.StatusOK || now.Head != 2 || now.State.Seq != 2) {
		t.Fatalf("public state during the delay: %d %s", code, b)
	}
	if code, b := r.get(fmt.Sprintf("%s/state?at=%d", id, seq), nil, nil); held("state?at") && code != http.StatusNotFound {
		t.Fatalf("public state at the held event: %d %s", code, b)
	}
	var evs web.EventsResponse
	if code, b := r.get(id+"/events?from=3", nil, &evs); held("events?from") && (code != http.StatusOK || len(evs.Events) != 0 || evs.Head != 2) {
		t.Fatalf("public events during the delay: %d %s", code, b)
	}

	// The cookie the judge's page gets counts only where the page asks
	// for the judge view: a public page in the same browser stays delayed.
	req, _ := http.NewRequest(http.MethodPost, r.base+id+"/judge", nil)
	req.Header.Set("Authorization", "Bearer "+m.judge())
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		cookie = c
	}
	if resp.StatusCode != http.StatusOK || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode ||
		cookie.Value == m.judge() || len(cookie.Value) < 32 {
		t.Fatalf("judge cookie: %d %+v", resp.StatusCode, cookie)
	}
	withCookie := http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}}
	var jv, pv web.StateResponse
	if code, b := r.get(id+"/state?view=judge", withCookie, &jv); code != http.StatusOK || jv.Head != seq || jv.View != "judge" {
		t.Fatalf("judge view by cookie: %d %s", code, b)
	}
	if code, b := r.get(id+"/state", withCookie, &pv); code != http.StatusOK || pv.View != "public" || pv.DelayMS != delay.Milliseconds() ||
		(held("public view with the judge's cookie") && pv.Head != 2) {
		t.Fatalf("public view with the judge's cookie: %d %s", code, b)
	}

	pm := pub.next(5 * time.Second)
	if pm.data.Event.Seq != seq || pm.data.State == nil {
		t.Fatalf("public got event %d (board %v)", pm.data.Event.Seq, pm.data.State != nil)
	}
	if early := recorded.Add(delay).Sub(pm.at); early > 0 {
		t.Fatalf("a public client got event %d %s before its release", seq, early)
	}
	t.Logf("event %d: judge %s after the ack, public %s after its recording (delay %s)",
		seq, jm.at.Sub(acked), pm.at.Sub(recorded), delay)
	if code, b := r.get(id+"/state", nil, &now); code != http.StatusOK || now.Head != seq {
		t.Fatalf("public state after the delay: %d %s", code, b)
	}
}
