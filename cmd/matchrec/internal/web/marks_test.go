package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The stream's ruling carries the ruled roll marked again (Remarks): its
// marks, the ruling in force and what it did, so an open page updates the
// roll it already shows; a page of /events marks each event as the match
// stands at the head, the ruling in force first.
func TestStreamRemarksAndPagesMarkAtTheHead(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 11)
	const roll = 7 // Alice's heavy bolter hits: 4 1 6
	c, code, body := r.openSSE(fmt.Sprintf("/api/matches/%s/stream?from=%d", m.id, head+1), nil)
	if code != 200 {
		t.Fatalf("stream: %d %s", code, body)
	}
	bob := api.RolePlayer("bob")
	r.command(m, bob, projector.Command{Type: "contest", Event: roll, Reason: "cocked die"})
	d1 := r.command(m, bob, projector.Command{Type: "dispute", Event: roll, Reason: "I saw a 5"}).Events[0].Seq
	r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: d1, Decision: "amend", Values: []int{5, 1, 6}})
	d2 := r.command(m, bob, projector.Command{Type: "dispute", Event: roll, Reason: "and the 1 was a 3"}).Events[0].Seq
	r2 := r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: d2, Decision: "amend", Values: []int{5, 3, 6}}).Events[0].Seq

	var last web.StreamMessage
	for msg := c.next(10 * time.Second); ; msg = c.next(10 * time.Second) {
		ev := msg.data.Event
		if ev.Type == "dice.contested" && (len(ev.Remarks) != 1 || ev.Remarks[0].Seq != roll || ev.Remarks[0].Witness != "CONTESTED by Bob: cocked die") {
			t.Errorf("the contest's remarks: %+v", ev.Remarks)
		}
		if ev.Seq == r2 {
			last = msg.data
			break
		}
	}
	rm := last.Event.Remarks
	if len(rm) == 0 || rm[0].Seq != roll || rm[0].InForce == nil || rm[0].InForce.Ruling != r2 || rm[0].InForce.Effect != "4 1 6 → 5 3 6 — 3 hits instead of 2" {
		t.Fatalf("the ruling's remarks: %+v", rm)
	}
	if len(rm[0].Marks) != 2 || !strings.HasPrefix(rm[0].Marks[0], fmt.Sprintf("AMENDED by ruling %d", r2)) || !strings.HasPrefix(rm[0].Marks[1], fmt.Sprintf("replaced by ruling %d", r2)) {
		t.Errorf("the ruled roll's marks on the stream: %q", rm[0].Marks)
	}
	// The roll's card on a page: its marks from the head.
	var page web.EventsResponse
	if code, b := r.get(fmt.Sprintf("/api/matches/%s/events?from=%d&limit=1", m.id, roll), nil, &page); code != 200 {
		t.Fatalf("/events: %d %s", code, b)
	}
	ev := page.Events[0]
	if ev.Witness != "contested by Bob: cocked die; settled by ruling "+fmt.Sprint(d1+1) || len(ev.Marks) != 2 || !strings.HasPrefix(ev.Marks[0], fmt.Sprintf("AMENDED by ruling %d", r2)) {
		t.Errorf("the roll on a page of /events: witness %q marks %q", ev.Witness, ev.Marks)
	}
	if ev.Roll == nil || ev.Roll.Firer != "Tactical Squad" || ev.Roll.Target != "Ork Boyz" || ev.Roll.Weapon != "heavy bolter" || ev.Roll.Decided != "2 hits" {
		t.Errorf("what the roll decided: %+v", ev.Roll)
	}
}

// With a broadcast delay, a page of /events marks what a public viewer may
// see only: a ruling the delay still holds back marks nothing, while the
// judge's view shows it.
func TestDelayedPagesDoNotMarkWhatTheDelayHolds(t *testing.T) {
	const delay = 3 * time.Second
	r := newRig(t, delay)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	r.playTo(m, 11)
	const roll = 7
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st web.StateResponse
		if code, _ := r.get("/api/matches/"+m.id+"/state", nil, &st); code == 200 && st.Head >= 11 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the roll never became public")
		}
		time.Sleep(100 * time.Millisecond)
	}
	d := r.command(m, api.RolePlayer("bob"), projector.Command{Type: "dispute", Event: roll, Reason: "I saw a 5"}).Events[0].Seq
	ruling := r.command(m, api.RoleJudge, projector.Command{Type: "rule", Dispute: d, Decision: "amend", Values: []int{5, 3, 6}}).Events[0].Seq
	path := fmt.Sprintf("/api/matches/%s/events?from=%d&limit=1", m.id, roll)
	var pub, judge web.EventsResponse
	r.get(path, nil, &pub)
	if code, b := r.get(path, bearer(m.judge()), &judge); code != 200 {
		t.Fatalf("judge /events: %d %s", code, b)
	}
	if len(judge.Events[0].Marks) != 1 || !strings.HasPrefix(judge.Events[0].Marks[0], fmt.Sprintf("AMENDED by ruling %d", ruling)) {
		t.Errorf("the judge's view of the roll: %q", judge.Events[0].Marks)
	}
	if pub.Head >= d {
		t.Skipf("the dispute became public before the page was read (head %d): this machine is slower than the %s delay", pub.Head, delay)
	}
	if len(pub.Events[0].Marks) != 0 {
		t.Errorf("a public page marks the roll with what the delay holds back (head %d): %q", pub.Head, pub.Events[0].Marks)
	}
}
