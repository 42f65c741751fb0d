package clusterrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// Tally is what the recorders acknowledged, by match: every event of
// every successful reply (including replays of a retried request, which
// name the events recorded the first time).
type Tally struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each acknowledgement
	acked   map[string]map[uint64]api.EventRef
	Retries int
	// MaxStep is the longest a step took, its retries included; Stalls
	// lists the steps that took longer than a second (when, how long).
	MaxStep time.Duration
	Stalls  []Stall
	steps   []Stall // every step
	fast    int     // steps in a row under a second
	by      map[string]int
	// Answers counts the replies by kind: "recorded", "replayed", and
	// every error code (a refusal of the rules, stale_head, unavailable,
	// a transport failure as "transport"). A cluster answers a command
	// with nothing else: a raw "conflict" is a bug (docs/cluster.md).
	Answers map[string]int
	// ReadFirst makes every step read the match's state first and decide
	// at the head it shows, as a table's screen (or the CLI) does: the
	// load of the cluster benchmark.
	ReadFirst bool
}

// Stall is a step that took long: a failover in progress.
type Stall struct {
	At   time.Time
	Took time.Duration
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{acked: map[string]map[uint64]api.EventRef{}, Answers: map[string]int{}, changed: make(chan struct{})}
}

// answer counts one reply.
func (t *Tally) answer(err error, replayed bool) {
	kind := "recorded"
	var ae *api.Error
	switch {
	case errors.As(err, &ae):
		kind = string(ae.Code)
	case err != nil:
		kind = "transport"
	case replayed:
		kind = "replayed"
	}
	t.mu.Lock()
	t.Answers[kind]++
	t.mu.Unlock()
}

// Unexpected counts the answers a cluster must never give a command: a
// raw conflict, an internal error.
func (t *Tally) Unexpected() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.Answers[string(projector.CodeConflict)] + t.Answers[string(projector.CodeInternal)]
}

func (t *Tally) ack(match string, refs []api.EventRef) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.acked[match]
	if m == nil {
		m = map[uint64]api.EventRef{}
		t.acked[match] = m
	}
	for _, r := range refs {
		m[r.Seq] = r
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// answeredBy counts a command's answer for the recorder that signed it.
func (t *Tally) answeredBy(r *auth.Receipt) {
	if r == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.by == nil {
		t.by = map[string]int{}
	}
	t.by[auth.PublicHex(r.Recorder)]++
}

// ByRecorder counts the commands each recorder answered, by its key.
func (t *Tally) ByRecorder() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.by)
}

// wait returns a channel closed at the next acknowledgement.
func (t *Tally) wait() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// WaitCount waits until n events in all are acknowledged, or done is
// closed (the plays ended), or ctx ends; it reports whether n were.
func (t *Tally) WaitCount(ctx context.Context, n int, done <-chan struct{}) bool {
	for {
		ch := t.wait()
		if t.Count() >= n {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-done:
			return t.Count() >= n
		case <-ch:
		}
	}
}

// Longest is the longest step that was in flight at some moment between
// from and to: the failover time of a failure in that window (the
// commands it held up, their resends included).
func (t *Tally) Longest(from, to time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var d time.Duration
	for _, st := range t.steps {
		if st.At.Before(to) && st.At.Add(st.Took).After(from) {
			d = max(d, st.Took)
		}
	}
	return d
}

// Phase returns the longest step since the last Phase call and starts a
// new phase.
func (t *Tally) Phase() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.MaxStep
	t.MaxStep = 0
	return d
}

