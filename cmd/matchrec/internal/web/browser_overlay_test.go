package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The overlay in a browser source's frame, at 1280×720 and 1920×1080:
// the bar keeps to a slim band along the bottom, the cards to a corner
// above it, and no text wraps, whatever happens in the match — a roll, an
// attack's result, a dispute (flagged until ruled) and a ruling. Each
// variant (bar, cards, full) shows only its part.
func TestBrowserOverlay(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	shots := t.TempDir()
	for _, size := range [][2]int{{1920, 1080}, {1280, 720}} {
		w, h := size[0], size[1]
		// Each size has its match. At event 30 the Tactical Squad is
		// about to shoot at the Nob Mob.
		m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
		r.playTo(m, 30)
		page := r.base + "/matches/" + m.id
		func() {
			do(b, "open the overlay", chromedp.EmulateViewport(int64(w), int64(h)), transparent(), chromedp.Navigate(page+"?overlay=full"))
			seq := r.state(m.id, 0).Seq
			waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
			if !eval[bool](b, `getComputedStyle(document.body).backgroundColor === 'rgba(0, 0, 0, 0)'`) {
				t.Fatal("the overlay's background is not transparent")
			}
			checkOverlay(b, w, h)
			bar := eval[string](b, `document.getElementById('ov-bar').textContent`)
			for _, want := range []string{"Alice", "Bob", "Boltguns vs Boyz", "Turn 2", "Tactical Squad", "lost"} {
				if !strings.Contains(bar, want) {
					t.Errorf("the bar lacks %q: %q", want, bar)
				}
			}

			// A roll and then an attack's result raise their cards.
			for !strings.Contains(eval[string](b, `document.getElementById('ov-cards').textContent`), "removed") {
				res := r.step(m)
				waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, res.Events[len(res.Events)-1].Seq))
				checkOverlay(b, w, h)
			}
			if n := eval[int](b, `document.querySelectorAll('#ov-cards .card-roll .die').length`); n == 0 {
				t.Error("no roll card with dice")
			}
			screenshot(b, shots, fmt.Sprintf("stream-overlay-%dp.png", h))

			// A dispute: flagged in the bar and on a card until the judge
			// rules; then the ruling's card.
			last := r.state(m.id, 0).LastRoll
			disp := r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: last.Seq, Reason: "the die was cocked"})
			waitJS[bool](b, `document.querySelector('#ov-bar .ov-flag')?.textContent === 'DISPUTE — judge called' && !!document.querySelector('#ov-cards .card-dispute')`)
			checkOverlay(b, w, h)
			if w == 1920 {
				screenshot(b, shots, "stream-overlay.png")
			}
			values := make([]int, len(last.Values))
			for i := range values {
				values[i] = 6
			}
			r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: disp.Events[0].Seq, Decision: "amend", Values: values, Reason: "a re-roll"})
			waitJS[bool](b, `document.querySelector('#ov-cards .card-ruling .card-head')?.textContent === 'RULING: amended' && !document.querySelector('#ov-bar .ov-flag') && !document.querySelector('#ov-cards .card-dispute')`)
			checkOverlay(b, w, h)

			// The variants show their part alone.
			do(b, "open the bar alone", chromedp.Navigate(page+"?overlay=bar"))
			waitJS[bool](b, `document.querySelectorAll('#ov-bar .ov-side').length === 2`)
			if eval[bool](b, `document.getElementById('ov-cards').getClientRects().length > 0`) {
				t.Error("?overlay=bar shows the cards")
			}
			do(b, "open the cards alone", chromedp.Navigate(page+"?overlay=cards"))
			waitJS[bool](b, `document.body.dataset.seq !== undefined && !!document.querySelector('#ov-cards')`)
			if eval[bool](b, `document.getElementById('ov-bar').getClientRects().length > 0`) {
				t.Error("?overlay=cards shows the bar")
			}
			if errs := b.consoleErrors(); len(errs) > 0 {
				t.Fatalf("%dx%d: the overlay logged errors:\n%s", w, h, strings.Join(errs, "\n"))
			}
		}()
	}
}

// checkOverlay checks the overlay's boxes in a w×h frame: the bar within
// the bottom tenth and the frame's sides; the cards above the bar, in the
// right third, all of them together on less than a sixth of the frame;
// and every line of text on one line.
func checkOverlay(b *tab, w, h int) {
	t := b.t
	t.Helper()
	type rect struct{ L, T, R, B float64 }
	get := func(js string) []rect { return eval[[]rect](b, js) }
	bars := get(`[...document.querySelectorAll('#ov-bar')].filter(e => e.getClientRects().length).map(e => { const r = e.getBoundingClientRect(); return {L: r.left, T: r.top, R: r.right, B: r.bottom}; })`)
	W, H := float64(w), float64(h)
	top := H
	for _, r := range bars {
		if r.T < 0.9*H || r.B > H || r.L < 0 || r.R > W {
			t.Errorf("%dx%d: the bar %+v leaves the bottom band", w, h, r)
		}
		top = r.T
	}
	area := 0.0
	for _, r := range get(`[...document.querySelectorAll('#ov-cards .card')].map(e => { const r = e.getBoundingClientRect(); return {L: r.left, T: r.top, R: r.right, B: r.bottom}; })`) {
		if r.L < 0.6*W || r.R > W || r.B > top || r.T < 0.3*H {
			t.Errorf("%dx%d: a card %+v leaves its corner above the bar", w, h, r)
		}
		area += (r.R - r.L) * (r.B - r.T)
	}
	if area > W*H/6 {
		t.Errorf("%dx%d: the cards cover %.0f%% of the frame", w, h, 100*area/(W*H))
	}
	wrapped := eval[[]string](b, `[...document.querySelectorAll('#overlay .ov-name, #overlay .ov-army, #overlay .ov-title, #overlay .ov-where, #overlay .ov-flag, #overlay .card-head, #overlay .card-line')]
		.filter(e => e.getClientRects().length && e.textContent && e.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(e).fontSize))
		.map(e => e.className + ': ' + e.textContent)`)
	if len(wrapped) > 0 {
		t.Errorf("%dx%d: text wraps: %q", w, h, wrapped)
	}
}
