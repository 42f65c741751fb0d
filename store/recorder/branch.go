package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Branch creates a branch: its history is the parent's events 1..At, kept
// as a pointer by the store, followed by a branch.created event — with
// fresh tokens for every role, or the public keys of a signed branch, and
// the statement of the parent's participant who asked for it — and a fresh
// dice epoch, so the branch's digital dice are its own. A retry of a
// branch that was created returns the original result.
func (r *Recorder) Branch(ctx context.Context, req api.BranchRequest) (api.CreateResult, error) {
	br, ok := r.st.(store.Brancher)
	if !ok {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "this recorder cannot keep branches")
	}
	if !events.ValidMatchID(req.Parent) || (req.Match != "" && !events.ValidMatchID(req.Match)) {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "match ids must be 1-64 letters, digits, '-' or '_'")
	}
	if err := r.writable(ctx, req.Parent); err != nil {
		return api.CreateResult{}, err
	}
	if req.At == 0 {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "branch at which event? (--at SEQ, 1 or more)")
	}
	// The parent's state at the fork, from its nearest verified snapshot.
	s, err := r.Seeker().StateAt(ctx, req.Parent, req.At)
	if err != nil {
		return api.CreateResult{}, err
	}
	rules, err := r.RulesFor(s.Edition)
	if err != nil {
		return api.CreateResult{}, err
	}
	if err := r.wholeCommand(ctx, req.Parent, req.At); err != nil {
		return api.CreateResult{}, err
	}
	if s.Ended {
		// After its end nothing but witnesses, disputes and rulings may
		// follow a match (docs/events.md): a branch forks before it.
		return api.CreateResult{}, api.Errorf(projector.CodeMatchEnded, "match %s ended before event %d: branch at an event before its end", req.Parent, req.At)
	}
	cr, err := r.branchCredential(s, req)
	if err != nil {
		return api.CreateResult{}, err
	}
	c := cr.cmd
	if len(c.Name) > projector.MaxNameLen {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "a branch name of %d bytes: the limit is %d", len(c.Name), projector.MaxNameLen)
	}
	if c.At != req.At {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "the statement branches at event %d, the request at %d", c.At, req.At)
	}
	id, err := r.newMatchID(ctx, c.Match)
	if err != nil {
		return api.CreateResult{}, err
	}
	players := make([]events.PlayerSpec, 0, len(s.Players))
	for _, p := range s.Players {
		players = append(players, events.PlayerSpec{ID: p.ID, Name: p.Name})
	}
	bc := &events.BranchCreated{Parent: req.Parent, At: c.At, Name: c.Name}
	var toks map[string]string
	if len(c.Keys) > 0 {
		if bc.Keys, err = checkKeys(c.Keys, players); err != nil {
			return api.CreateResult{}, err
		}
	} else {
		if toks, err = r.tokens(id, roles(players), req.Secret); err != nil {
			return api.CreateResult{}, err
		}
		bc.Tokens = hashTokens(toks)
	}
	m := r.entry(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := r.st.Head(ctx, id); err == nil {
		return r.branchedBefore(ctx, id, c.At, bc, cr.auth, toks)
	}
	epoch := 0
	for _, dc := range s.Dice.Commits {
		epoch = max(epoch, dc.Epoch+1)
	}
	commit, err := r.commitSeed(ctx, id, epoch, dice.SchemeV2) // a branch's participants bring keys, no VRF keys
	if err != nil {
		return api.CreateResult{}, err
	}
	now := r.opts.Clock().UnixNano()
	system := events.Actor{Kind: events.ActorSystem}
	e1, err := events.NewAuthed(id, s.Seq+1, s.Head, now, system, bc, cr.auth)
	if err != nil {
		return api.CreateResult{}, err
	}
	e2, err := events.New(id, s.Seq+2, e1.Hash, now, system, commit)
	if err != nil {
		return api.CreateResult{}, err
	}
	if err := r.appendBranch(ctx, br, id, req.Parent, c.At, []events.Event{e1, e2}); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Made meanwhile (by another recorder of a cluster, whose
			// events the store now has): this request's retry, or a
			// conflict.
			return r.branchedBefore(ctx, id, c.At, bc, cr.auth, toks)
		}
		return api.CreateResult{}, fmt.Errorf("branch %s of %s at %d: %w", id, req.Parent, c.At, err)
	}
	s.Match = id
	if err := projector.ApplyDecoded(rules, s, &e1, bc); err != nil {
		return api.CreateResult{}, err
	}
	if err := projector.ApplyDecoded(rules, s, &e2, commit); err != nil {
		return api.CreateResult{}, err
	}
	m.rules, m.state = rules, s
	r.opts.Log.Info().Str("match", id).Str("parent", req.Parent).Uint64("at", c.At).Str("by", cr.actor.String()).Msg("branch created")
	return api.CreateResult{Match: id, Tokens: toks, Keys: bc.Keys, Seq: e2.Seq, Receipt: r.receipt(ctx, id, e2)}, nil
}

