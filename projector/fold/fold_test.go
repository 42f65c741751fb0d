package fold_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// played autoplays a 3e match in memory (match id "m1").
func played(t *testing.T, seed uint64, turns int) *projtest.Game {
	t.Helper()
	g := projtest.New(t, ed3e.Rules{}, sim.RandomMatch("3e", rand.New(rand.NewPCG(seed, 9))))
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(seed), MaxTurns: turns}
	for {
		actor, c, done := ap.Next(g.State)
		if done {
			return g
		}
		g.Do(actor, c)
	}
}

// A Folder given the recorded events reaches the state the decider left,
// and finds the edition from event 1.
func TestFolderReachesTheRecordedState(t *testing.T) {
	g := played(t, 1, 4)
	f := fold.NewFolder("m1", editions.Lookup)
	for _, e := range g.Events {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	if f.Rules == nil || f.Rules.Edition() != "3e" {
		t.Fatalf("edition not found from event 1: %v", f.Rules)
	}
	want, _ := g.State.Hash()
	if h, _ := f.State.Hash(); h != want {
		t.Fatal("the fold differs from the state the decider left")
	}
	if p, ok := f.Payload(1); !ok || p.(*events.MatchCreated).Edition != "3e" {
		t.Fatalf("payload of event 1: %v %v", p, ok)
	}
	if f.Ruled() {
		t.Fatal("a match without rulings reads as ruled")
	}
}

// A fold checks which match recorded each event: a branch's own events
// must be its own, the inherited ones its parent's.
func TestFolderChecksWhoRecordedEachEvent(t *testing.T) {
	g := played(t, 2, 2)
	const at = 5
	lineage := []events.BranchPoint{{Match: "m1", Upto: at}, {Match: "b"}}
	branch := func(relabel uint64) []events.Event {
		evs := make([]events.Event, len(g.Events))
		copy(evs, g.Events)
		for i := range evs {
			if evs[i].Seq > at && evs[i].Seq != relabel {
				evs[i].Match = "b"
			}
		}
		return evs
	}
	apply := func(evs []events.Event) error {
		f := fold.NewFolder("b", editions.Lookup)
		f.Lineage = lineage
		for _, e := range evs {
			if err := f.Apply(e); err != nil {
				return err
			}
		}
		return nil
	}
	if err := apply(branch(0)); err != nil {
		t.Fatalf("a well-formed branch: %v", err)
	}
	err := apply(branch(at + 2))
	if err == nil || !strings.Contains(err.Error(), "event 7 was recorded by match m1") {
		t.Fatalf("an event of the wrong match: %v", err)
	}
	if got := fold.RecordedBy(lineage, "b", at); got != "m1" {
		t.Fatalf("event %d recorded by %s", at, got)
	}
	if got := fold.RecordedBy(nil, "b", 1); got != "b" {
		t.Fatalf("no lineage: recorded by %s", got)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	g := played(t, 3, 3)
	b, err := fold.EncodeSnapshot(g.State)
	if err != nil {
		t.Fatal(err)
	}
	back, err := fold.DecodeSnapshot(b, editions.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	h1, _ := g.State.Hash()
	h2, _ := back.Hash()
	if h1 != h2 {
		t.Fatal("a decoded snapshot is not the state that was encoded")
	}
}

// A damaged, stale or inconsistent snapshot fails its checks.
func TestDecodeSnapshotRejectsBadOnes(t *testing.T) {
	g := played(t, 4, 2)
	good, err := fold.EncodeSnapshot(g.State)
	if err != nil {
		t.Fatal(err)
	}
	reframed := func(edit func(m map[string]any)) []byte {
		var m map[string]any
		if err := events.DecodeValue(good, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, err := events.EncodeValue(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	damaged := append([]byte(nil), good...)
	damaged[len(damaged)/2] ^= 0xff
	for name, b := range map[string][]byte{
		"damaged":         damaged,
		"not msgpack":     []byte("nothing"),
		"stale version":   reframed(func(m map[string]any) { m["v"] = projector.StateVersion + 1 }),
		"bad checksum":    reframed(func(m map[string]any) { m["c"] = []byte("x") }),
		"framing lies":    reframed(func(m map[string]any) { m["s"] = g.State.Seq + 1 }),
		"no such edition": reframed(func(m map[string]any) { m["e"] = "9e" }),
	} {
		if _, err := fold.DecodeSnapshot(b, editions.Lookup); !errors.Is(err, fold.ErrBadSnapshot) {
			t.Errorf("%s: %v, want ErrBadSnapshot", name, err)
		}
	}
}
