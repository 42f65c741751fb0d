// Package recorder is the write side of matchrec, the service around the
// decider: for each command it checks the caller's token, loads the
// match's live state, asks the edition to decide (projector.Decide), and
// appends the resulting events to the store; it folds them into the live
// state it keeps (projector/fold for a cold start). Publishing happens
// after the commit, from the store's outbox (see store/natsbus.Relay), so
// an acknowledged event is never lost to a bus outage.
//
// It serves its own API verbs (verbs.go: ping, create, declare, roll,
// branch, state, matches), with the request and result types of store/api
// and errors built with their code where they arise (api.Errorf).
package recorder

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Options configure a Recorder.
type Options struct {
	// Clock gives recording times; injected so tests are repeatable.
	Clock func() time.Time
	// Rules looks an edition up by id.
	Rules func(edition string) (projector.Rules, error)
	Log   zerolog.Logger
	// NewID makes match ids; default 12 random hex digits.
	NewID func() string
}

// Store is what a recorder needs of a store: the event log, and a durable
// place for the secret dice seeds that Create and Branch commit to
// (docs/dice.md). store/bolt and store/mem are both.
type Store interface {
	store.Store
	store.Secrets
}

// Recorder records commands as events.
type Recorder struct {
	st    Store
	opts  Options
	mu    sync.Mutex
	live  map[string]*match
	limit int
}

type match struct {
	mu    sync.Mutex
	rules projector.Rules
	state *projector.State // nil until loaded
	// seed is the current epoch's dice seed, checked against seedCommit.
	seed       []byte
	seedCommit string
}

// New returns a Recorder on st.
func New(st Store, opts Options) *Recorder {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = func() string { return randomHex(6) }
	}
	return &Recorder{st: st, opts: opts, live: map[string]*match{}, limit: 4096}
}

// Store returns the recorder's store.
func (r *Recorder) Store() store.Store { return r.st }

// RulesFor returns the edition rules by id.
func (r *Recorder) RulesFor(edition string) (projector.Rules, error) {
	if r.opts.Rules == nil {
		return nil, errors.New("recorder: no editions configured (Options.Rules)")
	}
	return r.opts.Rules(edition)
}

// Create records a new match.
func (r *Recorder) Create(ctx context.Context, req api.CreateRequest) (api.CreateResult, error) {
	id := req.Match
	if id == "" {
		id = r.opts.NewID()
	}
	if !events.ValidMatchID(id) {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "match id %q must be 1-64 letters, digits, '-' or '_'", id)
	}
	rules, err := r.RulesFor(req.Edition)
	if err != nil {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	// The setup is decided like every command: the common checks and the
	// edition's own (projector.SetupChecker). The recorder adds only the
	// tokens before and the dice commitment after.
	setup := req.MatchCreated
	tokens := map[string]string{}
	setup.Tokens = map[string]string{}
	for _, pl := range setup.Players {
		tokens[api.RolePlayer(pl.ID)] = randomHex(16)
	}
	tokens[api.RoleJudge] = randomHex(16)
	for role, tok := range tokens {
		setup.Tokens[role] = TokenHash(tok)
	}
	system := events.Actor{Kind: events.ActorSystem}
	created, err := projector.Decide(rules, projector.New(id), system, projector.Command{Type: projector.CmdCreate, Setup: &setup})
	if err != nil {
		return api.CreateResult{}, err
	}
	p := created[0]
	m := r.entry(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	// Check first: a new seed must never overwrite an existing match's.
	if _, err := r.st.Head(ctx, id); err == nil {
		return api.CreateResult{}, fmt.Errorf("match %s already exists: %w", id, store.ErrConflict)
	} else if !errors.Is(err, store.ErrNotFound) {
		return api.CreateResult{}, fmt.Errorf("create match %s: %w", id, err)
	}
	commit, err := r.commitSeed(ctx, id, 0)
	if err != nil {
		return api.CreateResult{}, err
	}
	now := r.opts.Clock().UnixNano()
	e, err := events.New(id, 1, events.Hash{}, now, system, p)
	if err != nil {
		return api.CreateResult{}, err
	}
	e2, err := events.New(id, 2, e.Hash, now, system, commit)
	if err != nil {
		return api.CreateResult{}, err
	}
	if err := r.st.Append(ctx, id, 0, []events.Event{e, e2}); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return api.CreateResult{}, fmt.Errorf("match %s already exists: %w", id, err)
		}
		return api.CreateResult{}, fmt.Errorf("create match %s: %w", id, err)
	}
	st := projector.New(id)
	if err := projector.ApplyDecoded(rules, st, &e, p); err != nil {
		return api.CreateResult{}, err
	}
	if err := projector.ApplyDecoded(rules, st, &e2, commit); err != nil {
		return api.CreateResult{}, err
	}
	m.rules, m.state = rules, st
	r.opts.Log.Info().Str("match", id).Str("edition", rules.Edition()).Msg("match created")
	return api.CreateResult{Match: id, Tokens: tokens, Seq: 2}, nil
}