func (t *Tally) step(start time.Time, retries int) {
	took := time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Retries += retries
	t.MaxStep = max(t.MaxStep, took)
	t.steps = append(t.steps, Stall{At: start, Took: took})
	t.fast++
	if took > time.Second {
		t.Stalls = append(t.Stalls, Stall{At: start, Took: took})
		t.fast = 0
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// WaitSettled waits until the last n steps all took under a second (a
// failure is behind: the cluster is back to normal), or done is closed,
// or ctx ends; it reports whether they did.
func (t *Tally) WaitSettled(ctx context.Context, n int, done <-chan struct{}) bool {
	for {
		ch := t.wait()
		t.mu.Lock()
		fast := t.fast
		t.mu.Unlock()
		if fast >= n {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-done:
			return false
		case <-ch:
		}
	}
}

// Acked returns the acknowledged events by match.
func (t *Tally) Acked() map[string][]api.EventRef {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string][]api.EventRef{}
	for m, refs := range t.acked {
		for _, r := range refs {
			out[m] = append(out[m], r)
		}
		sort.Slice(out[m], func(i, j int) bool { return out[m][i].Seq < out[m][j].Seq })
	}
	return out
}

// Events is the number of acknowledged events of match.
func (t *Tally) Events(match string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.acked[match])
}

// WaitEvents waits until match has n acknowledged events, or done is
// closed (the play ended), or ctx ends.
func (t *Tally) WaitEvents(ctx context.Context, match string, n int, done <-chan struct{}) {
	for {
		ch := t.wait()
		if t.Events(match) >= n {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-ch:
		}
	}
}

// Count is the number of acknowledged events.
func (t *Tally) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, m := range t.acked {
		n += len(m)
	}
	return n
}

// retryable says a call may be sent again: the recorder was unreachable,
// died, or the cluster could not confirm. The request id makes the resend
// safe: a command recorded the first time is answered from the index.
// Nothing else is: a conflict or an internal error ends the play.
func retryable(err error) bool {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code == projector.CodeUnavailable
	}
	return err != nil // a transport error: timeout, no responders
}

