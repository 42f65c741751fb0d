package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// chromium finds the browser. Without one the browser tests skip, except
// in CI (CI set), where .ci/run installs Debian's chromium: there a missing
// browser is a failure, not a silently skipped test.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("Chromium is not installed and CI is set: .ci/run must install Debian's chromium package")
	}
	t.Skip("Chromium is not installed (apt-get install chromium); skipping the browser test (with CI set this fails)")
	return ""
}

// tab is a browser tab and the errors its pages logged.
type tab struct {
	t   testing.TB
	ctx context.Context

	mu   sync.Mutex
	errs []string
}

// consoleErrors are the console errors and uncaught exceptions so far.
func (b *tab) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.errs)
}

// browser starts a headless Chromium with a fresh profile and nothing
// that reaches for the network on its own; the test's pages are on
// loopback. It returns a tab that collects the page's console errors and
// uncaught exceptions.
func browser(t testing.TB) *tab {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		// A hidden tab must not slow timers or rendering: the test measures them.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1600, 1000),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel()
	})
	// The first Run starts the browser; it must have no deadline (that
	// would stop the browser), so later actions bound themselves.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	b := &tab{t: t, ctx: ctx}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				b.mu.Lock()
				b.errs = append(b.errs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// do runs browser actions with a deadline.
func do(b *tab, what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	c, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		b.t.Fatalf("%s: %v\nconsole errors: %q", what, err, b.consoleErrors())
	}
}

func eval[T any](b *tab, js string) T {
	b.t.Helper()
	c, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v\nconsole errors: %q", js, err, b.consoleErrors())
	}
	return v
}

// waitJS waits until the expression is truthy and returns its value. A
// page that is navigating (a link, a form, a redirect) is waited for too.
func waitJS[T any](b *tab, js string) T {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, cancel := context.WithDeadline(b.ctx, deadline.Add(5*time.Second))
		v, err := chromedp.Run(c, chromedp.Poll[T](js, chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		if err == nil {
			return v
		}
		if (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "navigated or closed")) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b.t.Fatalf("waiting for %s: %v\nconsole errors: %q", js, err, b.consoleErrors())
	}
}

