package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Idempotency (docs/events.md, "Sending commands, and retrying them"):
// every recorded command has an entry in the store's request index, by its
// role and nonce, written with its events. A request that comes again is
// answered from it with what it recorded the first time.

// recordedBefore answers a request whose key (role and nonce) is in the
// index: the original events and a receipt if the statement is the same,
// nonce_reused if it is another. done is false for a new request. A
// headless request (a token command sent without a head) is the same if
// it states the same command: its first attempt stated the head the
// recorder decided it on, which may have moved since.
func (r *Recorder) recordedBefore(ctx context.Context, s *projector.State, key []byte, cr credential) (api.Result, bool, error) {
	entry, err := r.st.Request(ctx, s.Match, key)
	if errors.Is(err, store.ErrNotFound) {
		return api.Result{}, false, nil
	}
	if err != nil {
		return api.Result{}, true, fmt.Errorf("request index of match %s: %w", s.Match, err)
	}
	evs, err := r.span(ctx, s.Match, entry.First, entry.Last)
	if err != nil {
		return api.Result{}, true, err
	}
	if entry.Statement != auth.Sum(cr.auth.Statement) && !(cr.headless && sameCommand(evs[0], cr.statement)) {
		return api.Result{}, true, api.Errorf(projector.CodeNonceReused,
			"this request id was used by another command of the same role in match %s (events %d-%d): make a new one", s.Match, entry.First, entry.Last)
	}
	refs := make([]api.EventRef, len(evs))
	for i, e := range evs {
		refs[i] = api.EventRef{Seq: e.Seq, Type: e.Type, Hash: e.Hash}
	}
	return api.Result{Match: s.Match, Events: refs, Pending: s.Pending, Receipt: r.receipt(ctx, s.Match, evs[len(evs)-1]),
		Request: fmt.Sprintf("%x", cr.statement.Nonce), Replayed: true}, true, nil
}

// sameCommand says the first event of a recorded request states st's
// command, as st's role and with st's nonce, at whatever head.
func sameCommand(first events.Event, st auth.Statement) bool {
	if first.Auth == nil {
		return false
	}
	had, err := auth.ParseStatement(first.Auth.Statement)
	return err == nil && had.Match == st.Match && had.Role == st.Role && had.Nonce == st.Nonce && bytes.Equal(had.Command, st.Command)
}

// refs reads events first..last of a match as references, and the last.
func (r *Recorder) refs(ctx context.Context, match string, first, last uint64) ([]api.EventRef, events.Event, error) {
	evs, err := r.span(ctx, match, first, last)
	if err != nil {
		return nil, events.Event{}, err
	}
	out := make([]api.EventRef, len(evs))
	for i, e := range evs {
		out[i] = api.EventRef{Seq: e.Seq, Type: e.Type, Hash: e.Hash}
	}
	return out, evs[len(evs)-1], nil
}

// span reads events first..last of a match, all of them or an error.
func (r *Recorder) span(ctx context.Context, match string, first, last uint64) ([]events.Event, error) {
	var out []events.Event
	err := r.st.Scan(ctx, match, first, func(e events.Event) error {
		if e.Seq > last {
			return events.ErrStop
		}
		out = append(out, e)
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, fmt.Errorf("read events %d-%d of match %s: %w", first, last, match, err)
	}
	if uint64(len(out)) != last-first+1 {
		return nil, fmt.Errorf("match %s has not events %d-%d", match, first, last)
	}
	return out, nil
}

// Status says whether the command a role sent with request id was
// recorded in match, and if so with which events: what a client asks
// after a timeout left the outcome unknown (`matchrec status`).
func (r *Recorder) Status(ctx context.Context, req api.StatusRequest) (api.StatusResult, error) {
	if !events.ValidMatchID(req.Match) {
		return api.StatusResult{}, api.Errorf(projector.CodeBadRequest, "%q is not a match id", req.Match)
	}
	if _, ok := events.ActorOf(req.Role); !ok {
		return api.StatusResult{}, api.Errorf(projector.CodeBadRequest, "role %q: want player:ID or judge", req.Role)
	}
	n, err := ParseRequestID(req.Request)
	if err != nil {
		return api.StatusResult{}, err
	}
	if _, err := r.st.Head(ctx, req.Match); err != nil {
		return api.StatusResult{}, err
	}
	st := auth.Statement{Role: req.Role, Nonce: n}
	res := api.StatusResult{Match: req.Match, Request: req.Request}
	entry, err := r.st.Request(ctx, req.Match, st.Key())
	if errors.Is(err, store.ErrNotFound) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	refs, last, err := r.refs(ctx, req.Match, entry.First, entry.Last)
	if err != nil {
		return res, err
	}
	res.Recorded, res.Events, res.Receipt = true, refs, r.receipt(ctx, req.Match, last)
	return res, nil
}
