package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// The judge's token opens the live view; guessing it is the one thing a
// login form invites (issue 22 measured 858 tries a second). A token is
// 128 random bits, so guessing cannot succeed, but it need not cost the
// server a check per try either: each client address gets a few wrong
// tokens free, then waits before each further try, twice as long each
// time up to a ceiling; a right token forgets its failures. While it
// waits, every try — right or wrong — is answered 429 with Retry-After,
// before any token is looked at.
const (
	freeTries    = 5 // wrong tokens allowed before the waits start
	firstWait    = 500 * time.Millisecond
	maxWait      = time.Minute
	maxThrottled = 10_000 // addresses remembered; the oldest quiet ones go first
	forgetAfter  = 15 * time.Minute
)

// throttle keeps each client address's wrong tokens.
type throttle struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*tries
}

type tries struct {
	fails int
	until time.Time // no try before then
	last  time.Time
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now, m: map[string]*tries{}}
}

// clientKey is the address a request comes from (without its port). Behind
// a proxy every client is the proxy: a judge then shares the waits of
// whoever guesses through it.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// wait is how long key must wait before its next try (0: it may try now).
func (t *throttle) wait(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := t.m[key]
	if tr == nil {
		return 0
	}
	return max(0, tr.until.Sub(t.now()))
}

// failed counts a wrong token from key.
func (t *throttle) failed(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	tr := t.m[key]
	if tr == nil || now.Sub(tr.last) > forgetAfter {
		if tr == nil && len(t.m) >= maxThrottled {
			t.evict(now)
		}
		tr = &tries{}
		t.m[key] = tr
	}
	tr.fails++
	tr.last = now
	if n := tr.fails - freeTries; n > 0 {
		w := firstWait
		for i := 1; i < n && w < maxWait; i++ {
			w *= 2
		}
		tr.until = now.Add(min(w, maxWait))
	}
}

// succeeded forgets key's wrong tokens.
func (t *throttle) succeeded(key string) {
	t.mu.Lock()
	delete(t.m, key)
	t.mu.Unlock()
}

// evict drops the addresses quiet for forgetAfter, or else the quietest;
// t.mu is held.
func (t *throttle) evict(now time.Time) {
	var oldest string
	for k, tr := range t.m {
		if now.Sub(tr.last) > forgetAfter {
			delete(t.m, k)
		} else if oldest == "" || tr.last.Before(t.m[oldest].last) {
			oldest = k
		}
	}
	if len(t.m) >= maxThrottled && oldest != "" {
		delete(t.m, oldest)
	}
}