// appendBranch records a new branch's first events: on one machine the
// store keeps the pointer (store.Brancher); in a cluster they go through
// the stream like any append, on the branch's own subject, and every
// recorder's store keeps the pointer when its follower meets the
// branch.created (store/bolt).
func (r *Recorder) appendBranch(ctx context.Context, br store.Brancher, id, parent string, at uint64, evs []events.Event) error {
	if _, single := r.opts.Appender.(storeAppender); single {
		return br.Branch(ctx, id, parent, at, evs)
	}
	return r.opts.Appender.Append(ctx, id, at, evs, nil, nil)
}

// wholeCommand refuses a fork inside a command: when the parent's event
// at is not the last its command recorded (a command can record several
// events: an 11e phase change and its shooting step), the state after it
// is one no participant saw, and the branch would hold part of a command
// its audit re-decides whole (redecided). The fork is the head after a
// command, as a player sees it.
func (r *Recorder) wholeCommand(ctx context.Context, parent string, at uint64) error {
	var first *events.Auth
	last := at
	err := r.st.Scan(ctx, parent, at, func(e events.Event) error {
		if e.Seq == at {
			first = e.Auth
			return nil
		}
		if !e.Auth.Same(first) {
			return events.ErrStop
		}
		last = e.Seq
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return fmt.Errorf("branch of %s at %d: %w", parent, at, err)
	}
	if last != at {
		return api.Errorf(projector.CodeBadRequest, "event %d of %s is inside a command that recorded events up to %d: branch at %d, or before the command", at, parent, last, last)
	}
	return nil
}

// branchCredential checks the credential of a participant of the parent
// (s: the parent at the fork) and returns the branch command it states. A
// signed parent needs a statement whose head is the fork event; a token
// parent a token, from which the statement is written.
func (r *Recorder) branchCredential(s *projector.State, req api.BranchRequest) (credential, error) {
	if req.Statement != nil {
		cr, err := signedCredential(s, req.Parent, req.Statement, req.Signature)
		if err != nil {
			return credential{}, err
		}
		if cr.cmd.Type != projector.CmdBranch {
			return credential{}, api.Errorf(projector.CodeBadRequest, "the statement's command is %q, not branch", cr.cmd.Type)
		}
		if err := checkHead(s, cr.statement); err != nil {
			return credential{}, err
		}
		return cr, nil
	}
	c := projector.Command{Type: projector.CmdBranch, At: req.At, Match: req.Match, Name: req.Name, Keys: req.Keys}
	head := &store.Head{Seq: s.Seq, Hash: s.Head}
	return tokenCredential(s, req.Token, req.RequestID, head, c, r.nonce)
}

// branchedBefore answers a branch request for a branch that exists: the
// original result when it was made by this very request (its
// branch.created is the one this request would record), else a conflict.
func (r *Recorder) branchedBefore(ctx context.Context, id string, at uint64, bc *events.BranchCreated, au *events.Auth, toks map[string]string) (api.CreateResult, error) {
	want, err := events.EncodePayload(bc)
	if err != nil {
		return api.CreateResult{}, err
	}
	evs, err := r.span(ctx, id, at+1, at+2)
	if err != nil {
		return api.CreateResult{}, fmt.Errorf("branch %s: %w", id, err)
	}
	created, commit := evs[0], evs[1]
	same := created.Type == events.TypeBranchCreated && bytes.Equal(created.Payload, want) &&
		created.Auth != nil && bytes.Equal(created.Auth.Statement, au.Statement)
	if !same {
		return api.CreateResult{}, fmt.Errorf("match %s already exists: %w", id, store.ErrConflict)
	}
	return api.CreateResult{Match: id, Tokens: toks, Keys: bc.Keys, Seq: commit.Seq, Receipt: r.receipt(ctx, id, commit), Replayed: true}, nil
}

// Lineage returns a match's chain of parents (store.Brancher), or a
// one-element lineage for a match that is no branch.
func (r *Recorder) Lineage(ctx context.Context, id string) ([]events.BranchPoint, error) {
	br, ok := r.st.(store.Brancher)
	if !ok {
		if _, err := r.st.Head(ctx, id); err != nil {
			return nil, err
		}
		return []events.BranchPoint{{Match: id}}, nil
	}
	lin, err := br.Lineage(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("match %s: %w", id, err)
	}
	return lin, err
}
