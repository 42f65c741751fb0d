package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// loginJudge logs the browser in as m's judge with the login form and
// waits for the judge's view.
func loginJudge(b *tab, r *rig, m *match) {
	b.t.Helper()
	do(b, "open the judge's login", chromedp.Navigate(r.base+"/matches/"+m.id+"/judge"))
	waitJS[bool](b, `!!document.getElementById('token')`)
	do(b, "log in", chromedp.SendKeys(chromedp.ID("token"), m.judge()), chromedp.Submit(chromedp.ID("token")))
	waitJS[bool](b, `document.getElementById('view-badge')?.dataset.view === "judge"`)
}

// A roll contested, disputed and ruled on twice, with the page open:
// wherever the page shows the roll — the feed, live and after a reload —
// it carries the log's marks, the ruling in force first and the one it
// replaced after; the judge's panel shows the contest settled (no longer
// CONTESTED), who contested, and the ruling in force with its history;
// a contest no ruling has settled names who contested, not the roller.
func TestBrowserMarksAndRulingsInForce(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	r.playTo(m, 11)
	const roll = 7 // Alice's heavy bolter hits: 4 1 6
	if st := r.state(m.id, roll); st.LastRoll == nil || st.LastRoll.Seq != roll || len(st.LastRoll.Values) != 3 {
		t.Fatalf("event %d is not the heavy bolter's roll: %+v", roll, st.LastRoll)
	}
	do(b, "size the window", chromedp.EmulateViewport(1600, 1000))
	loginJudge(b, r, m)
	item := fmt.Sprintf(`document.querySelector('#feed li[data-seq="%d"]')`, roll)
	panel := func() string { return eval[string](b, `document.getElementById('judge').textContent`) }
	waitJS[bool](b, item+`?.dataset.marks === 'witness-unconfirmed'`)

	bob, judge := api.RolePlayer("bob"), api.RoleJudge
	r.command(m, bob, projector.Command{Type: "contest", Event: roll, Reason: "cocked die"})
	waitJS[bool](b, item+`.dataset.marks === 'witness-contested' && document.getElementById('judge').dataset.contested === "1"`)
	if w := eval[string](b, item+`.querySelector('.witness').textContent`); w != "CONTESTED by Bob: cocked die" {
		t.Errorf("the contested roll's witness reads %q", w)
	}
	if p := panel(); !strings.Contains(p, "Alice's roll, contested by Bob at event") {
		t.Errorf("the judge's panel does not name who contested: %q", p)
	}

	d1 := r.command(m, bob, projector.Command{Type: "dispute", Event: roll, Reason: "I saw a 5"}).Events[0].Seq
	r1 := r.command(m, judge, projector.Command{Type: "rule", Dispute: d1, Decision: "amend", Values: []int{5, 1, 6}}).Events[0].Seq
	waitJS[bool](b, item+`.dataset.marks === 'witness-settled amended' && document.getElementById('judge').dataset.contested === "0"`)
	d2 := r.command(m, bob, projector.Command{Type: "dispute", Event: roll, Reason: "and the 1 was a 3"}).Events[0].Seq
	r2 := r.command(m, judge, projector.Command{Type: "rule", Dispute: d2, Decision: "amend", Values: []int{5, 3, 6}}).Events[0].Seq

	check := func(when string) {
		t.Helper()
		waitJS[bool](b, item+`?.dataset.marks === 'witness-settled amended replaced'`)
		lines := eval[[]string](b, `[...`+item+`.querySelectorAll('.witness, .mark')].map(e => e.textContent)`)
		want := []string{
			fmt.Sprintf("contested by Bob: cocked die; settled by ruling %d", r1),
			fmt.Sprintf("! AMENDED by ruling %d on dispute %d: 4 1 6 → 5 3 6 — 3 hits instead of 2", r2, d2),
			fmt.Sprintf("! replaced by ruling %d: amended by ruling %d on dispute %d: 4 1 6 → 5 1 6 — still 2 hits", r2, r1, d1),
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the feed marks the roll\n%s\nwant\n%s", when, strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
		p := panel()
		for _, w := range []string{"Contested rolls (0)", "Rulings (1)", fmt.Sprintf("event %d: AMENDED to 5 3 6 by ruling %d — in force", roll, r2),
			fmt.Sprintf("amended to 5 1 6 by ruling %d, replaced by ruling %d", r1, r2)} {
			if !strings.Contains(p, w) {
				t.Errorf("%s: the judge's panel lacks %q: %q", when, w, p)
			}
		}
		if strings.Contains(p, "CONTESTED") || strings.Contains(p, "contested by Bob") {
			t.Errorf("%s: the judge's panel still shows the settled contest: %q", when, p)
		}
	}
	check("live")
	do(b, "reload the judge's view", chromedp.Reload())
	check("after a reload")

	// The public page shows the same marks.
	do(b, "open the public page", chromedp.Navigate(r.base+"/matches/"+m.id))
	waitJS[bool](b, item+`?.dataset.marks === 'witness-settled amended replaced'`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("the pages logged errors:\n%s", strings.Join(errs, "\n"))
	}
}
