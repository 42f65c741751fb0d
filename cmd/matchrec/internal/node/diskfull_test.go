package node

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// A full disk (issue 22), on a real one: the data directory on a 32 MB
// tmpfs that a filler file then fills. Commands are refused with
// disk_full (and what to do), nothing acknowledged is lost, and once the
// filler is gone the bus catches up by itself — JetStream, which keeps
// refusing writes after a write error, is started again by the embedded
// server — every acknowledged match's copy equal to the record, and new
// commands are recorded. It mounts a file system, so it runs with
// MATCHREC_TEST_LONG (make test-long) as root; elsewhere it skips, and
// docs/security.md ("A full disk") has the same by hand.
func TestFullDiskRefusesThenCatchesUp(t *testing.T) {
	const headroom = 256 << 10
	if os.Getenv("MATCHREC_TEST_LONG") == "" {
		t.Skip("mounts a tmpfs: make test-long")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=32m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): run as root, or follow docs/security.md by hand", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	n := serveWith(t, Config{DataDir: filepath.Join(mnt, "data")})
	c := remote(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sc := readScript(t, filepath.Join(examplesDir, "6e-grot-wood-assault.yaml"))

	// Fill the disk to its last byte, then give back a little: the store
	// (whose file grows ahead of its writes) takes some matches more while
	// JetStream, writing block by block, runs out first.
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	if st, err := filler.Stat(); err != nil || filler.Truncate(st.Size()-headroom) != nil {
		t.Fatalf("give back %d bytes: %v", headroom, err)
	}
	filler.Close()

	// Matches are created until the disk refuses one; those created are
	// acknowledged.
	acked := map[string]uint64{}
	var refusal *api.Error
	for i := 0; i < 5000 && refusal == nil; i++ {
		var res api.CreateResult
		err := c.Call(ctx, api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &res)
		switch {
		case err == nil:
			acked[res.Match] = res.Seq
		case !errors.As(err, &refusal):
			t.Fatal(err)
		}
	}
	if refusal == nil || refusal.Code != projector.CodeDiskFull || !strings.Contains(refusal.Message, "free space") {
		t.Fatalf("on a full disk: %+v, want disk_full saying what to do", refusal)
	}
	t.Logf("%d matches acknowledged, then %s", len(acked), refusal)
	if n.Relay().Drained(ctxFor(t, time.Second)) == nil {
		t.Fatalf("the bus kept up on the full disk: the test did not test catching up (relay %+v)", n.Relay().Stats())
	}

	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	// Bounded by events: the outbox drains once the bus takes writes.
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatalf("the bus never caught up: %v (relay %+v, %s)", err, n.Relay().Stats(), n.Relay().Lag())
	}
	for id, seq := range acked {
		h, err := n.store.Head(ctx, id)
		if err != nil || h.Seq < seq {
			t.Fatalf("acknowledged match %s: head %+v (%v), acknowledged at %d", id, h, err, seq)
		}
		var bc api.BusCheckResult
		if err := c.Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: id}, &bc); err != nil || !bc.Equal {
			t.Fatalf("bus copy of %s: %+v %v", id, bc, err)
		}
	}
	var res api.CreateResult
	if err := c.Call(ctx, api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &res); err != nil {
		t.Fatalf("a command once space is back: %v", err)
	}
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("JetStream started again %d times; relay %+v", n.emb.Recoveries(), n.Relay().Stats())
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
