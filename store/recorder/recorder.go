// Package recorder is the write side of matchrec, the service around the
// decider: for each command it checks the caller's token, loads the
// match's live state, asks the edition to decide (projector.Decide), and
// appends the resulting events to the store; it folds them into the live
// state it keeps (projector/fold for a cold start). Publishing happens
// after the commit, from the store's outbox (see store/natsbus.Relay), so
// an acknowledged event is never lost to a bus outage. In a cluster the
// append goes through the replicated stream first (Options.Appender,
// appender.go; docs/cluster.md).
//
// It serves its own API verbs (verbs.go: ping, create, declare, roll,
// branch, state, matches), with the request and result types of store/api
// and errors built with their code where they arise (api.Errorf).
package recorder

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/identity"
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
	// Identity signs the receipts of every reply that records events
	// (docs/bundle.md); default a fresh key held in memory only (tests).
	Identity *identity.Identity
	// Rand is where the recorder's secrets and ids come from: dice seeds,
	// match ids, tokens and the nonces of token commands sent without a
	// request id. Default crypto/rand.Reader. Only a test sets it: with a
	// fixed Clock and a fixed Rand, a golden match is recorded again byte
	// for byte (testdata/golden); anywhere else it would let whoever
	// knows the stream predict the dice.
	Rand io.Reader
	// Recorded, when set, is told the events each command appended, with
	// the payloads decided for them, right after the append, in order
	// within a match (the match is locked). It must not block: the
	// analytics' live consumer takes them (analytics.Service.Recorded),
	// so the tables follow without reading or decoding anything again.
	Recorded func(evs []events.Event, payloads []events.Payload)
	// Appender writes decided events (appender.go); default the store
	// itself (one machine). A cluster recorder passes natsbus.Cluster.
	Appender Appender
	// Secrets keeps the dice seeds; default the store. A cluster
	// recorder passes natsbus.ClusterSecrets, which every recorder reads.
	Secrets store.Secrets
	// Venue is the venue this recorder records for (docs/cluster.md,
	// "Venues"): new match ids are <venue>-<12 hex digits>, and a
	// requested one must be in that namespace ("": no venue).
	Venue string
	// Elsewhere, when set, says a match is another recorder's to write
	// (a hub's: a venue's match, which its archive brought), and whose:
	// every command, branch and create for it is refused (other_venue),
	// so a match has one writer.
	Elsewhere func(ctx context.Context, match string) (venue string, ok bool)
	// Ping, when set, completes ping's answer (a cluster recorder: the
	// cluster's registered recorders and the NATS node it is on).
	Ping func(ctx context.Context, p *api.PingResult)
}

// Store is what a recorder needs of a store: the event log, a durable
// place for the secret dice seeds that Create and Branch commit to
// (docs/dice.md), and the index of recorded commands that makes a retried
// command safe. store/bolt and store/mem are all three.
type Store interface {
	store.Store
	store.Secrets
	store.Requests
}

// Recorder records commands as events.
type Recorder struct {
	st     Store
	opts   Options
	mu     sync.Mutex
	live   map[string]*match
	limit  int
	states *fold.States // decoded snapshots, shared by every seek on st
}

type match struct {
	mu    sync.Mutex
	rules projector.Rules
	state *projector.State // nil until loaded
	// seed is the current epoch's dice seed, checked against seedCommit.
	seed       []byte
	seedCommit string
	// moved is the head a cluster's follower has brought the store to
	// (Moved); a live state behind it is stale.
	moved atomic.Uint64
}

// New returns a Recorder on st.
func New(st Store, opts Options) *Recorder {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.Identity == nil {
		k, err := auth.GenerateKey("", "recorder")
		if err != nil {
			panic(fmt.Sprintf("recorder identity: %v", err)) // crypto/rand failed: nothing sensible to do
		}
		opts.Identity = identity.FromKey(k)
	}
	if opts.Appender == nil {
		opts.Appender = storeAppender{st}
	}
	if opts.Secrets == nil {
		opts.Secrets = st
	}
	r := &Recorder{st: st, opts: opts, live: map[string]*match{}, limit: 4096, states: &fold.States{}}
	if opts.NewID == nil {
		r.opts.NewID = func() string { return r.randomHex(6) }
	}
	if v := opts.Venue; v != "" {
		newID := r.opts.NewID
		r.opts.NewID = func() string { return v + "-" + newID() }
	}
	return r
}

