package web_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
)

// longEvents is the length of the long match of the page-load test and
// benchmark (MATCHREC_LONG_EVENTS, default 20,000).
func longEvents() int { return envInt("MATCHREC_LONG_EVENTS", 20_000) }

// The page of a long match opens with the board now, the last page of
// events and the turn marks, never every event: older events load a page
// at a time as the reader scrolls back, and a seek far back loads what it
// needs.
func TestBrowserLongMatchOpensWithItsTail(t *testing.T) {
	b := browser(t)
	dir := t.TempDir()
	l := writeLong(t, dir, "long", 3000)
	r := newRigWith(t, node.Config{DataDir: dir})
	head := l.state.Seq
	do(b, "open the long match", chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(r.base+"/matches/long"))
	waitJS[bool](b, fmt.Sprintf(`window.__mr.ready > 0 && document.body.dataset.seq === "%d"`, head))
	seqs := eval[[]int](b, `[...document.querySelectorAll('#feed li[data-seq]')].map(li => +li.dataset.seq)`)
	if len(seqs) != 100 || seqs[0] != int(head)-99 || seqs[99] != int(head) {
		t.Fatalf("the feed opened with %d events (%v…), want the last 100", len(seqs), seqs[:min(3, len(seqs))])
	}
	if n := eval[int](b, `document.querySelectorAll('#turn-marks .turn-mark').length`); n < 10 {
		t.Fatalf("%d turn marks on a %d-event match", n, head)
	}
	// Scrolling to the top loads the page before.
	do(b, "scroll the feed to the top", chromedp.Evaluate[chromedp.Void](`document.getElementById('feed').scrollTop = 0`))
	waitJS[bool](b, `document.querySelectorAll('#feed li[data-seq]').length === 200`)
	first := eval[int](b, `+document.querySelector('#feed li[data-seq]').dataset.seq`)
	if first != int(head)-199 {
		t.Fatalf("after one scroll back the feed starts at %d, want %d", first, head-199)
	}
	// A seek far back loads the feed back to it.
	do(b, "open the replay at 1000", chromedp.Navigate(r.base+"/matches/long?at=1000"))
	waitJS[bool](b, `document.body.dataset.seq === "1000" && document.querySelector('#feed li.current')?.dataset.seq === "1000"`)
}

// BenchmarkPageLoad opens the page of a 20,000-event match
// (MATCHREC_LONG_EVENTS) in Chromium, first on a store that has no
// snapshot of it yet (cold: written without the recorder, which keeps one
// every 128 events; the first seek folds it once and keeps them), then
// again and again (warm), each time beside the page of a 40-event match
// in the same browser (the browser's own cost of the page); it reports
// the median times from the start of the navigation to the board drawn
// and to the page ready (the feed's last page and the turn marks in).
func BenchmarkPageLoad(b *testing.B) {
	tb := browser(b)
	dir := b.TempDir()
	start := time.Now()
	l := writeLong(b, dir, "long", longEvents())
	b.Logf("wrote a %d-event match in %s", l.state.Seq, time.Since(start).Round(time.Millisecond))
	r := newRigWith(b, node.Config{DataDir: dir})
	short := r.create(readScript(b, "3e-boltguns-vs-boyz.yaml"))
	shortHead := r.playTo(short, 40)
	load := func(id string, head uint64) (drawn, ready float64) {
		do(tb, "open "+id, chromedp.Navigate("about:blank"), chromedp.Navigate(r.base+"/matches/"+id))
		waitJS[bool](tb, fmt.Sprintf(`window.__mr.ready > 0 && document.body.dataset.seq === "%d"`, head))
		return eval[float64](tb, `window.__mr.firstDraw`), eval[float64](tb, `window.__mr.ready`)
	}
	coldDrawn, coldReady := load("long", l.state.Seq)
	b.Logf("cold: board drawn %.0f ms, ready %.0f ms", coldDrawn, coldReady)
	var drawn, ready, shortReady []float64
	for b.Loop() {
		d, r := load("long", l.state.Seq)
		drawn, ready = append(drawn, d), append(ready, r)
		_, sr := load(short.id, shortHead)
		shortReady = append(shortReady, sr)
	}
	median := func(v []float64) float64 {
		slices.Sort(v)
		return v[len(v)/2]
	}
	b.ReportMetric(coldReady, "cold-ready-ms")
	b.ReportMetric(median(drawn), "drawn-ms")
	b.ReportMetric(median(ready), "ready-ms")
	b.ReportMetric(median(shortReady), "short-ready-ms")
	b.ReportMetric(float64(l.state.Seq), "events")
}
