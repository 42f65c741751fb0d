package fold_test

import (
	"context"
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
	g := projtest.New(t, ed3e.Rules{}, sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(seed, 9))))
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
	if e, p := f.Last(); e.Seq != f.State.Seq || p == nil || p.EventType() != e.Type {
		t.Fatalf("the event folded last: %d %v, state at %d", e.Seq, p, f.State.Seq)
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

// sliceLog is a fold.Log over events in memory that counts its scans.
type sliceLog struct {
	evs   []events.Event
	scans int
}

func (l *sliceLog) Scan(_ context.Context, _ string, from uint64, fn func(events.Event) error) error {
	l.scans++
	for _, e := range l.evs {
		if e.Seq < from {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// ruled is an autoplayed match whose first roll the opponent disputes
// at the end and the judge voids: as ruled, the events after that roll no
// longer fold.
func ruled(t *testing.T) []events.Event {
	t.Helper()
	g := played(t, 4, 2)
	g.Void(g.FirstRoll())
	return g.Events
}

// A Folder that reads the log back for its refolds (Reread) reaches the
// same state as one that keeps every event, reads the log once per
// ruling, and fails loudly when the log no longer has what it folded.
func TestFolderRereadsTheLogOnARuling(t *testing.T) {
	evs := ruled(t)
	kept := fold.NewFolder("m1", editions.Lookup)
	log := &sliceLog{evs: evs}
	reread := fold.NewFolder("m1", editions.Lookup)
	reread.Reread = fold.FromLog(context.Background(), log, "m1")
	played := fold.NewFolder("m1", editions.Lookup)
	played.Mode = fold.AsPlayed
	for _, e := range evs {
		for _, f := range []*fold.Folder{kept, reread, played} {
			if err := f.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	hk, _ := kept.State.Hash()
	hr, _ := reread.State.Hash()
	hp, _ := played.State.Hash()
	if hk != hr || log.scans != 1 {
		t.Fatalf("refold through the log: same state %v, %d scans (want 1)", hk == hr, log.scans)
	}
	if hk == hp || !reread.Ruled() || len(reread.State.Skipped) == 0 {
		t.Fatal("the void ruling changed nothing")
	}
	if s, _, err := fold.Fold(context.Background(), &sliceLog{evs: evs}, "m1", 0, editions.Lookup); err != nil {
		t.Fatal(err)
	} else if h, _ := s.Hash(); h != hk {
		t.Fatal("fold.Fold differs from the Folder")
	}

	short := fold.NewFolder("m1", editions.Lookup)
	short.Reread = fold.FromLog(context.Background(), &sliceLog{evs: evs[:3]}, "m1")
	var err error
	for _, e := range evs {
		if err = short.Apply(e); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "the log gave events up to 3 only") {
		t.Fatalf("refold from a log missing events: %v", err)
	}
}
