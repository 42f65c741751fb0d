// Package generate records synthetic but legal matches for load tests,
// demos and golden histories: random armies (sim.RandomMatch) played by
// sim.Autoplay with digital (or physical) dice, and match scripts
// (script.go), through a recorder's normal create/execute path, so every
// event is decided, hashed, stored and published like a real one.
//
// The player keeps its own fold of each match to choose its next command.
// Digital dice are rolled by the recorder, so after each command it reads
// the new events back (Target.Events) and folds them: the fold it plays on
// is the recorded match, never a guess of it.
package generate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// Target is a recorder as the generator uses it: directly
// (*recorder.Recorder with Direct) or through the NATS API.
type Target interface {
	Create(ctx context.Context, req api.CreateRequest) (api.CreateResult, error)
	Execute(ctx context.Context, match, token string, c projector.Command) (api.Result, error)
	// Events calls fn with the recorded events from..to of match, in
	// order, once each are recorded.
	Events(ctx context.Context, match string, from, to uint64, fn func(events.Event) error) error
}

// Finisher is an optional ability of a Target: told when the generator
// is done with a match (to stop following its events).
type Finisher interface{ Finish(match string) }

// Options of a generation run.
type Options struct {
	Edition string
	Matches int
	Seed    uint64
	// Workers plays this many matches at once (default 4): the store's
	// group commit shares each fsync between them.
	Workers int
	// MaxTurns ends each match after this many game turns (default 5).
	MaxTurns int
	// Players is the pool each match draws its two players from (default
	// eight names), so analyses have players with many matches each.
	Players []string
	// IDPrefix names matches IDPrefix-<edition>-<seed>-<n> (default "gen").
	IDPrefix string
	// ManualRatio is the share of rolls entered as physical dice: the
	// generator rolls them itself (seeded, fair) and types them in as a
	// player would, so they are recorded as manual; the others are the
	// recorder's digital dice. 0: every roll digital.
	ManualRatio float64
	// Manual makes every roll physical dice (typed in, from the simulated
	// dice) instead of the recorder's digital dice (the golden histories'
	// manual matches); ManualRatio then has nothing left to type in.
	Manual bool
	// Progress is told after each match.
	Progress func(done, total int)
	// Weapons are profiles the random armies draw from besides the
	// common ones; Run fills them with the edition's projector.Armory.
	Weapons []events.WeaponSpec
}

// DefaultPlayers is the default pool of players.
var DefaultPlayers = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}

// Result of a run.
type Result struct {
	Matches []string `json:"matches"`
	Events  uint64   `json:"events"`
}

// Run records opts.Matches matches on t. Match n's setup and players
// depend only on the seed and n, so a run is repeatable (the digital dice
// are the recorder's own).
func Run(ctx context.Context, t Target, rules func(string) (projector.Rules, error), opts Options) (Result, error) {
	r, err := rules(opts.Edition)
	if err != nil {
		return Result{}, err
	}
	if opts.Matches <= 0 {
		return Result{}, errors.New("generate: the number of matches must be positive")
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = 5
	}
	if len(opts.Players) == 0 {
		opts.Players = DefaultPlayers
	}
	if len(opts.Players) < 2 {
		return Result{}, errors.New("generate: the player pool needs two players at least")
	}
	if opts.IDPrefix == "" {
		opts.IDPrefix = "gen"
	}
	if a, ok := r.(projector.Armory); ok && opts.Weapons == nil {
		opts.Weapons = a.Armory()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, done atomic.Int64
		evs        atomic.Uint64
		mu         sync.Mutex
		firstErr   error
		wg         sync.WaitGroup
	)
	ids := make([]string, opts.Matches)
	for w := 0; w < min(opts.Workers, opts.Matches); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= opts.Matches || ctx.Err() != nil {
					return
				}
				id, count, err := playOne(ctx, t, r, opts, n)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("generate match %d: %w", n, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				ids[n] = id
				evs.Add(count)
				if d := int(done.Add(1)); opts.Progress != nil {
					opts.Progress(d, opts.Matches)
				}
			}
		}()
	}
	wg.Wait()
	res := Result{Events: evs.Load()}
	for _, id := range ids {
		if id != "" {
			res.Matches = append(res.Matches, id)
		}
	}
	return res, firstErr
}

// Setup is match n's setup: a random army pair whose two players are
// drawn from the pool.
func Setup(r projector.Rules, opts Options, n int) api.CreateRequest {
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(n)+1))
	m := sim.RandomMatch(r, rng, opts.Weapons...)
	i := rng.IntN(len(opts.Players))
	j := rng.IntN(len(opts.Players) - 1)
	if j >= i {
		j++
	}
	rename := map[string]string{m.Players[0].ID: opts.Players[i], m.Players[1].ID: opts.Players[j]}
	for k := range m.Players {
		id := rename[m.Players[k].ID]
		m.Players[k] = events.PlayerSpec{ID: id, Name: id}
	}
	for k := range m.Units {
		m.Units[k].Player = rename[m.Units[k].Player]
	}
	m.FirstPlayer = rename[m.FirstPlayer]
	m.Name = fmt.Sprintf("generated %d (seed %d)", n, opts.Seed)
	return api.CreateRequest{Match: fmt.Sprintf("%s-%s-%d-%d", opts.IDPrefix, opts.Edition, opts.Seed, n), MatchCreated: m}
}

