package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The judge logs in with a form: the token goes in a POST body, never in
// an address; the browser keeps only an HttpOnly session cookie, and the
// judge's view shows the open disputes and the unconfirmed rolls. An old
// #judge=TOKEN link loses its token from the address at once. Logging out
// ends the view.
func TestBrowserJudgeLogin(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	r.playTo(m, 12)
	roll := r.state(m.id, 0).LastRoll.Seq
	r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: roll, Reason: "it rolled off the table"})
	page := r.base + "/matches/" + m.id

	do(b, "open the public page", chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(page))
	waitJS[bool](b, `document.getElementById('judge-link')?.hidden === false`)
	if eval[bool](b, `document.getElementById('judge-panel').hidden === false`) {
		t.Fatal("the public page shows the judge's panel")
	}
	do(b, "go to the login", chromedp.Click(chromedp.ID("judge-link")))
	waitJS[bool](b, `!!document.getElementById('token')`)

	// A wrong token: the form again, with the reason, and no session.
	do(b, "log in wrong", chromedp.SendKeys(chromedp.ID("token"), "not-the-token"), chromedp.Submit(chromedp.ID("token")))
	msg := waitJS[string](b, `document.getElementById('login-error')?.textContent`)
	if !strings.Contains(msg, "not valid") {
		t.Fatalf("a wrong token says %q", msg)
	}
	do(b, "log in", chromedp.SendKeys(chromedp.ID("token"), m.judge()), chromedp.Submit(chromedp.ID("token")))
	waitJS[bool](b, `document.getElementById('view-badge')?.dataset.view === "judge"`)
	href := eval[string](b, `location.href`)
	if strings.Contains(href, m.judge()) || !strings.HasSuffix(href, "/matches/"+m.id+"?view=judge") {
		t.Fatalf("the judge's address is %q", href)
	}
	if c := eval[string](b, `document.cookie`); c != "" {
		t.Fatalf("the session cookie is readable by scripts: %q", c)
	}

	// The judge's panel: the dispute and the rolls nobody confirmed.
	st := r.state(m.id, 0)
	unconfirmed := 0
	for _, mr := range st.Dice.Manual {
		if mr.Status != projector.RollConfirmed {
			unconfirmed++
		}
	}
	waitJS[bool](b, fmt.Sprintf(`document.getElementById('judge').dataset.open === "1" && document.getElementById('judge').dataset.unconfirmed === "%d"`, unconfirmed))
	text := eval[string](b, `document.getElementById('judge').textContent`)
	for _, want := range []string{"Open disputes (1)", fmt.Sprintf("Bob disputes event %d", roll), "it rolled off the table", fmt.Sprintf("Unconfirmed rolls (%d)", unconfirmed)} {
		if !strings.Contains(text, want) {
			t.Errorf("the judge's panel lacks %q: %q", want, text)
		}
	}
	// A confirmation takes a roll off the list.
	first := st.Dice.Manual[0]
	confirmer := "bob"
	if first.Roller == "bob" {
		confirmer = "alice"
	}
	r.command(m, api.RolePlayer(confirmer), projector.Command{Type: "confirm", Event: first.Seq})
	waitJS[bool](b, fmt.Sprintf(`document.getElementById('judge').dataset.unconfirmed === "%d"`, unconfirmed-1))

	// Logging out ends the view: the public page again.
	do(b, "log out", chromedp.Click(chromedp.CSS(`#logout button`)))
	waitJS[bool](b, `location.search === "" && document.getElementById('judge-link')?.hidden === false`)
	code, _ := r.get("/api/matches/"+m.id+"/state?view=judge", nil, nil)
	if code != 401 {
		t.Fatalf("the judge view without a session: %d", code)
	}

	// An old judge link: the token leaves the address at once.
	do(b, "open an old judge link", chromedp.Navigate("about:blank"), chromedp.Navigate(page+"#judge="+m.judge()))
	waitJS[bool](b, `document.body.dataset.seq !== undefined && document.getElementById('message').textContent.includes('log in')`)
	if href := eval[string](b, `location.href`); strings.Contains(href, m.judge()) {
		t.Fatalf("the old judge link left the token in the address: %q", href)
	}
	// The refused login answered 401, which Chromium logs; nothing else.
	for _, e := range b.consoleErrors() {
		if !strings.Contains(e, "status of 401") {
			t.Fatalf("the pages logged an error: %s", e)
		}
	}
}

// When the bus copy differs from the record, the page says the feed is
// paused, and shows nothing the recorder did not write.
func TestBrowserFeedPaused(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 10)
	do(b, "open the live page", chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(r.base+"/matches/"+m.id))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d" && document.getElementById('conn').dataset.state === 'connected'`, head))
	forgeNext(t, r, m.id)
	waitJS[bool](b, `document.getElementById('feed-status').textContent === 'feed paused: the bus copy differs from the record' && !document.getElementById('feed-status').hidden`)
	r.step(m)
	time.Sleep(500 * time.Millisecond)
	if got := eval[string](b, `document.body.dataset.seq + '/' + document.getElementById('seek').max + '/' + document.querySelectorAll('#feed li[data-seq]').length`); got != fmt.Sprintf("%d/%d/%d", head, head, head) {
		t.Fatalf("a paused page moved on: seq/max/feed %s, want %d each", got, head)
	}
}
