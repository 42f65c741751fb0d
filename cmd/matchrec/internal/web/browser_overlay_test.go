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
// above it, and no text wraps, whatever happens in the match. Each card
// tells a viewer who did what: a roll names the firing unit, its target
// and weapon and what the dice decided; an attack's result which unit shot
// which with what; a dispute its reason and the roll it is about (flagged
// in the bar until ruled); a ruling what it decided, old → new dice. Two
// stacked cards and the bar cover under a sixth of the frame. Each variant
// (bar, cards, full) shows only its part.
func TestBrowserOverlay(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	shots := t.TempDir()
	cards := func() string { return eval[string](b, `document.getElementById('ov-cards').textContent`) }
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

			// The declaration, then the first roll: its card names who
			// fired what at whom and what the dice decided.
			for i := 0; i < 2; i++ {
				res := r.step(m)
				waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, res.Events[len(res.Events)-1].Seq))
			}
			roll := waitJS[string](b, `document.querySelector('#ov-cards .card-roll')?.textContent`)
			for _, want := range []string{"Tactical Squad → Nob Mob", "boltgun", "to hit", "3+", "5 hits"} {
				if !strings.Contains(roll, want) {
					t.Errorf("the roll card lacks %q: %q", want, roll)
				}
			}
			if strings.Contains(roll, "successes") {
				t.Errorf("the roll card counts successes instead of saying what they decided: %q", roll)
			}
			// The rest of the attack raises its result's card: which unit
			// shot which, with what, and what fell.
			for !strings.Contains(cards(), "removed") {
				res := r.step(m)
				waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, res.Events[len(res.Events)-1].Seq))
				checkOverlay(b, w, h)
			}
			attack := eval[string](b, `document.querySelector('#ov-cards .card-attack').textContent`)
			for _, want := range []string{"Tactical Squad → Nob Mob", "2 models removed", "boltgun, heavy bolter", "7 hits"} {
				if !strings.Contains(attack, want) {
					t.Errorf("the attack card lacks %q: %q", want, attack)
				}
			}
			screenshot(b, shots, fmt.Sprintf("stream-overlay-%dp.png", h))

			// A dispute: flagged in the bar and on a card until the judge
			// rules, with its reason and the roll it is about.
			last := r.state(m.id, 0).LastRoll
			disp := r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: last.Seq, Reason: "the die was cocked"})
			waitJS[bool](b, `document.querySelector('#ov-bar .ov-flag')?.textContent === 'DISPUTE — judge called' && !!document.querySelector('#ov-cards .card-dispute')`)
			dc := eval[string](b, `document.querySelector('#ov-cards .card-dispute').textContent`)
			if want := fmt.Sprintf("Bob disputes Bob's save roll (%s): “the die was cocked”", faces(last.Values)); !strings.Contains(dc, want) {
				t.Errorf("the dispute card %q lacks %q", dc, want)
			}
			if strings.Contains(dc, fmt.Sprintf("event %d", last.Seq)) {
				t.Errorf("the dispute card names an event number, which means nothing to a viewer: %q", dc)
			}
			// Two stacked cards (the dispute and a roll) and the bar.
			twoCards(b, r, m, w, h)
			if w == 1920 {
				screenshot(b, shots, "stream-overlay.png")
			}
			values := make([]int, len(last.Values))
			for i := range values {
				values[i] = 6
			}
			r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: disp.Events[0].Seq, Decision: "amend", Values: values, Reason: "a re-roll"})
			waitJS[bool](b, `document.querySelector('#ov-cards .card-ruling .card-head')?.textContent.startsWith('RULING: amended — Bob') && !document.querySelector('#ov-bar .ov-flag') && !document.querySelector('#ov-cards .card-dispute')`)
			rc := eval[string](b, `document.querySelector('#ov-cards .card-ruling').textContent`)
			if want := faces(last.Values) + " → " + faces(values); !strings.Contains(rc, want) || !strings.Contains(rc, "a re-roll") {
				t.Errorf("the ruling card %q lacks the old → new dice %q and the judge's note", rc, want)
			}
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

// twoCards raises a roll's card beside the open dispute's and measures
// the frame while both show: the bar and the two cards together cover
// under a sixth of it. (A card lives for seconds: if the roll's card is
// gone by the time it is measured, another roll raises one again.)
func twoCards(b *tab, r *rig, m *match, w, h int) {
	t := b.t
	t.Helper()
	for try := 0; try < 5; try++ {
		res := r.step(m)
		waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, res.Events[len(res.Events)-1].Seq))
		type cover struct {
			Cards int
			Area  float64
		}
		c := eval[cover](b, `(() => {
			const boxes = [...document.querySelectorAll('#ov-cards .card, #ov-bar')].filter(e => e.getClientRects().length).map(e => e.getBoundingClientRect());
			return {Cards: document.querySelectorAll('#ov-cards .card').length, Area: boxes.reduce((a, r) => a + r.width * r.height, 0)};
		})()`)
		if c.Cards != 2 {
			continue
		}
		if share := c.Area / float64(w*h); share >= 1.0/6 {
			t.Errorf("%dx%d: two cards and the bar cover %.1f%% of the frame (under %.1f%% promised)", w, h, 100*share, 100.0/6)
		} else {
			t.Logf("%dx%d: two cards and the bar cover %.1f%% of the frame", w, h, 100*share)
		}
		checkOverlay(b, w, h)
		return
	}
	t.Errorf("%dx%d: never two cards at once to measure", w, h)
}

func faces(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// checkOverlay checks the overlay's boxes in a w×h frame: the bar within
// the bottom tenth and the frame's sides; at most two cards, above the
// bar, in the right third; the cards and the bar together on less than a
// sixth of the frame; and every line of text on one line.
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
	for _, r := range bars {
		area += (r.R - r.L) * (r.B - r.T)
	}
	if area >= W*H/6 {
		t.Errorf("%dx%d: the cards and the bar cover %.0f%% of the frame", w, h, 100*area/(W*H))
	}
	if n := eval[int](b, `document.querySelectorAll('#ov-cards .card').length`); n > 2 {
		t.Errorf("%dx%d: %d cards at once (at most two)", w, h, n)
	}
	wrapped := eval[[]string](b, `[...document.querySelectorAll('#overlay .ov-name, #overlay .ov-army, #overlay .ov-title, #overlay .ov-where, #overlay .ov-flag, #overlay .card-head, #overlay .card-line')]
		.filter(e => e.getClientRects().length && e.textContent && e.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(e).fontSize))
		.map(e => e.className + ': ' + e.textContent)`)
	if len(wrapped) > 0 {
		t.Errorf("%dx%d: text wraps: %q", w, h, wrapped)
	}
}