// call sends one request until it is answered with something other than
// a retryable error, or ctx ends; t (nil: none) counts every answer.
func call(ctx context.Context, c *natsbus.Client, verb string, req, resp any, t ...*Tally) (retries int, err error) {
	for {
		err = c.Call(ctx, verb, req, resp)
		if len(t) > 0 {
			replayed := false
			if r, ok := resp.(*api.Result); ok && err == nil {
				replayed = r.Replayed
			}
			t[0].answer(err, replayed)
		}
		if !retryable(err) || ctx.Err() != nil {
			return retries, err
		}
		retries++
		select {
		case <-ctx.Done():
			return retries, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Play records sc as match id through c, each step with a request id and
// the head it was decided at, resending after any outage until answered,
// and tallies every acknowledged event. A step expected to be refused
// must be refused with its code. Scripts with digital dice are not for it
// (their seed exchange reads state between steps).
func Play(ctx context.Context, c *natsbus.Client, id string, sc *script.Script, t *Tally) error {
	// A table's session: every read sees what the table recorded, on
	// whichever recorder answers it.
	c = &natsbus.Client{Conn: c.Conn, Timeout: c.Timeout, Heads: natsbus.NewHeads()}
	start := time.Now()
	var created api.CreateResult
	setup, err := sc.Match.Placed()
	if err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	n, err := call(ctx, c, api.VerbCreate, api.CreateRequest{Match: id, Secret: randomHex(16), MatchCreated: setup}, &created)
	t.step(start, n)
	if err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	if created.Receipt == nil {
		return fmt.Errorf("create %s: no receipt", id)
	}
	t.ack(id, []api.EventRef{{Seq: created.Seq, Hash: created.Receipt.Hash}})
	head := store.Head{Seq: created.Seq, Hash: created.Receipt.Hash}
	for i, st := range sc.Steps {
		if st.Cmd.Type == projector.CmdRoll && st.Cmd.Digital {
			if head, err = seeds(ctx, c, created, head, t); err != nil {
				return fmt.Errorf("match %s %s: %w", id, st.Where(i), err)
			}
		}
		role := api.RolePlayer(st.As)
		if st.As == script.RoleJudge {
			role = api.RoleJudge
		}
		if t.ReadFirst {
			var s projector.State
			if _, err := call(ctx, c, api.VerbState, api.StateRequest{Match: id}, &s); err != nil {
				return fmt.Errorf("match %s %s: read: %w", id, st.Where(i), err)
			}
			if s.Seq != head.Seq {
				return fmt.Errorf("match %s %s: read event %d, after recording event %d", id, st.Where(i), s.Seq, head.Seq)
			}
		}
		cmd := st.Cmd
		h := head
		req := api.ExecuteRequest{Match: id, Token: created.Tokens[role], Command: &cmd, RequestID: randomHex(16), Head: &h}
		var res api.Result
		start := time.Now()
		n, err := call(ctx, c, api.VerbDeclare, req, &res, t)
		t.step(start, n)
		var ae *api.Error
		switch {
		case st.ExpectRefusal == "" && err != nil:
			return fmt.Errorf("match %s %s: %w", id, st.Where(i), err)
		case st.ExpectRefusal != "" && (!errors.As(err, &ae) || ae.Code != st.ExpectRefusal):
			return fmt.Errorf("match %s %s: want refusal %s, got %v", id, st.Where(i), st.ExpectRefusal, err)
		case err == nil:
			t.ack(id, res.Events)
			t.answeredBy(res.Receipt)
			if k := len(res.Events); k > 0 {
				head = store.Head{Seq: res.Events[k-1].Seq, Hash: res.Events[k-1].Hash}
			}
		}
	}
	return nil
}

// seeds commits, then reveals, every player's dice seed of the current
// epoch, reading the state at least as far as head (read-your-writes on
// whichever recorder answers), and returns the new head.
func seeds(ctx context.Context, c *natsbus.Client, m api.CreateResult, head store.Head, t *Tally) (store.Head, error) {
	for range 8 {
		var s projector.State
		if _, err := call(ctx, c, api.VerbState, api.StateRequest{Match: m.Match, After: head.Seq}, &s); err != nil {
			return head, err
		}
		sent := false
		for _, p := range s.Players {
			tok := m.Tokens[api.RolePlayer(p.ID)]
			sc, ok := s.SeedCommand(p.ID, []byte(tok))
			if !ok {
				continue
			}
			h := head
			var res api.Result
			start := time.Now()
			n, err := call(ctx, c, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: tok, Command: &sc, RequestID: randomHex(16), Head: &h}, &res, t)
			t.step(start, n)
			if err != nil {
				return head, fmt.Errorf("%s's seed: %w", p.ID, err)
			}
			t.ack(m.Match, res.Events)
			if k := len(res.Events); k > 0 {
				head = store.Head{Seq: res.Events[k-1].Seq, Hash: res.Events[k-1].Hash}
			}
			sent = true
			break
		}
		if !sent {
			return head, nil
		}
	}
	return head, nil
}

// Tables runs n tables through c, each playing sc match after match (its
// ids id(table, round)) until stop is closed, then finishing the match
// in play. done is closed once every table has stopped; err then is every
// table's failure (a table that fails stops).
type Tables struct {
	done chan struct{}
	mu   sync.Mutex
	err  error
}

// PlayTables starts the tables.
func PlayTables(ctx context.Context, c *natsbus.Client, n int, id func(table, round int) string, sc *script.Script, t *Tally, stop <-chan struct{}) *Tables {
	tb := &Tables{done: make(chan struct{})}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for r := 0; ; r++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := Play(ctx, c, id(i, r), sc, t); err != nil {
					tb.mu.Lock()
					tb.err = errors.Join(tb.err, err)
					tb.mu.Unlock()
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(tb.done) }()
	return tb
}

// Done is closed once every table has stopped.
func (tb *Tables) Done() <-chan struct{} { return tb.done }

// Err is the tables' failures so far.
func (tb *Tables) Err() error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.err
}
