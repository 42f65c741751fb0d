package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// 6e blasts and charges in the browser: the board draws each blast where
// it was aimed, the arrow it scattered along and where it landed, and the
// charge with its models' moves; the roll panel and the overlay's roll
// card say what each roll decided — a scatter, a charge that reaches —
// never "0 successes" for dice that have no target number.
func TestBrowserSketchesAndWhatRollsDecided(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "6e-blast-and-breakthrough.yaml"))
	shots := t.TempDir()
	page := r.base + "/matches/" + m.id
	count := func(sel string) int { return eval[int](b, `document.querySelectorAll('#board `+sel+`').length`) }
	rollHead := func() string {
		return waitJS[string](b, `document.getElementById('roll-head').dataset.decided === 'yes' && document.getElementById('roll-head').textContent`)
	}
	noSuccesses := func(what, text string) {
		t.Helper()
		if strings.Contains(text, "success") {
			t.Errorf("%s counts successes a roll with no target number does not have: %q", what, text)
		}
	}

	// Event 7: dev-1's blast scattered 1" off boy-1.
	seq := r.playTo(m, 7)
	do(b, "open the live page", chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(page))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
	if a, s, k := count(`.sketch-aim`), count(`.sketch-scatter`), count(`.sketch-marker`); a != 1 || s != 1 || k != 1 {
		t.Fatalf("after the scatter: %d aims, %d scatter arrows, %d markers; want one each", a, s, k)
	}
	tip := eval[string](b, `document.querySelector('#board .sketch-marker title').textContent`)
	if !strings.Contains(tip, "scattered 1\" at 180°: 2 models under it") {
		t.Errorf("the landed blast says %q", tip)
	}
	h := rollHead()
	if !strings.Contains(h, "to scatter (dev-1's frag missile blast)") || !strings.Contains(h, "the blast lands on (54, 19), 2 models under it") {
		t.Errorf("the scatter roll's heading %q", h)
	}
	noSuccesses("the scatter roll's heading", h)

	// Event 9: dev-2's blast a hit: it stays, no arrow.
	seq = r.playTo(m, 9)
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
	if a, s, k := count(`.sketch-aim`), count(`.sketch-scatter`), count(`.sketch-marker`); a != 2 || s != 1 || k != 2 {
		t.Fatalf("after the hit: %d aims, %d scatter arrows, %d markers; want 2, 1, 2", a, s, k)
	}
	if h := rollHead(); !strings.Contains(h, "a hit: the blast stays") {
		t.Errorf("the second scatter roll's heading %q", h)
	}
	screenshot(b, shots, "stream-blast-1080p.png")
	do(b, "at 720p", chromedp.EmulateViewport(1280, 720))
	screenshot(b, shots, "stream-blast-720p.png")

	// The charge roll on the overlay: its card says the charge reaches.
	seq = r.playTo(m, 19)
	do(b, "open the overlay", chromedp.EmulateViewport(1920, 1080), transparent(), chromedp.Navigate(page+"?overlay=full"))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
	seq = r.playTo(m, 20)
	card := waitJS[string](b, `document.querySelector('#ov-cards .card-roll')?.textContent`)
	if !strings.Contains(card, "9\": needed 8.5\" — the charge reaches") {
		t.Errorf("the charge roll's card %q", card)
	}
	noSuccesses("the charge roll's card", card)

	// The live page: the charge drawn, then its moves.
	do(b, "open the live page", chromedp.Navigate(page))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
	if h := rollHead(); !strings.Contains(h, "the charge reaches") {
		t.Errorf("the charge roll's heading %q", h)
	}
	if n := count(`.sketch-charge`); n != 1 {
		t.Fatalf("%d charges drawn at the charge roll", n)
	}
	seq = r.playTo(m, 25)
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, seq))
	if n := count(`.sketch-move`); n != 5 {
		t.Errorf("%d charge moves drawn after the five Veterans moved", n)
	}
	if tip := eval[string](b, `document.querySelector('#board .sketch-charge title').textContent`); !strings.Contains(tip, "Veterans charges Gretchin: 9\" rolled, 8.5\" needed — it reaches") {
		t.Errorf("the charge says %q", tip)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("the pages logged errors:\n%s", strings.Join(errs, "\n"))
	}
}
