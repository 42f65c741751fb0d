package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// hostile are names a player could type: markup that would run script if
// a page ever parsed a name as HTML.
var hostile = []string{
	`<img src=x onerror="window.__pwned=1">`,
	`<script>window.__pwned=1</script>`,
	`"><svg onload="window.__pwned=1">`,
}

// Every name that comes from a script or a declaration — the match, the
// players, units, models, weapons, terrain, a dispute's reason, a
// ruling's note — is shown as text on every page: the match list, the
// live page, the judge's view and the overlay. Nothing runs (a global
// flag stays unset, the console stays clean: the policy would report an
// inline handler it blocked), no element is made from a name, and the
// names read as typed.
func TestBrowserHostileNames(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	sc := readScript(t, "3e-boltguns-vs-boyz.yaml")
	mc := &sc.Match
	mc.Name = hostile[0]
	for i := range mc.Players {
		mc.Players[i].Name = hostile[(i+1)%len(hostile)] + mc.Players[i].Name
	}
	for i := range mc.Units {
		u := &mc.Units[i]
		u.Name = hostile[i%len(hostile)] + u.Name
		for j := range u.Weapons {
			u.Weapons[j].Name = hostile[j%len(hostile)] + u.Weapons[j].ID
		}
		for j := range u.Models {
			u.Models[j].Name = hostile[(i+j)%len(hostile)]
		}
	}
	for i := range mc.Terrain {
		mc.Terrain[i].Name = hostile[i%len(hostile)]
	}
	m := r.create(sc)
	r.playTo(m, 14)
	roll := r.state(m.id, 0).LastRoll.Seq
	disp := r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: roll, Reason: hostile[1]})
	r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: disp.Events[0].Seq, Decision: "uphold", Reason: hostile[0]})
	r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: roll, Reason: hostile[2]})

	// The judge's view, for the disputes' reasons (a session by the API).
	req := fmt.Sprintf(`fetch('/api/matches/%s/judge', {method: 'POST', headers: {Authorization: 'Bearer %s'}}).then(r => r.status)`, m.id, m.judge())
	page := r.base + "/matches/" + m.id
	seq := r.state(m.id, 0).Seq
	for _, p := range []struct{ name, url, ready, shows string }{
		{"match list", r.base + "/", `document.querySelectorAll('#matches tbody tr').length === 1`, `document.querySelector('#matches tbody').textContent`},
		{"live page", page, fmt.Sprintf(`document.body.dataset.seq === "%d" && document.querySelectorAll('#feed li[data-seq]').length > 5`, seq),
			`document.getElementById('title').textContent + document.getElementById('tally').textContent + document.getElementById('feed').textContent + [...document.querySelectorAll('#board text, #board title')].map(e => e.textContent).join('')`},
		{"judge view", page + "?view=judge", fmt.Sprintf(`document.body.dataset.seq === "%d" && document.getElementById('judge').dataset.open === "1"`, seq),
			`document.getElementById('judge').textContent`},
		{"replay", page + "?at=12", `document.body.dataset.mode === "replay" && document.body.dataset.seq === "12"`, `document.getElementById('roll-head').textContent`},
		{"overlay", page + "?overlay=full", fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq), `document.getElementById('ov-bar').textContent`},
	} {
		if p.name == "judge view" { // log in first, from the page open
			c, cancel := context.WithTimeout(b.ctx, 10*time.Second)
			code, err := chromedp.Run(c, chromedp.Evaluate[int](req, chromedp.EvalAwaitPromise))
			cancel()
			if err != nil || code != 200 {
				t.Fatalf("judge session: %d %v", code, err)
			}
		}
		do(b, "open the "+p.name, chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(p.url))
		waitJS[bool](b, p.ready)
		if pwned := eval[bool](b, `window.__pwned !== undefined`); pwned {
			t.Fatalf("%s: a name ran script", p.name)
		}
		if made := eval[int](b, `document.querySelectorAll('img, svg[onload], [onerror], [onload]').length`); made != 0 {
			t.Fatalf("%s: %d elements made from names", p.name, made)
		}
		if n := eval[int](b, `document.querySelectorAll('script').length`); n != 1 {
			t.Fatalf("%s: %d script elements, want the page's own", p.name, n)
		}
		shown := eval[string](b, p.shows)
		if !strings.Contains(shown, "<img src=x onerror=") && !strings.Contains(shown, "<script>window.__pwned=1</script>") && !strings.Contains(shown, `"><svg onload=`) {
			t.Fatalf("%s does not show the names as typed: %.300q", p.name, shown)
		}
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("the pages logged errors (a policy violation is one):\n%s", strings.Join(errs, "\n"))
	}
}
