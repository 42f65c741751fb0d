package clusterrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

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
	acked   map[string]map[uint64]api.EventRef
	Retries int
	// MaxStep is the longest a step took, its retries included; Stalls
	// lists the steps that took longer than a second (when, how long).
	MaxStep time.Duration
	Stalls  []Stall
}

// Stall is a step that took long: a failover in progress.
type Stall struct {
	At   time.Time
	Took time.Duration
}

// NewTally returns an empty tally.
func NewTally() *Tally { return &Tally{acked: map[string]map[uint64]api.EventRef{}} }

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
}

func (t *Tally) step(start time.Time, retries int) {
	took := time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Retries += retries
	t.MaxStep = max(t.MaxStep, took)
	if took > time.Second {
		t.Stalls = append(t.Stalls, Stall{At: start, Took: took})
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
	for t.Events(match) < n {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-time.After(5 * time.Millisecond):
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
func retryable(err error) bool {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code == projector.CodeUnavailable || ae.Code == projector.CodeInternal || ae.Code == projector.CodeConflict
	}
	return err != nil // a transport error: timeout, no responders
}

// call sends one request until it is answered with something other than
// a retryable error, or ctx ends.
func call(ctx context.Context, c *natsbus.Client, verb string, req, resp any) (retries int, err error) {
	for {
		err = c.Call(ctx, verb, req, resp)
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
		cmd := st.Cmd
		h := head
		req := api.ExecuteRequest{Match: id, Token: created.Tokens[role], Command: &cmd, RequestID: randomHex(16), Head: &h}
		var res api.Result
		start := time.Now()
		n, err := call(ctx, c, api.VerbDeclare, req, &res)
		t.step(start, n)
		var ae *api.Error
		switch {
		case st.ExpectRefusal == "" && err != nil:
			return fmt.Errorf("match %s %s: %w", id, st.Where(i), err)
		case st.ExpectRefusal != "" && (!errors.As(err, &ae) || ae.Code != st.ExpectRefusal):
			return fmt.Errorf("match %s %s: want refusal %s, got %v", id, st.Where(i), st.ExpectRefusal, err)
		case err == nil:
			t.ack(id, res.Events)
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
			n, err := call(ctx, c, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: tok, Command: &sc, RequestID: randomHex(16), Head: &h}, &res)
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
