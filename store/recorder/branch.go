package recorder

import (
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Branch creates a branch: its history is the parent's events 1..At, kept
// as a pointer by the store, followed by a branch.created event with fresh
// tokens for every role and a fresh dice commitment, so the branch's
// digital dice are its own.
func (r *Recorder) Branch(ctx context.Context, req api.BranchRequest) (api.CreateResult, error) {
	br, ok := r.st.(store.Brancher)
	if !ok {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "this store cannot keep branches")
	}
	id := req.Match
	if id == "" {
		id = r.opts.NewID()
	}
	if !events.ValidMatchID(id) || !events.ValidMatchID(req.Parent) {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "match ids must be 1-64 letters, digits, '-' or '_'")
	}
	if req.At == 0 {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "branch at which event? (--at SEQ, 1 or more)")
	}
	m := r.entry(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := r.st.Head(ctx, id); err == nil {
		return api.CreateResult{}, fmt.Errorf("match %s already exists: %w", id, store.ErrConflict)
	}
	s, rules, err := fold.Fold(ctx, r.st, req.Parent, req.At, r.RulesFor)
	if err != nil {
		return api.CreateResult{}, err
	}
	tokens := map[string]string{}
	hashes := map[string]string{}
	for _, pl := range s.Players {
		tokens[api.RolePlayer(pl.ID)] = randomHex(16)
	}
	tokens[api.RoleJudge] = randomHex(16)
	for role, tok := range tokens {
		hashes[role] = TokenHash(tok)
	}
	epoch := 0
	for _, c := range s.Dice.Commits {
		epoch = max(epoch, c.Epoch+1)
	}
	commit, err := r.commitSeed(ctx, id, epoch)
	if err != nil {
		return api.CreateResult{}, err
	}
	payloads := []events.Payload{&events.BranchCreated{Parent: req.Parent, At: req.At, Name: req.Name, Tokens: hashes}, commit}
	now := r.opts.Clock().UnixNano()
	system := events.Actor{Kind: events.ActorSystem}
	evs := make([]events.Event, 0, len(payloads))
	prev, seq := s.Head, s.Seq
	for _, p := range payloads {
		seq++
		e, err := events.New(id, seq, prev, now, system, p)
		if err != nil {
			return api.CreateResult{}, err
		}
		evs, prev = append(evs, e), e.Hash
	}
	if err := br.Branch(ctx, id, req.Parent, req.At, evs); err != nil {
		return api.CreateResult{}, fmt.Errorf("branch %s of %s at %d: %w", id, req.Parent, req.At, err)
	}
	s.Match = id
	for i := range evs {
		if err := projector.ApplyDecoded(rules, s, &evs[i], payloads[i]); err != nil {
			return api.CreateResult{}, err
		}
	}
	m.rules, m.state = rules, s
	r.opts.Log.Info().Str("match", id).Str("parent", req.Parent).Uint64("at", req.At).Msg("branch created")
	return api.CreateResult{Match: id, Tokens: tokens, Seq: seq}, nil
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