// playOne records match n and returns its id and event count.
func playOne(ctx context.Context, t Target, r projector.Rules, opts Options, n int) (string, uint64, error) {
	created, err := t.Create(ctx, Setup(r, opts, n))
	if err != nil {
		return "", 0, err
	}
	id := created.Match
	if f, ok := t.(Finisher); ok {
		defer f.Finish(id)
	}
	s := projector.New(id)
	fold := func(to uint64) error {
		return t.Events(ctx, id, s.Seq+1, to, func(e events.Event) error { return projector.Apply(r, s, e) })
	}
	if err := fold(created.Seq); err != nil {
		return id, 0, err
	}
	ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(opts.Seed ^ uint64(n)), MaxTurns: opts.MaxTurns, Digital: !opts.Manual}
	manual := rand.New(rand.NewPCG(opts.Seed, uint64(n)+1<<40)) // which rolls are typed in
	for guard := 0; ; guard++ {
		if guard > 100_000 {
			return id, s.Seq, fmt.Errorf("match %s does not end (waiting for: %s)", id, s.Pending.Text)
		}
		actor, c, over := ap.Next(s)
		if over {
			return id, s.Seq, nil
		}
		if c.Type == projector.CmdRoll && c.Digital && opts.ManualRatio > 0 && manual.Float64() < opts.ManualRatio {
			c.Digital, c.Values = false, make([]int, s.Pending.Dice)
			for i := range c.Values {
				c.Values[i] = ap.Dice.D6()
			}
		}
		role := api.RoleJudge
		if actor.Kind == events.ActorPlayer {
			role = api.RolePlayer(actor.ID)
		}
		res, err := t.Execute(ctx, id, created.Tokens[role], c)
		if err != nil {
			return id, s.Seq, fmt.Errorf("%s by %s at event %d: %w", c.Type, actor, s.Seq, err)
		}
		if len(res.Events) == 0 {
			continue
		}
		if err := fold(res.Events[len(res.Events)-1].Seq); err != nil {
			return id, s.Seq, err
		}
	}
}

// Direct is a Target on a recorder in this process: events are read back
// from its store.
type Direct struct{ *recorder.Recorder }

// Events reads events from..to from the recorder's store.
func (d Direct) Events(ctx context.Context, match string, from, to uint64, fn func(events.Event) error) error {
	err := d.Store().Scan(ctx, match, from, func(e events.Event) error {
		if e.Seq > to {
			return events.ErrStop
		}
		return fn(e)
	})
	if errors.Is(err, events.ErrStop) {
		return nil
	}
	return err
}

// Long records on t one match of at least n events that never ends on
// its own, for the long-match tests and benchmarks: a random army pair of
// r's edition (from seed) whose models nobody can wound (T10), played
// turn after turn with the recorder's digital dice. It returns the match's
// creation (its tokens) and its last event.
func Long(ctx context.Context, t Target, r projector.Rules, id string, n int, seed uint64) (api.CreateResult, uint64, error) {
	created, err := t.Create(ctx, api.CreateRequest{Match: id, MatchCreated: LongSetup(r, seed)})
	if err != nil {
		return created, 0, err
	}
	s := projector.New(id)
	fold := func(to uint64) error {
		return t.Events(ctx, id, s.Seq+1, to, func(e events.Event) error { return projector.Apply(r, s, e) })
	}
	if err := fold(created.Seq); err != nil {
		return created, s.Seq, err
	}
	ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(seed + 1), Digital: true}
	for s.Seq < uint64(n) {
		actor, c, over := ap.Next(s)
		if over {
			return created, s.Seq, fmt.Errorf("the long match %s ended after %d events", id, s.Seq)
		}
		res, err := t.Execute(ctx, id, created.Tokens[api.RolePlayer(actor.ID)], c)
		if err != nil {
			return created, s.Seq, fmt.Errorf("%s by %s at event %d: %w", c.Type, actor, s.Seq, err)
		}
		if len(res.Events) > 0 {
			if err := fold(res.Events[len(res.Events)-1].Seq); err != nil {
				return created, s.Seq, err
			}
		}
	}
	return created, s.Seq, nil
}

// LongSetup is the match Long plays: a random army pair of edition (from
// seed) whose models nobody can wound (T10), so it goes on as long as
// asked.
func LongSetup(r projector.Rules, seed uint64) events.MatchCreated {
	setup := sim.RandomMatch(r, rand.New(rand.NewPCG(seed, 12)))
	for i := range setup.Units {
		for j := range setup.Units[i].Models {
			setup.Units[i].Models[j].T = 10
		}
	}
	return setup
}
