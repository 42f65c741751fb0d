package web

import (
	"testing"
	"time"
)

// The throttle's waits, on a clock of the test's: free tries, then waits
// that double up to the ceiling, per address; the judge's token clears an
// address; a quiet address is forgotten.
func TestThrottleWaits(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle(func() time.Time { return now })
	for i := 0; i < freeTries; i++ {
		if w := th.wait("a"); w != 0 {
			t.Fatalf("try %d waits %s", i+1, w)
		}
		th.failed("a")
	}
	want := firstWait
	for i := 0; i < 12; i++ {
		th.failed("a")
		if w := th.wait("a"); w != want {
			t.Fatalf("after %d wrong tokens: wait %s, want %s", freeTries+i+1, w, want)
		}
		if w := th.wait("b"); w != 0 {
			t.Fatalf("another address waits %s", w)
		}
		want = min(2*want, maxWait)
	}
	now = now.Add(maxWait)
	if w := th.wait("a"); w != 0 {
		t.Fatalf("after the wait: %s", w)
	}
	th.succeeded("a")
	th.failed("a")
	if w := th.wait("a"); w != 0 {
		t.Fatalf("a right token did not clear the failures: %s", w)
	}
	for range freeTries + 3 {
		th.failed("c")
	}
	now = now.Add(forgetAfter + time.Second)
	th.failed("c")
	if w := th.wait("c"); w != 0 {
		t.Fatalf("a quiet address was not forgotten: %s", w)
	}
}