// Identity is the recorder's identity: its receipts' key.
func (r *Recorder) Identity() *identity.Identity { return r.opts.Identity }

// Store returns the recorder's store.
func (r *Recorder) Store() store.Store { return r.st }

// Seeker seeks in the recorder's store, sharing the snapshot states every
// seek of the process decoded (fold.States).
func (r *Recorder) Seeker() *fold.Seeker {
	return &fold.Seeker{Log: r.st, Lookup: r.RulesFor, States: r.states}
}

// RulesFor returns the edition rules by id.
func (r *Recorder) RulesFor(edition string) (projector.Rules, error) {
	if r.opts.Rules == nil {
		return nil, errors.New("recorder: no editions configured (Options.Rules)")
	}
	return r.opts.Rules(edition)
}

// Create records a new match: match.created (with its participants'
// token hashes, or their public keys for a signed match) and the dice
// commitment of epoch 0. A retry of a create that was recorded returns the
// original result (see CreateRequest).
func (r *Recorder) Create(ctx context.Context, req api.CreateRequest) (api.CreateResult, error) {
	id, err := r.newMatchID(ctx, req.Match)
	if err != nil {
		return api.CreateResult{}, err
	}
	rules, err := r.RulesFor(req.Edition)
	if err != nil {
		return api.CreateResult{}, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	// The setup is decided like every command: the common checks and the
	// edition's own (projector.SetupChecker). The recorder adds only the
	// tokens (or checks the keys of a signed match) before and the dice
	// commitment after.
	setup := req.MatchCreated
	var toks map[string]string
	setup.Tokens = nil
	scheme := dice.SchemeV2
	if len(setup.Joins) > 0 {
		// Its participants join with keys of their own (docs/events.md),
		// and its dice are scheme 3's: contributed by every player.
		if setup.Joins, err = checkJoins(setup.Joins, setup.Keys, setup.Players); err != nil {
			return api.CreateResult{}, err
		}
		scheme = dice.SchemeV3
	} else if len(setup.Keys) > 0 {
		if setup.Keys, err = checkKeys(setup.Keys, setup.Players); err != nil {
			return api.CreateResult{}, err
		}
	} else {
		if toks, err = r.tokens(id, roles(setup.Players), req.Secret); err != nil {
			return api.CreateResult{}, err
		}
		setup.Tokens = hashTokens(toks)
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
		return r.createdBefore(ctx, id, p, toks)
	} else if !errors.Is(err, store.ErrNotFound) {
		return api.CreateResult{}, fmt.Errorf("create match %s: %w", id, err)
	}
	commit, err := r.commitSeed(ctx, id, 0, scheme)
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
	lg, err := r.append(ctx, id, 0, []events.Event{e, e2}, nil, nil)
	if err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Created meanwhile (by another recorder of a cluster, whose
			// events the store now has): the same request's retry, or a
			// conflict.
			return r.createdBefore(ctx, id, p, toks)
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
	r.opts.Log.Info().Str("match", id).Str("edition", rules.Edition()).Bool("signed", len(setup.Keys)+len(setup.Joins) > 0).Msg("match created")
	return api.CreateResult{Match: id, Tokens: toks, Keys: setup.Keys, Seq: 2, Receipt: r.appendedReceipt(ctx, id, e2, lg)}, nil
}

// newMatchID is the id a create or a branch records: the one asked for
// (in this venue's namespace, if the recorder is a venue's), or a new one.
func (r *Recorder) newMatchID(ctx context.Context, id string) (string, error) {
	if id == "" {
		return r.opts.NewID(), nil
	}
	if !events.ValidMatchID(id) {
		return "", api.Errorf(projector.CodeBadRequest, "match id %q must be 1-64 letters, digits, '-' or '_'", id)
	}
	if v := r.opts.Venue; v != "" && !strings.HasPrefix(id, v+"-") {
		return "", api.Errorf(projector.CodeBadRequest, "match id %q: the matches of venue %s are named %s-..., so that no other venue's can have the same id", id, v, v)
	}
	return id, r.writable(ctx, id)
}

// writable refuses a match another recorder writes (Options.Elsewhere).
func (r *Recorder) writable(ctx context.Context, match string) error {
	if r.opts.Elsewhere == nil {
		return nil
	}
	if v, ok := r.opts.Elsewhere(ctx, match); ok {
		return api.Errorf(projector.CodeOtherVenue, "match %s is recorded at venue %s, and written there only: send its commands to that venue's recorder (docs/cluster.md)", match, v)
	}
	return nil
}

// createdBefore answers a create for a match that exists: the original
// result when its match.created is exactly the one this request would
// record (a signed match's same setup and keys; a token match's tokens
// derived from the same secret), else a conflict.
func (r *Recorder) createdBefore(ctx context.Context, id string, p events.Payload, toks map[string]string) (api.CreateResult, error) {
	mc, ok := p.(*events.MatchCreated)
	if !ok {
		return api.CreateResult{}, fmt.Errorf("create match %s: decided %s, not match.created", id, p.EventType())
	}
	want, err := events.EncodePayload(mc)
	if err != nil {
		return api.CreateResult{}, err
	}
	evs, err := r.span(ctx, id, 1, 2)
	if err != nil {
		return api.CreateResult{}, fmt.Errorf("create match %s: %w", id, err)
	}
	if evs[0].Type != events.TypeMatchCreated || !bytes.Equal(evs[0].Payload, want) {
		return api.CreateResult{}, fmt.Errorf("match %s already exists: %w", id, store.ErrConflict)
	}
	return api.CreateResult{Match: id, Tokens: toks, Keys: mc.Keys, Seq: 2, Receipt: r.receipt(ctx, id, evs[1]), Replayed: true}, nil
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
	h := []byte(TokenHash(token))
	for role, want := range s.Tokens {
		// In constant time: how long a comparison takes says nothing about
		// how much of a guess was right.
		if subtle.ConstantTimeCompare([]byte(want), h) != 1 {
			continue
		}
		if a, ok := events.ActorOf(role); ok {
			return a, nil
		}
	}
	return events.Actor{}, api.Errorf(projector.CodeUnauthorized, "the token is not valid for match %s", s.Match)
}

// Execute decides a command for the actor the token speaks for, records the
// resulting events and returns them with the new pending step. A refusal
// (*projector.Refusal) records nothing. It is Submit for a token match
// with no request id.
func (r *Recorder) Execute(ctx context.Context, matchID, token string, c projector.Command) (api.Result, error) {
	return r.Submit(ctx, api.ExecuteRequest{Match: matchID, Token: token, Command: &c})
}

// Submit records a command (docs/events.md, "Sending commands"): it checks
// the credential — a signed statement, or a token — and the head the
// command was decided against, answers a request it recorded before from
// the request index, decides the command and appends the events with the
// statement, and signs a receipt of the new head.
func (r *Recorder) Submit(ctx context.Context, req api.ExecuteRequest) (api.Result, error) {
	if err := r.writable(ctx, req.Match); err != nil {
		return api.Result{}, err
	}
	m, err := r.load(ctx, req.Match)
	if err != nil {
		return api.Result{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := r.refresh(ctx, m, req.Match); err != nil {
		return api.Result{}, err
	}
	for attempt := 1; ; attempt++ {
		res, err := r.submit(ctx, m, req)
		if err == nil {
			return res, nil
		}
		again := errors.Is(err, store.ErrConflict)
		if !again && attempt == 1 && !errors.Is(err, store.ErrUnavailable) && r.behind(ctx, m, req.Match) {
			// Refused on a copy behind the cluster: decide again on the
			// head the follower has brought.
			again = true
		}
		if !again {
			return res, err
		}
		if attempt == maxDecisions || ctx.Err() != nil {
			return api.Result{}, outraced(req.Match, attempt, err)
		}
		// Another writer moved the match on (and the store has caught up):
		// fold what it recorded and decide again. The request index then
		// answers a request the other writer recorded (replayed), the
		// head check refuses a command that named the old head
		// (stale_head), and a command sent without a head is decided on
		// the new one.
		m.state = nil
		if err := r.fold(ctx, m, req.Match); err != nil {
			return api.Result{}, err
		}
	}
}

// maxDecisions bounds how often one command is decided again after
// another recorder of the cluster moved its match first. Each round the
// winner's events are folded in first, so a command loses again only to
// yet another new event: a match is played by two players and a judge,
// and eight rounds lost in a row mean the match is hammered by a script.
const maxDecisions = 8

// outraced is the answer to a command that kept losing the race for its
// match's next event: unavailable (nothing recorded; resend it, with its
// request id), never the raw conflict, which would leave the caller
// unsure whether it was recorded (docs/cluster.md).
func outraced(match string, attempts int, err error) error {
	return api.Errorf(projector.CodeUnavailable, "match %s moved on %d times while this command was decided (%v); nothing was recorded for it: send it again",
		match, attempts, err)
}

func (r *Recorder) submit(ctx context.Context, m *match, req api.ExecuteRequest) (api.Result, error) {
	s := m.state
	var (
		cr  credential
		err error
	)
	if req.Statement != nil {
		if req.Token != "" || req.Command != nil || req.RequestID != "" || req.Head != nil {
			return api.Result{}, api.Errorf(projector.CodeBadRequest, "a signed request is its statement and signature alone")
		}
		cr, err = signedCredential(s, req.Match, req.Statement, req.Signature)
	} else {
		c := projector.Command{}
		if req.Command != nil {
			c = *req.Command
		}
		cr, err = tokenCredential(s, req.Token, req.RequestID, req.Head, c, r.nonce)
	}
	if err != nil {
		return api.Result{}, err
	}
	key := cr.statement.Key()
	if cr.known {
		if res, done, err := r.recordedBefore(ctx, s, key, cr); done {
			return res, err
		}
	}
	if cr.statement.HeadSeq > s.Seq && r.reach(ctx, s.Match, cr.statement.HeadSeq) {
		// Decided at a head another recorder of the cluster recorded,
		// which this one's store now has: fold it in and decide again.
		return api.Result{}, fmt.Errorf("%w: match %s moved to event %d on another recorder", store.ErrConflict, s.Match, cr.statement.HeadSeq)
	}
	if err := checkHead(s, cr.statement); err != nil {
		return api.Result{}, err
	}
	actor, c := cr.actor, cr.cmd
	c.Source = events.SourceManual
	if c.Type == projector.CmdRoll && c.Digital {
		if len(c.Values) > 0 {
			return api.Result{}, projector.Refuse(projector.CodeBadDice, "a digital roll takes no values")
		}
		// Scheme 3: the command asks for the dice (dice.requested); they
		// are drawn when every contribution is in (complete).
		if cur := s.Dice.Current(); s.Pending.Kind == projector.WaitRoll && s.Pending.Dice > 0 && (cur == nil || !cur.V3()) {
			if err := s.DigitalReady(); err != nil {
				return api.Result{}, err
			}
			vals, err := r.digital(ctx, m, s, s.Pending.Dice)
			if err != nil {
				return api.Result{}, err
			}
			c.Values, c.Source = vals, events.SourceDigital
		}
	}
	payloads, err := projector.DecideWith(m.rules, s, actor, c, r.history(ctx, s.Match, projector.Vocabulary(m.rules)))
	if err != nil {
		return api.Result{}, err
	}
	if len(payloads) == 0 {
		return api.Result{}, projector.Refuse(projector.CodeBadCommand, "command %q changes nothing", c.Type)
	}
	// The recorder's own events for the command: the reveal of every open
	// epoch when the match ends, the reveal and the next epoch when the
	// judge asks, its own contribution when the command completes a
	// requested roll — and then the roll itself, the roller's (complete).
	var system []events.Payload
	var done completion
	if done, err = r.complete(ctx, m, s, payloads); err != nil {
		return api.Result{}, err
	}
	switch {
	case ended(payloads):
		if system, err = r.revealAll(ctx, m, s); err != nil {
			return api.Result{}, err
		}
	case revealRequested(payloads):
		if system, err = r.reveal(ctx, m, s); err != nil {
			return api.Result{}, err
		}
	}
	system = append(system, done.system...)
	now := r.opts.Clock().UnixNano()
	evs := make([]events.Event, 0, len(payloads)+len(system))
	prev, seq := s.Head, s.Seq
	add := func(a events.Actor, p events.Payload, au *events.Auth) error {
		seq++
		e, err := events.NewAuthed(s.Match, seq, prev, now, a, p, au)
		if err != nil {
			return err
		}
		evs, prev = append(evs, e), e.Hash
		return nil
	}
	for _, p := range payloads {
		if err := add(actor, p, cr.auth); err != nil {
			return api.Result{}, err
		}
	}
	for _, p := range system {
		if err := add(events.Actor{Kind: events.ActorSystem}, p, nil); err != nil {
			return api.Result{}, err
		}
	}
	for _, p := range done.roll {
		if err := add(done.roller, p, done.auth); err != nil {
			return api.Result{}, err
		}
	}
	entry := store.Request{Statement: auth.Sum(cr.auth.Statement), First: evs[0].Seq, Last: evs[len(evs)-1].Seq}
	lg, err := r.append(ctx, s.Match, s.Seq, evs, key, &entry)
	if err != nil {
		if errors.Is(err, store.ErrDuplicate) {
			return api.Result{}, api.Errorf(projector.CodeNonceReused, "request %s of %s was recorded already", hex.EncodeToString(cr.statement.Nonce[:]), cr.statement.Role)
		}
		return api.Result{}, fmt.Errorf("append to match %s: %w", s.Match, err)
	}
	all := append(append(payloads, system...), done.roll...)
	res := api.Result{Match: s.Match, Receipt: r.appendedReceipt(ctx, s.Match, evs[len(evs)-1], lg), Request: hex.EncodeToString(cr.statement.Nonce[:])}
	r.proveFrom(ctx, res.Receipt, req.LogFrom)
	for i := range evs {
		res.Events = append(res.Events, api.EventRef{Seq: evs[i].Seq, Type: evs[i].Type, Hash: evs[i].Hash})
	}
	if r.opts.Recorded != nil {
		r.opts.Recorded(evs, all)
	}
	if needsRefold(payloads) {
		// A ruling changes how earlier events read: fold the match again,
		// as ruled, rather than patching the live state.
		if err := r.fold(ctx, m, s.Match); err != nil {
			m.state = nil
			return api.Result{}, err
		}
		res.Pending = m.state.Pending
		r.keepSnapshot(s.Match, evs[0].Seq-1, m.state)
		return res, nil
	}
	for i := range evs {
		if err := projector.ApplyDecoded(m.rules, s, &evs[i], all[i]); err != nil {
			// Decide produced an event its own Evolve cannot fold: a bug
			// in the edition. The event is stored; drop the cache so the
			// next call re-folds (and fails loudly) instead of drifting.
			m.state = nil
			r.opts.Log.Error().Err(err).Str("match", s.Match).Msg("recorded event does not fold")
			return api.Result{}, fmt.Errorf("recorded event does not fold: %w", err)
		}
	}
	res.Pending = s.Pending
	r.keepSnapshot(s.Match, evs[0].Seq-1, s)
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
		return m, r.refresh(ctx, m, id)
	}
	err := r.fold(ctx, m, id)
	if errors.Is(err, store.ErrNotFound) && r.behind(ctx, m, id) {
		// Created on another recorder of the cluster a moment ago.
		err = r.fold(ctx, m, id)
	}
	return m, err
}

// fold rebuilds m's state from the store, from the nearest verified
// snapshot (a long match loads in the time of its last few events); m.mu
// must be held.
func (r *Recorder) fold(ctx context.Context, m *match, id string) error {
	f, err := r.Seeker().FolderAt(ctx, id, math.MaxUint64)
	if err != nil {
		return fmt.Errorf("fold match %s: %w", id, err)
	}
	m.state, m.rules = f.State, f.Rules
	return nil
}

// State returns the match's state after event at (0 = now), as ruled.
// The caller owns what it gets: the live state is cloned, an earlier one is
// folded from the nearest verified snapshot (fold.Seeker).
func (r *Recorder) State(ctx context.Context, id string, at uint64) (*projector.State, error) {
	if at == 0 {
		return r.Live(ctx, id)
	}
	return r.Seeker().StateAt(ctx, id, at)
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
	if err := r.refresh(ctx, m, id); err != nil {
		return nil, err
	}
	return m.state.Clone(), nil
}

// ReadLive calls fn with the recorder's live state of a match, under the
// match's lock, without copying it: for a reader that looks at it briefly
// (the events verb's marks) where a copy of a long match's state would
// cost more than the look. fn must not change or keep it.
func (r *Recorder) ReadLive(ctx context.Context, id string, fn func(*projector.State)) error {
	m, err := r.load(ctx, id)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := r.refresh(ctx, m, id); err != nil {
		return err
	}
	fn(m.state)
	return nil
}

// random reads n bytes of the recorder's randomness (Options.Rand).
func (r *Recorder) random(n int) []byte {
	b := make([]byte, n)
	if _, err := io.ReadFull(r.opts.Rand, b); err != nil {
		panic(fmt.Sprintf("the recorder's randomness failed: %v", err)) // the OS has no entropy: nothing sensible to do
	}
	return b
}

func (r *Recorder) randomHex(n int) string { return hex.EncodeToString(r.random(n)) }

// nonce is a new statement nonce for a token command sent without a
// request id.
func (r *Recorder) nonce() (n [auth.NonceSize]byte) {
	copy(n[:], r.random(auth.NonceSize))
	return n
}
