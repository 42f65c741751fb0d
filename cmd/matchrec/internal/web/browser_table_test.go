package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
)

// A venue table's overlay, /tables/N/overlay, is one URL for the whole
// event: it shows the match live on table N and switches by itself when a
// new match goes live there, never to another table's. The match list
// tells apart matches of one name by their ids, and links each table's
// overlay.
func TestBrowserTableOverlayFollowsTheLiveMatch(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	onTable := func(n int) *match {
		sc := readScript(t, "3e-boltguns-vs-boyz.yaml")
		sc.Match.TableNumber = n
		return r.create(sc)
	}
	first := onTable(3)
	r.playTo(first, 6)
	other := onTable(4)

	// The API lists a table's matches only.
	var page web.MatchesResponse
	if code, body := r.get("/api/matches?table=3", nil, &page); code != 200 || len(page.Matches) != 1 || page.Matches[0].ID != first.id || page.Matches[0].Table != 3 {
		t.Fatalf("/api/matches?table=3: %d %s", code, body)
	}
	for _, bad := range []string{"/tables/0/overlay", "/tables/x", "/api/matches?table=-1"} {
		if code, _ := r.get(bad, nil, nil); code != 400 {
			t.Errorf("GET %s: %d, want 400", bad, code)
		}
	}

	do(b, "open table 3's overlay", chromedp.EmulateViewport(1920, 1080), transparent(), chromedp.Navigate(r.base+"/tables/3/overlay"))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.match === %q && document.body.dataset.seq !== undefined && document.body.classList.contains('overlay-full')`, first.id))
	if !eval[bool](b, `getComputedStyle(document.body).backgroundColor === 'rgba(0, 0, 0, 0)'`) {
		t.Fatal("the table's overlay is not transparent")
	}
	// The next round on table 3 goes live: the overlay follows it; one on
	// table 4 does not take it.
	r.playTo(other, 4)
	next := onTable(3)
	r.playTo(next, 4)
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.match === %q && document.body.dataset.seq === "%d"`, next.id, r.state(next.id, 0).Seq))
	if bar := eval[string](b, `document.getElementById('ov-bar').textContent`); !strings.Contains(bar, "Boltguns vs Boyz") {
		t.Errorf("the overlay after the switch shows %q", bar)
	}

	// The match list: three matches of one name, told apart by id; the
	// tables and their overlays.
	do(b, "open the match list", chromedp.Navigate(r.base+"/"))
	for _, m := range []*match{first, other, next} {
		row := fmt.Sprintf(`document.querySelector('#matches tr[data-match=%q]')`, m.id)
		id := waitJS[string](b, row+`?.querySelector('.match-id')?.textContent`)
		if id != m.id {
			t.Errorf("the row of match %s shows id %q", m.id, id)
		}
	}
	links := eval[[]string](b, fmt.Sprintf(`[...document.querySelectorAll('#matches tr[data-match=%q] a')].map(a => a.getAttribute('href'))`, next.id))
	if len(links) == 0 || links[len(links)-1] != "/tables/3/overlay" {
		t.Errorf("the row of a match on table 3 links %v", links)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("the pages logged errors:\n%s", strings.Join(errs, "\n"))
	}
}
