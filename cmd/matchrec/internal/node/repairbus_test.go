package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A bus copy that differs is repaired for that match alone (issue 22):
// junk on one match's subject — the answer a steered reply wrote there,
// here published by hand on an open bus — makes the relay flag the match
// and withhold its events, buscheck fail and the web feed pause. The
// repairbus verb republishes the match's own events from the record after
// the junk and a signed copy notice; then buscheck is equal, the flag is
// gone, new events reach the bus, followers in and outside the process
// read the whole match from the notice on, the web feed carries on, the
// other match's copy is untouched, and it all holds after a restart. A
// second repair has nothing to do.
func TestRepairBusRepairsOneMatch(t *testing.T) {
	dir := t.TempDir()
	n := serveWith(t, Config{DataDir: dir, Insecure: true, HTTP: "127.0.0.1:0"})
	victim, other := playSome(t, n, 1), playSome(t, n, 3)
	c := remote(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	attacker := attack(t, n, "")
	subj := natsbus.SubjectPrefix + victim.Match
	js, _ := jetstream.New(attacker.nc)
	stream, err := js.Stream(ctx, natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	count := func(subject string) uint64 {
		t.Helper()
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Subjects[subject]
	}
	otherBefore := count(natsbus.SubjectPrefix + other.Match)
	sse := openStream(t, n, victim.Match)

	if _, err := js.Publish(ctx, subj, []byte(`{"ok":true,"result":{"service":"matchrec"}}`)); err != nil {
		t.Fatal(err)
	}
	step := func(c2 projector.Command) uint64 {
		t.Helper()
		var res api.Result
		if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: victim.Match, Token: victim.Tokens[api.RolePlayer("alice")], Command: &c2}, &res); err != nil {
			t.Fatal(err)
		}
		if err := n.Relay().Drained(ctx); err != nil {
			t.Fatal(err)
		}
		return res.Events[len(res.Events)-1].Seq
	}
	step(projector.Command{Type: projector.CmdPhase, Phase: "shooting"})
	if d, ok := n.Relay().Differs(victim.Match); !ok || !d.Forged {
		t.Fatalf("the relay's finding: %+v %v", d, ok)
	}
	sse.read(t, "feed paused: the bus copy differs from the record")
	busCheck := func(match string) api.BusCheckResult {
		t.Helper()
		var bc api.BusCheckResult
		if err := c.Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: match}, &bc); err != nil {
			t.Fatal(err)
		}
		return bc
	}
	if bc := busCheck(victim.Match); bc.Equal {
		t.Fatalf("buscheck of the junked copy: %+v", bc)
	}

	head, _ := n.store.Head(ctx, victim.Match)
	onBefore := count(subj)
	var rep api.RepairBusResult
	if err := c.Call(ctx, api.VerbRepairBus, api.BusCheckRequest{Match: victim.Match}, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Equal || rep.Republished != head.Seq || rep.Superseded != onBefore || rep.Base == 0 {
		t.Fatalf("repair: %+v (head %d, %d messages before)", rep, head.Seq, onBefore)
	}
	if bc := busCheck(victim.Match); !bc.Equal || bc.Flagged != "" || bc.Checked != head.Seq || bc.CopyBase != rep.Base {
		t.Fatalf("buscheck after the repair: %+v", bc)
	}
	next := step(projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	if bc := busCheck(victim.Match); !bc.Equal || bc.Checked != next {
		t.Fatalf("buscheck after a command: %+v", bc)
	}
	startFollowing(t, js, victim.Match, &natsbus.SignatureCheck{Key: n.Identity()}).wantSeqs(t, 1, next)
	startFollowing(t, js, victim.Match, natsbus.RecordCheck{Store: n.store, Key: n.Identity()}).wantSeqs(t, 1, next)
	sse.read(t, fmt.Sprintf("id: %d", next)) // the hub follows the new copy
	if got := count(natsbus.SubjectPrefix + other.Match); got != otherBefore {
		t.Fatalf("the other match's subject went from %d to %d messages", otherBefore, got)
	}
	if bc := busCheck(other.Match); !bc.Equal {
		t.Fatalf("buscheck of the other match: %+v", bc)
	}
	if err := c.Call(ctx, api.VerbRepairBus, api.BusCheckRequest{Match: victim.Match}, &rep); err != nil || !rep.Equal || rep.Republished != 0 {
		t.Fatalf("a second repair: %+v %v", rep, err)
	}

	// Restarted, the recorder reads the copy notice: nothing is flagged,
	// nothing republished, and the copy is still the record's.
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n = serveWith(t, Config{DataDir: dir, Insecure: true})
	c = remote(t, n)
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	if d := n.Relay().AllDiffers(); len(d) != 0 {
		t.Fatalf("flagged after a restart: %+v", d)
	}
	if bc := busCheck(victim.Match); !bc.Equal {
		t.Fatalf("buscheck after a restart: %+v", bc)
	}
	if s := n.Relay().Stats(); s.Backfilled != 0 {
		t.Fatalf("the restarted relay republished %d events", s.Backfilled)
	}
}
