package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// A match measured at the table in a real browser: no map (nothing of
// where the models stand was recorded) but the schematic board — a card
// per unit in a column per side, a dot per model, the attack an arrow
// from its firing unit to its target with the firing models and the
// models that may take the wounds ringed, removed models greyed — and the
// Measured panel with the facts the attack's declaration carried and
// their witness: unconfirmed, then CONTESTED when the opponent contests
// them through the API, then shown as ruled once the judge amends them,
// while the event feed keeps telling them as measured.
func TestBrowserSchematicBoard(t *testing.T) {
	b := browser(t)
	r := newRig(t, 0)
	m := r.create(readScript(t, "6e-measured-grot-wood.yaml"))
	// Event 19 measures the Tactical Squad's shoot at the Ork Boyz,
	// event 20 declares it.
	head := r.playTo(m, 20)
	page := r.base + "/matches/" + m.id
	do(b, "open the live page", chromedp.EmulateViewport(1600, 1000), chromedp.Navigate(page))
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, head))
	if v := eval[string](b, `document.getElementById('board').dataset.view || ""`); v != "schematic" {
		t.Fatalf("the board of a measured match is %q, not the schematic", v)
	}
	if n := eval[int](b, `document.querySelectorAll('#board .terrain, #board .grid').length`); n != 0 {
		t.Fatalf("a measured match's board draws %d map elements", n)
	}
	st := r.state(m.id, 0)
	cards := eval[[]string](b, `[...document.querySelectorAll('#board .unit-card')].map(g => g.dataset.unit)`)
	if len(cards) != len(st.Units) {
		t.Fatalf("unit cards %v, want one per unit (%d)", cards, len(st.Units))
	}
	card := func(unit, sel string) int {
		return eval[int](b, fmt.Sprintf(`document.querySelectorAll('#board .unit-card[data-unit=%q] %s').length`, unit, sel))
	}
	if n := card("tac", "circle.firer"); n != len(st.Attack.Shooters) {
		t.Fatalf("%d Marines ringed as firers, want %d", n, len(st.Attack.Shooters))
	}
	if n := card("boyz", "circle.target"); n != len(st.Attack.Eligible) {
		t.Fatalf("%d Boyz ringed as targets, want the %d the facts put in range", n, len(st.Attack.Eligible))
	}
	if n := eval[int](b, `document.querySelectorAll('#board .attack-line.live').length`); n != 1 {
		t.Fatalf("%d attack arrows", n)
	}
	panel := func() string { return eval[string](b, `document.getElementById('measured').textContent`) }
	if eval[bool](b, `document.getElementById('measure-panel').hidden`) {
		t.Fatal("the Measured panel is hidden")
	}
	for _, want := range []string{"event 19", "for shoot: unconfirmed", "range from tac-10: 6.2", "cover boy-6: woods", "order boss: 10"} {
		if !strings.Contains(panel(), want) {
			t.Fatalf("the Measured panel lacks %q: %q", want, panel())
		}
	}

	// The hit and wound rolls: five Boyz fall, greyed on their card.
	for head < 22 {
		res := r.step(m)
		head = res.Events[len(res.Events)-1].Seq
	}
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, head))
	if n := card("boyz", "circle.removed"); n != 5 {
		t.Fatalf("%d Boyz shown removed, want 5", n)
	}
	if got := eval[string](b, `document.querySelector('#board .unit-card[data-unit=boyz] .unit-count').textContent`); got != "5/10" {
		t.Fatalf("the Boyz' card counts %q", got)
	}

	// Bob contests the measurement, disputes it, the judge amends it.
	r.command(m, api.RolePlayer("bob"), projector.Command{Type: projector.CmdContest, Event: 19, Reason: "tac-10 stood 6.5\" away"})
	res := r.command(m, api.RolePlayer("bob"), projector.Command{Type: projector.CmdDispute, Event: 19, Reason: "tac-10's range"})
	dispute := res.Events[len(res.Events)-1].Seq
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, dispute))
	if !strings.Contains(panel(), "CONTESTED (“tac-10 stood 6.5\" away”)") {
		t.Fatalf("the panel does not show the contest: %q", panel())
	}
	res = r.command(m, api.RoleJudge, projector.Command{Type: projector.CmdRule, Dispute: dispute, Decision: "amend",
		Facts: []events.Fact{{Kind: projector.FactRange, From: "tac-10", Value: "6.5"}}})
	waitJS[bool](b, fmt.Sprintf(`document.body.dataset.seq === "%d"`, res.Events[len(res.Events)-1].Seq))
	if p := panel(); !strings.Contains(p, "AMENDED by ruling") || !strings.Contains(p, "range from tac-10: 6.5") {
		t.Fatalf("the panel does not show the facts as ruled: %q", p)
	}
	// The feed keeps the measurement as measured.
	told := waitJS[string](b, `document.querySelector('#feed li[data-seq="19"]')?.textContent`)
	if !strings.Contains(told, "from tac-10 6.2\"") {
		t.Fatalf("the feed's measurement is not as measured: %q", told)
	}
	screenshot(b, t.TempDir(), "stream-schematic.png")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors: %q", errs)
	}
}
