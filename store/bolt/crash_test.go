package bolt_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// The crash test: a child process appends with real fsync and reports each
// acknowledged append; the parent SIGKILLs it at a random moment, reopens
// the file and checks that nothing acknowledged was lost and nothing torn
// was left. Twenty kills in a row on the same file, so recovery from one
// crash is itself crashed.

// crashEnv carries the store path to the child; its presence is what makes
// TestCrashChild run instead of skip.
const crashEnv = "MATCHREC_CRASH_CHILD_DB"

const (
	crashRounds  = 20
	crashMatches = 4
)

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary 20 times")
	}
	// Mostly waiting (child start-up, the random delay before each kill):
	// it runs beside the package's other tests.
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>32))
	path := filepath.Join(t.TempDir(), "crash.db")
	acked := map[string]uint64{} // highest acknowledged seq per match

	var total uint64
	for round := range crashRounds {
		n := crashRound(t, path, time.Duration(50+rng.IntN(251))*time.Millisecond, acked)
		total += n
		verifyAfterCrash(t, round, path, acked)
	}
	t.Logf("%d acknowledged appends over %d kills; heads %v", total, crashRounds, acked)
	if total == 0 {
		t.Fatal("the child never acknowledged an append: the test tested nothing")
	}
}

// crashRound runs one child, kills it after delay (counted from when it is
// ready to append), and folds its acknowledgements into acked. It returns
// how many acknowledgements it read.
func crashRound(t *testing.T, path string, delay time.Duration, acked map[string]uint64) uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	var n uint64
	fold := func(line string) {
		// "ack <match> <seq>"; a line cut short by the kill does not parse
		// and is ignored (it was not fully acknowledged to us either).
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "ack" {
			return
		}
		seq, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			return
		}
		acked[f[1]] = max(acked[f[1]], seq)
		n++
	}

	// Wait for the child to have opened the store, so every round kills
	// a writer mid-stream rather than a process still starting up.
	ready := time.After(30 * time.Second)
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("child exited before it was ready: %s", stderr.String())
			}
			if line == "ready" {
				break wait
			}
			fold(line)
		case <-ready:
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("child not ready after 30s: %s", stderr.String())
		}
	}

	time.Sleep(delay)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	for line := range lines {
		fold(line)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL (%v): %s", err, stderr.String())
	}
	return n
}

// verifyAfterCrash reopens the store the way a restarted server would and
// checks everything acknowledged survived intact.
func verifyAfterCrash(t *testing.T, round int, path string, acked map[string]uint64) {
	t.Helper()
	// Structure, gaps, hash chains, heads and outbox, on the raw file.
	if err := bolt.Check(path); err != nil {
		t.Fatalf("round %d: Check after the kill: %v", round, err)
	}
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	// Every match the child wrote to, acknowledged or not: a kill between
	// an append's commit and its "ack" line leaves a match (or events)
	// the parent never heard of, which must be whole all the same.
	all := map[string]uint64{}
	for m := range crashMatches {
		all[fmt.Sprintf("crash-%d", m)] = 0
	}
	for m, seq := range acked {
		all[m] = seq
	}
	heads := map[string]uint64{}
	for m, seq := range all {
		if _, err := s.Head(bg, m); errors.Is(err, store.ErrNotFound) && seq == 0 {
			continue // never written: the kill came before its first append
		}
		var prev store.Head
		err := s.Scan(bg, m, 1, func(e events.Event) error {
			if e.Seq != prev.Seq+1 {
				return fmt.Errorf("event %d follows %d", e.Seq, prev.Seq)
			}
			if err := events.Verify(e, prev.Hash); err != nil {
				return err
			}
			prev = store.Head{Seq: e.Seq, Hash: e.Hash}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: match %s: %v", round, m, err)
		}
		if prev.Seq < seq {
			t.Fatalf("round %d: match %s has %d events, but %d were acknowledged", round, m, prev.Seq, seq)
		}
		h, err := s.Head(bg, m)
		if err != nil || h != prev {
			t.Fatalf("round %d: match %s: head %+v (%v), log ends at %+v", round, m, h, err, prev)
		}
		heads[m] = h.Seq
	}
	// The child's relay acks the outbox in commit order, so what is left
	// must be, per match, an unbroken run of seqs ending at the head: no
	// committed event may be missing from it.
	last := map[string]uint64{}
	err = s.Pending(bg, 0, func(e store.OutboxEntry) error {
		m := e.Event.Match
		if l, ok := last[m]; ok && e.Event.Seq != l+1 {
			return fmt.Errorf("outbox has %s/%d after %s/%d", m, e.Event.Seq, m, l)
		}
		last[m] = e.Event.Seq
		return nil
	})
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	for m, l := range last {
		if l != heads[m] {
			t.Fatalf("round %d: outbox of %s ends at %d, head is %d", round, m, l, heads[m])
		}
	}
}

// TestCrashChild is the child half of TestCrashRecovery; run directly it
// skips. It appends forever to crashMatches matches from their current
// heads, printing "ack <match> <seq>" only after Append returns, while a
// relay goroutine acks the outbox in commit order.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("child of TestCrashRecovery")
	}
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		os.Exit(3) // not SIGKILL: the parent reports stderr
	}
	s, err := bolt.Open(path, bolt.Options{Timeout: 10 * time.Second})
	if err != nil {
		fail("open: %v", err)
	}
	fmt.Println("ready")
	for m := range crashMatches {
		id := fmt.Sprintf("crash-%d", m)
		go func() {
			h, err := s.Head(bg, id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				fail("head %s: %v", id, err)
			}
			for i := 0; ; i++ {
				evs := storetest.MakeEvents(id, h.Seq+1, h.Hash, 1+(i+m)%3)
				if err := s.Append(bg, id, h.Seq, evs); err != nil {
					fail("append %s after %d: %v", id, h.Seq, err)
				}
				last := evs[len(evs)-1]
				h = store.Head{Seq: last.Seq, Hash: last.Hash}
				// One write call per line, so a kill cuts at most the line
				// being written, never interleaves two.
				fmt.Fprintf(os.Stdout, "ack %s %d\n", id, h.Seq)
			}
		}()
	}
	go func() {
		for range s.Notify() {
			var keys []uint64
			err := s.Pending(bg, 100, func(e store.OutboxEntry) error {
				keys = append(keys, e.Key)
				return nil
			})
			if err == nil {
				err = s.Ack(bg, keys)
			}
			if err != nil {
				fail("relay: %v", err)
			}
		}
	}()
	select {} // until killed
}