// screenshot saves the viewport as name under dir, and under docs/ too
// when MATCHREC_UPDATE_SCREENSHOTS is set (the README shows those).
func screenshot(b *tab, dir, name string) {
	t := b.t
	t.Helper()
	c, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	// Cards slide in: shoot them where they stand.
	waitJS[bool](b, `document.getAnimations().every(a => a.playState !== 'running')`)
	png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	if os.Getenv("MATCHREC_UPDATE_SCREENSHOTS") != "" {
		if err := os.WriteFile(filepath.Join("..", "..", "..", "..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// transparent makes the page's default background transparent, as OBS's
// browser source renders it. (Through the raw protocol call: the typed
// one drops an alpha of 0.)
func transparent() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return t.Call(ctx, "Emulation.setDefaultBackgroundColorOverride",
			map[string]any{"color": map[string]any{"r": 0, "g": 0, "b": 0, "a": 0}}, nil)
	})
}

// The streamer's pages in a real browser: the match list links to the
// match; the live page opens scrolled to the newest event, shows a
// declaration and a roll made through the API (dice faces, successes,
// tally) as they are acknowledged, rings the models the attack can hit
// and aims its line at them, and places unit names clear of models and of
// each other; replay by dragging the slider (fallen models standing
// again), by the arrow keys, by a click on an event and by ?at=; turn
// marks on the slider; an ended match says Final and who won.
func TestBrowserLiveReplay(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	// Turn 2, Alice's shooting phase: four Boyz fell at event 11 and a
	// Marine at event 27.
	head := r.playTo(m, 30)
	shots := t.TempDir()
	page := r.base + "/matches/" + m.id
	model := func(id string) string {
		return fmt.Sprintf(`document.querySelector('#board circle[data-model=%q]')`, id)
	}

	// The list links to the match's live page and overlay.
	do(b, "open the match list", chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(r.base+"/"))
	links := waitJS[[]string](b, fmt.Sprintf(`(() => { const row = document.querySelector('#matches tr[data-match=%q]');
		return row && [...row.querySelectorAll('a')].map(a => a.getAttribute('href')); })()`, m.id))
	if want := []string{"/matches/" + m.id, "/matches/" + m.id, "/matches/" + m.id + "?overlay=full"}; !slices.Equal(links, want) {
		t.Fatalf("match list links %v, want %v", links, want)
	}

	do(b, "open the live page", chromedp.Navigate(page))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d" && document.body.dataset.mode === "live" && document.querySelector('#feed li[data-seq="%d"]') !== null`, head, head))
	if !eval[bool](b, model("boy-1")+`.classList.contains('removed')`) {
		t.Fatal("boy-1 fell at event 11 but is not shown removed")
	}
	// The feed opens on its newest event, scrolled to the bottom.
	if gap := eval[float64](b, `(() => { const ol = document.getElementById('feed'); return ol.scrollHeight - ol.scrollTop - ol.clientHeight; })()`); gap > 30 {
		t.Fatalf("the feed is %.0f px short of its newest event on first load", gap)
	}
	// A mark on the slider where each turn starts.
	marks := waitJS[[]string](b, `(() => { const m = [...document.querySelectorAll('#turn-marks .turn-mark')].map(e => e.dataset.seq); return m.length >= 3 && m; })()`)
	for i, want := range turnStarts(r, m.id, head) {
		if i >= len(marks) || marks[i] != fmt.Sprint(want) {
			t.Fatalf("turn marks %v, want the turn starts %v", marks, turnStarts(r, m.id, head))
		}
	}
	checkLabels(b)

	// Record through the NATS API and time each event from its
	// acknowledgement to its board drawn in the page (both clocks are this
	// machine's).
	var lat []time.Duration
	record := func() uint64 {
		t.Helper()
		res := r.step(m)
		acked := time.Now()
		seq := res.Events[len(res.Events)-1].Seq
		ms := waitJS[float64](b, fmt.Sprintf(`window.__mr.rendered[%d]`, seq))
		lat = append(lat, time.UnixMilli(int64(ms)).Sub(acked))
		return seq
	}

	// The declaration: the Tactical Squad shoots at the Nob Mob.
	record()
	if n := eval[int](b, `document.querySelectorAll('#board circle.firer').length`); n != 9 {
		t.Fatalf("%d models ringed as firers, want the 9 Marines left", n)
	}
	st := r.state(m.id, 0)
	if n := eval[int](b, `document.querySelectorAll('#board circle.target').length`); n != len(st.Attack.Eligible) || n == 0 {
		t.Fatalf("%d models ringed as targets, want the %d the attack can hit", n, len(st.Attack.Eligible))
	}
	checkAttackLine(b, st)
	if p := eval[string](b, `document.getElementById('pending').textContent`); !strings.Contains(p, "needing 3+") {
		t.Fatalf("pending step: %q", p)
	}

	// The roll: eight boltguns hitting on 3+.
	seq := record()
	faces := eval[[]string](b, `[...document.querySelectorAll('#dice .die')].map(d => d.dataset.value + (d.classList.contains('success') ? '+' : '-'))`)
	if want := []string{"3+", "6+", "2-", "4+", "1-", "5+", "3+", "2-"}; !slices.Equal(faces, want) {
		t.Fatalf("dice faces %v, want %v", faces, want)
	}
	// The roll says who fired what at whom and what it decided, as the
	// audit explains it.
	head2 := waitJS[string](b, `document.getElementById('roll-head').dataset.decided === 'yes' && document.getElementById('roll-head').textContent`)
	for _, want := range []string{"Alice rolls 8 dice to hit (boltgun)", "needing 3+", "Tactical Squad → Nob Mob", "5 hits"} {
		if !strings.Contains(head2, want) {
			t.Fatalf("roll heading %q lacks %q", head2, want)
		}
	}
	checkTally(b, r.state(m.id, seq))
	checkLabels(b)
	screenshot(b, shots, "stream-live.png")
	do(b, "at 720p", chromedp.EmulateViewport(1280, 720))
	checkLabels(b)
	screenshot(b, shots, "stream-live-720p.png")
	do(b, "back at 1080p", chromedp.EmulateViewport(1920, 1080))

	// The rest of the attack, to its casualties: the tally moves on.
	for seq < 39 {
		seq = record()
	}
	st = r.state(m.id, seq)
	if st.Attack != nil || st.LastAttack == nil {
		t.Fatalf("the attack is not over at event %d", seq)
	}
	checkTally(b, st)

	sorted := slices.Clone(lat)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	t.Logf("acknowledged → on screen, %d events: median %s, worst %s (%v)", len(lat), sorted[len(sorted)/2], sorted[len(sorted)-1], lat)

	// Replay: drag the slider's thumb from the live end back to about event
	// 8, before the Boyz fell.
	type box struct{ X, Y, W, H float64 }
	sl := eval[box](b, `(() => { const r = document.getElementById('seek').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`)
	thumb := func(v uint64) float64 { // the thumb is ~16 px wide: its centre runs from 8 px in to 8 px short
		return sl.X + 8 + float64(v-1)/float64(seq-1)*(sl.W-16)
	}
	y := sl.Y + sl.H/2
	do(b, "drag the replay slider", chromedp.DragAndDropXY(thumb(seq), y, thumb(8), y, 12))
	at := waitJS[string](b, `document.body.dataset.mode === "replay" && document.body.dataset.seq === document.getElementById('seek').value && document.body.dataset.seq`)
	var shown uint64
	fmt.Sscan(at, &shown)
	if shown < 2 || shown >= 11 {
		t.Fatalf("dragged to event %d; want one before the Boyz fell (11)", shown)
	}
	for _, id := range []string{"boy-1", "boy-4", "tac-3"} {
		if eval[bool](b, model(id)+`.classList.contains('removed')`) {
			t.Fatalf("at event %d %s is still shown removed", shown, id)
		}
	}
	was := r.state(m.id, shown)
	wantRoll := ""
	if was.LastRoll != nil {
		wantRoll = fmt.Sprint(was.LastRoll.Seq)
	}
	if got := eval[string](b, `document.getElementById('dice').dataset.seq || ""`); got != wantRoll {
		t.Fatalf("at event %d the dice shown are of event %q, want %q", shown, got, wantRoll)
	}
	// The feed had only its last page: it loads back to the event shown.
	if got := waitJS[string](b, `document.querySelector('#feed li.current')?.dataset.seq`); got != at {
		t.Fatalf("feed marks event %s, the board is at %s", got, at)
	}
	checkTally(b, was)
	// The replay's position is in the address, so the moment can be
	// shared; live, it is not.
	if q := eval[string](b, `location.search`); q != "?at="+at {
		t.Fatalf("in replay at event %s the address says %q", at, q)
	}
	screenshot(b, shots, "stream-replay.png")

	// One step forward with the arrow key; a new live event does not move
	// the replay; a click on an event shows the board after it; Live
	// returns to the newest board.
	do(b, "step forward", chromedp.KeyEvent(kb.ArrowRight))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, shown+1))
	do(b, "step back", chromedp.KeyEvent(kb.ArrowLeft))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, shown))
	live := r.playTo(m, seq+1)
	waitJS[bool](b, fmt.Sprintf(`document.getElementById('seek').max === "%d"`, live))
	if got := eval[string](b, `document.body.dataset.seq`); got != fmt.Sprint(shown) {
		t.Fatalf("a live event moved the replay to %s", got)
	}
	do(b, "click event 11", chromedp.Click(chromedp.CSS(`#feed li[data-seq="11"]`)))
	waitJS[bool](b, `document.body.dataset.seq === "11" && document.querySelector('#feed li.current').dataset.seq === "11"`)
	if !eval[bool](b, model("boy-1")+`.classList.contains('removed')`) {
		t.Fatal("at event 11 boy-1 is not removed")
	}
	if q := eval[string](b, `location.search`); q != "?at=11" {
		t.Fatalf("at event 11 the address says %q", q)
	}
	do(b, "back to live", chromedp.Click(chromedp.ID("live")))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d" && document.body.dataset.mode === "live"`, live))
	if q := eval[string](b, `location.search`); q != "" {
		t.Fatalf("live, the address still says %q", q)
	}
	// The address shared opens the same moment.
	do(b, "open the shared address", chromedp.Navigate(page+"?at=11"))
	waitJS[bool](b, `document.body.dataset.mode === "replay" && document.body.dataset.seq === "11" && location.search === "?at=11"`)

	// A deep link opens the replay at its event; the turn marks seek.
	do(b, "open ?at=8", chromedp.Navigate(page+"?at=8"))
	waitJS[bool](b, `document.body.dataset.mode === "replay" && document.body.dataset.seq === "8"`)
	do(b, "click the turn 2 mark", chromedp.Click(chromedp.CSS(`#turn-marks .turn-mark:nth-child(2)`)))
	t2 := fmt.Sprint(turnStarts(r, m.id, live)[1])
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === %q`, t2))

	// The end: Final and the winner, not Live and an active player.
	for ended := false; !ended; {
		for _, e := range r.step(m).Events {
			ended = ended || e.Type == "match.ended"
		}
	}
	do(b, "open the ended match", chromedp.Navigate(page))
	waitJS[bool](b, `document.body.classList.contains('ended')`)
	if a := eval[string](b, `document.getElementById('active').textContent`); a != "Final — Alice wins" {
		t.Fatalf("an ended match shows %q", a)
	}
	if l := eval[string](b, `document.getElementById('live').textContent + ' / ' + document.getElementById('position').textContent`); !strings.HasPrefix(l, "Final / ") || strings.Contains(l, "live") {
		t.Fatalf("an ended match's controls say %q", l)
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
}

// turnStarts are the events where the match's turns start, up to head,
// from the events verb.
func turnStarts(r *rig, id string, head uint64) []uint64 {
	var out []uint64
	var page api.EventsResult
	if err := r.api.Call(context.Background(), api.VerbEvents, api.EventsRequest{Match: id, To: head}, &page); err != nil {
		r.t.Fatal(err)
	}
	for _, e := range page.Events {
		if e.Type == "turn.started" {
			out = append(out, e.Seq)
		}
	}
	return out
}

// checkLabels checks that no unit name covers another or the centre of a
// living model.
func checkLabels(b *tab) {
	b.t.Helper()
	bad := eval[[]string](b, `(() => {
		const boxes = [...document.querySelectorAll('#board .unit-label')].map(l => ({u: l.dataset.unit, r: l.getBoundingClientRect()}));
		const hit = (a, c) => a.left < c.right && c.left < a.right && a.top < c.bottom && c.top < a.bottom;
		const bad = [];
		for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++)
			if (hit(boxes[i].r, boxes[j].r)) bad.push(boxes[i].u + ' over ' + boxes[j].u);
		for (const c of document.querySelectorAll('#board .models circle')) {
			const r = c.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
			for (const b of boxes) if (x > b.r.left && x < b.r.right && y > b.r.top && y < b.r.bottom) bad.push(b.u + ' over ' + c.dataset.model);
		}
		return bad;
	})()`)
	if len(bad) > 0 {
		b.t.Fatalf("unit names collide: %v", bad)
	}
}

// checkAttackLine checks that the attack line runs from the firing models
// to the models the attack can hit (their centres, on screen).
func checkAttackLine(b *tab, st *projector.State) {
	b.t.Helper()
	type pt struct{ X, Y float64 }
	centre := func(ids []string) pt {
		var p pt
		for _, id := range ids {
			for _, u := range st.Units {
				for _, m := range u.Models {
					if m.ID == id {
						p.X += m.X / float64(len(ids))
						p.Y += (st.Table.H - m.Y) / float64(len(ids))
					}
				}
			}
		}
		return p
	}
	var shooters []string
	for _, s := range st.Attack.Shooters {
		if !slices.Contains(shooters, s.Model) {
			shooters = append(shooters, s.Model)
		}
	}
	from, to := centre(shooters), centre(st.Attack.Eligible)
	line := eval[[]float64](b, `(() => { const l = document.querySelector('#board .attack-line'); return ['x1','y1','x2','y2'].map(k => +l.getAttribute(k)); })()`)
	near := func(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }
	if !near(line[0], from.X) || !near(line[1], from.Y) || !near(line[2], to.X) || !near(line[3], to.Y) {
		b.t.Fatalf("attack line %v; want from the firers' centre %v to the hittable models' centre %v", line, from, to)
	}
}

// checkTally compares the tally the page shows with the recorder's.
func checkTally(b *tab, st *projector.State) {
	t := b.t
	t.Helper()
	type shown struct{ Lost, Wounds, Expected, Dice string }
	for _, tl := range st.Tally {
		got := eval[shown](b, fmt.Sprintf(`(() => {
			const c = document.querySelector('#tally .tally[data-player=%q]');
			const v = (k) => c.querySelector('.' + k).textContent;
			return {Lost: v('models-lost'), Wounds: v('wounds'), Expected: v('expected'), Dice: v('dice')};
		})()`, tl.Player))
		want := shown{fmt.Sprint(tl.ModelsLost), fmt.Sprint(tl.WoundsCaused), fmt.Sprintf("%.1f", tl.ExpectedWounds), fmt.Sprint(tl.Dice)}
		if got != want {
			t.Fatalf("event %d, %s's tally shows %+v, the recorder says %+v", st.Seq, tl.Player, got, want)
		}
	}
}