// TokenHash is the recorded form of a token.
func TokenHash(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// Actor resolves a token to the actor it speaks for in the match s.
func Actor(s *projector.State, token string) (events.Actor, error) {
	if token == "" {
		return events.Actor{}, api.Errorf(projector.CodeUnauthorized, "this call needs a token of match %s", s.Match)
	}
	h := TokenHash(token)
	for role, want := range s.Tokens {
		if want != h {
			continue
		}
		if role == api.RoleJudge {
			return events.Actor{Kind: events.ActorJudge, ID: api.RoleJudge}, nil
		}
		if len(role) > 7 && role[:7] == "player:" {
			return events.Actor{Kind: events.ActorPlayer, ID: role[7:]}, nil
		}
	}
	return events.Actor{}, api.Errorf(projector.CodeUnauthorized, "the token is not valid for match %s", s.Match)
}

// Execute decides a command for the actor the token speaks for, records the
// resulting events and returns them with the new pending step. A refusal
// (*projector.Refusal) records nothing.
func (r *Recorder) Execute(ctx context.Context, matchID, token string, c projector.Command) (api.Result, error) {
	m, err := r.load(ctx, matchID)
	if err != nil {
		return api.Result{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for attempt := 0; ; attempt++ {
		res, err := r.execute(ctx, m, matchID, token, c)
		if errors.Is(err, store.ErrConflict) && attempt == 0 {
			// Another writer moved the match on: reload and decide again.
			m.state = nil
			if err := r.fold(ctx, m, matchID); err != nil {
				return api.Result{}, err
			}
			continue
		}
		return res, err
	}
}

func (r *Recorder) execute(ctx context.Context, m *match, matchID, token string, c projector.Command) (api.Result, error) {
	s := m.state
	actor, err := Actor(s, token)
	if err != nil {
		return api.Result{}, err
	}
	c.Source = events.SourceManual
	if c.Type == projector.CmdRoll && c.Digital {
		if len(c.Values) > 0 {
			return api.Result{}, projector.Refuse(projector.CodeBadDice, "a digital roll takes no values")
		}
		if s.Pending.Kind == projector.WaitRoll && s.Pending.Dice > 0 {
			vals, err := r.digital(ctx, m, s, s.Pending.Dice)
			if err != nil {
				return api.Result{}, err
			}
			c.Values, c.Source = vals, events.SourceDigital
		}
	}
	var payloads []events.Payload
	if c.Type == projector.CmdReveal && actor.Kind == events.ActorJudge {
		payloads, err = r.reveal(ctx, m, s, false)
	} else {
		payloads, err = projector.DecideWith(m.rules, s, actor, c, r.history(ctx, matchID, projector.Vocabulary(m.rules)))
	}
	if err != nil {
		return api.Result{}, err
	}
	if ended(payloads) {
		// The match is over: reveal the seed so every digital die can be checked.
		more, err := r.reveal(ctx, m, s, true)
		if err != nil {
			return api.Result{}, err
		}
		payloads = append(payloads, more...)
	}
	if len(payloads) == 0 {
		return api.Result{}, projector.Refuse(projector.CodeBadCommand, "command %q changes nothing", c.Type)
	}
	now := r.opts.Clock().UnixNano()
	evs := make([]events.Event, 0, len(payloads))
	prev, seq := s.Head, s.Seq
	for _, p := range payloads {
		seq++
		e, err := events.New(matchID, seq, prev, now, actor, p)
		if err != nil {
			return api.Result{}, err
		}
		evs = append(evs, e)
		prev = e.Hash
	}
	if err := r.st.Append(ctx, matchID, s.Seq, evs); err != nil {
		return api.Result{}, fmt.Errorf("append to match %s: %w", matchID, err)
	}
	res := api.Result{Match: matchID}
	if needsRefold(payloads) {
		// A ruling changes how earlier events read: fold the match again,
		// as ruled, rather than patching the live state.
		if err := r.fold(ctx, m, matchID); err != nil {
			m.state = nil
			return api.Result{}, err
		}
		for i := range evs {
			res.Events = append(res.Events, api.EventRef{Seq: evs[i].Seq, Type: evs[i].Type, Hash: evs[i].Hash})
		}
		res.Pending = m.state.Pending
		return res, nil
	}
	for i := range evs {
		if err := projector.ApplyDecoded(m.rules, s, &evs[i], payloads[i]); err != nil {
			// Decide produced an event its own Evolve cannot fold: a bug
			// in the edition. The event is stored; drop the cache so the
			// next call re-folds (and fails loudly) instead of drifting.
			m.state = nil
			r.opts.Log.Error().Err(err).Str("match", matchID).Msg("recorded event does not fold")
			return api.Result{}, fmt.Errorf("recorded event does not fold: %w", err)
		}
		res.Events = append(res.Events, api.EventRef{Seq: evs[i].Seq, Type: evs[i].Type, Hash: evs[i].Hash})
	}
	res.Pending = s.Pending
	return res, nil
}

// entry returns the cache entry of a match, creating it.
func (r *Recorder) entry(id string) *match {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.live[id]
	if m == nil {
		if len(r.live) >= r.limit {
			for k := range r.live { // evict one arbitrary entry; it reloads on demand
				delete(r.live, k)
				break
			}
		}
		m = &match{}
		r.live[id] = m
	}
	return m
}

func (r *Recorder) load(ctx context.Context, id string) (*match, error) {
	if !events.ValidMatchID(id) {
		return nil, api.Errorf(projector.CodeBadRequest, "%q is not a match id", id)
	}
	m := r.entry(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != nil {
		return m, nil
	}
	return m, r.fold(ctx, m, id)
}

// fold rebuilds m's state from the store; m.mu must be held.
func (r *Recorder) fold(ctx context.Context, m *match, id string) error {
	s, rules, err := fold.Fold(ctx, r.st, id, 0, r.RulesFor)
	if err != nil {
		return err
	}
	m.state, m.rules = s, rules
	return nil
}

// State returns the match's state after event at (0 = now), as ruled.
// The caller owns what it gets: the live state is cloned, an earlier one is
// folded from the nearest verified snapshot (fold.Seeker).
func (r *Recorder) State(ctx context.Context, id string, at uint64) (*projector.State, error) {
	if at == 0 {
		return r.Live(ctx, id)
	}
	k := &fold.Seeker{Log: r.st, Lookup: r.RulesFor}
	return k.StateAt(ctx, id, at)
}

// Live returns a copy of the recorder's live state of a match: the state
// every command is decided against. Tests compare it with a fresh fold
// (replay equals live); the audit compares its hash with one.
func (r *Recorder) Live(ctx context.Context, id string) (*projector.State, error) {
	m, err := r.load(ctx, id)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == nil {
		return nil, fmt.Errorf("match %s has no live state", id)
	}
	return m.state.Clone(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS has no entropy: nothing sensible to do
	}
	return hex.EncodeToString(b)
}
