package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// longEvents is the size of the long match: 100,000 events.
const longEvents = 100_000

// longMatchID names the long match.
const longMatchID = "long"

// longData returns a data directory holding one 3e match of longEvents
// events (storeLong), made once and kept in the temporary directory (it
// takes a while to play). Tests copy it before writing.
func longData(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("matchrec-long-%d-v3", longEvents))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		tb.Fatal(err)
	}
	storeLong(tb, dir, longEvents)
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// storeLong records a 3e match of at least n events that never ends
// (generate.Long: armies nobody can wound, digital dice) as match
// longMatchID, through a recorder on the store of data directory dir.
func storeLong(tb testing.TB, dir string, n int) {
	tb.Helper()
	st, err := bolt.Open(filepath.Join(dir, node.StoreFile), bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	if _, _, err := generate.Long(context.Background(), generate.Direct{Recorder: rec}, ed3e.Rules{}, longMatchID, n, 1); err != nil {
		tb.Fatal(err)
	}
}

// TestLongMatchEveryCommand: every command on a match of 100,000 events
// finishes (no per-call timeout is hit: every call costs its own answer)
// with the process's heap bounded — the recorder (in-process) and the
// client together. It takes minutes: it runs with MATCHREC_TEST_LONG set
// (make test-long).
func TestLongMatchEveryCommand(t *testing.T) {
	if os.Getenv("MATCHREC_TEST_LONG") == "" {
		t.Skip("a long test: set MATCHREC_TEST_LONG (make test-long)")
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(longData(t), node.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, node.StoreFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	b = nil
	const heapLimit = 1 << 30
	var peak atomic.Uint64
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	timed := func(args ...string) string {
		t.Helper()
		t0 := time.Now()
		out := mustRun(t, dir, args...)
		t.Logf("%-40s %6.2fs, heap peak so far %d MiB", strings.Join(args, " "), time.Since(t0).Seconds(), peak.Load()>>20)
		return out
	}
	if n := strings.Count(timed("log", longMatchID), "\n"); n < longEvents {
		t.Fatalf("log printed %d lines for %d events", n, longEvents)
	}
	if n := strings.Count(timed("--json", "log", longMatchID), "\n"); n != longEvents {
		t.Fatalf("log --json printed %d lines", n)
	}
	tail := timed("--json", "log", longMatchID, "--from", "99900", "--to", "99999")
	roll, declared := "", "" // a roll (audit --roll), a declaration (whatif --at)
	for _, l := range strings.Split(strings.TrimSpace(tail), "\n") {
		var ev api.EventView
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		var p struct{ Purpose string }
		_ = json.Unmarshal(ev.Payload, &p)
		switch {
		case ev.Type == events.TypeDiceRolled && p.Purpose == "hit":
			roll = strconv.FormatUint(ev.Seq, 10)
		case ev.Type == events.TypeShootingDeclared && ev.Seq < 99990:
			declared = strconv.FormatUint(ev.Seq, 10)
		}
	}
	if roll == "" || declared == "" {
		t.Fatal("no roll or declaration in the last 100 events")
	}
	timed("state", longMatchID)
	timed("state", longMatchID, "--at", "50000")
	timed("audit", longMatchID)
	timed("audit", longMatchID, "--roll", roll)
	bundle := filepath.Join(t.TempDir(), "long.bundle")
	timed("export", longMatchID, "--bundle", bundle)
	timed("verify", bundle)
	if n := strings.Count(timed("replay", longMatchID, "--from", "99000"), "\n"); n < 1000 {
		t.Fatalf("replay printed %d lines", n)
	}
	timed("whatif", longMatchID, "--at", declared, "--runs", "100")
	timed("branch", longMatchID, "--at", "99000", "--id", "fork")
	timed("diff", longMatchID, "fork")
	timed("matches")
	timed("sql", "SELECT count(*) FROM rolls")
	if p := peak.Load(); p > heapLimit {
		t.Fatalf("the heap reached %d MiB (limit %d MiB)", p>>20, heapLimit>>20)
	}
}
