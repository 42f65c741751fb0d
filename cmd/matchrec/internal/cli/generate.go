package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// GenerateResult is what `generate --json` prints.
type GenerateResult struct {
	Edition string  `json:"edition"`
	Seed    uint64  `json:"seed"`
	Matches int     `json:"matches"`
	Events  uint64  `json:"events"`
	Seconds float64 `json:"seconds"`
	First   string  `json:"first_match,omitempty"`
	Last    string  `json:"last_match,omitempty"`
}

func (a *app) generateCmd() *cobra.Command {
	var (
		edition string
		n       int
		seed    uint64
		workers int
		turns   int
		manual  float64
	)
	cmd := &cobra.Command{
		Use:   "generate --edition E --matches N --seed S",
		Short: "Record synthetic but legal matches, for load tests and demos",
		Long: `generate records N matches between random armies, played by a simple legal
player (every unit shoots at the first enemy it may, every choice the
edition's default) for --turns game turns, through the
recorder's normal API: each command is decided, recorded, published and
folded like one typed by a player. Each match's armies and its two players
(drawn from alice, bob, carol, dave, erin, frank, grace, heidi) depend only
on --seed and its number; match ids are gen-EDITION-SEED-N. A share
--manual-ratio of the rolls is typed in as physical dice would be (fair
dice the generator rolls itself, recorded as manual); the rest are the
recorder's own digital dice. The analytic tables are brought up to date at
the end.`,
		Example: `  matchrec generate --edition 3e --matches 100 --seed 1
  matchrec generate --edition 11e --matches 100 --seed 2 --manual-ratio 0
  matchrec --json generate --edition 6e --matches 1000 --seed 7 --workers 8`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(editions.IDs(), edition) {
				return usageErr(fmt.Errorf("--edition %q: known editions are %s", edition, strings.Join(editions.IDs(), ", ")))
			}
			if n <= 0 {
				return usageErr(fmt.Errorf("--matches must be positive, got %d", n))
			}
			if workers <= 0 || turns <= 0 {
				return usageErr(fmt.Errorf("--workers and --turns must be positive"))
			}
			if manual < 0 || manual > 1 {
				return usageErr(fmt.Errorf("--manual-ratio %g: want a share from 0 to 1", manual))
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				check, err := signedBy(ctx, c)
				if err != nil {
					return err
				}
				t, err := newAPITarget(ctx, c, check)
				if err != nil {
					return err
				}
				defer t.close()
				bar := a.newProgress("recording matches")
				start := time.Now()
				res, err := generate.Run(ctx, t, editions.Lookup, generate.Options{
					Edition: edition, Matches: n, Seed: seed, Workers: workers, MaxTurns: turns, ManualRatio: manual, Progress: bar.Update})
				bar.Done()
				if err != nil {
					return err
				}
				out := GenerateResult{Edition: edition, Seed: seed, Matches: len(res.Matches), Events: res.Events,
					Seconds: time.Since(start).Seconds()}
				if len(res.Matches) > 0 {
					out.First, out.Last = res.Matches[0], res.Matches[len(res.Matches)-1]
				}
				a.log.Info().Int("matches", out.Matches).Uint64("events", out.Events).Msg("generated")
				if err := a.syncTables(ctx, c); err != nil {
					if ae := apiError(err); ae == nil || ae.Code != projector.CodeNoAnalytics {
						return err
					}
					// A build without the analytics records the matches all the same.
					a.log.Warn().Msg("no analytic tables in this build: the matches are recorded, the tables are not")
				}
				if a.json {
					return a.printJSON(out)
				}
				fmt.Fprintf(a.stdout, "recorded %d %s matches (%d events) in %.1fs: %s … %s\n",
					out.Matches, edition, out.Events, out.Seconds, out.First, out.Last)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&edition, "edition", "", "edition of the matches: "+strings.Join(editions.IDs(), ", "))
	f.IntVar(&n, "matches", 10, "number of matches")
	f.Uint64Var(&seed, "seed", 1, "seed of the armies and players (match n of a seed is always the same setup)")
	f.IntVar(&workers, "workers", 4, "matches recorded at once")
	f.IntVar(&turns, "turns", 5, "game turns per match")
	f.Float64Var(&manual, "manual-ratio", 0.25, "share of the rolls typed in as physical dice (recorded as manual); 0: all digital")
	_ = cmd.MarkFlagRequired("edition")
	return cmd
}

// apiTarget records through the API and reads each match's events back
// from the stream, the feed every follower reads (digital dice are known
// only once recorded), through one consumer for the whole run, made
// before the first match: a consumer per match would leave one behind per
// match for minutes, and the server refuses new ones past its limit.
type apiTarget struct {
	c     *recorderAPI
	check natsbus.Check // the recorder's signature
	stop  func()        // stops the consumer
	done  chan struct{} // closed when it has stopped

	mu    sync.Mutex
	feeds map[string]*feed // by match, made by Create or the match's first event
	err   error            // why the consumer stopped
}

// feed is what the stream has delivered of one match and not been read.
type feed struct {
	evs  []events.Event
	wake chan struct{} // a value when evs grew
	last store.Head    // the event Events gave last: the next must chain from it
}

// newAPITarget starts the run's consumer: every match's subject, from
// the next message on.
func newAPITarget(ctx context.Context, c *recorderAPI, check natsbus.Check) (*apiTarget, error) {
	js, err := jetstream.New(c.client.Conn)
	if err != nil {
		return nil, unavailable("jetstream: %v", err)
	}
	cons, err := js.OrderedConsumer(ctx, natsbus.StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{natsbus.SubjectPrefix + "*"},
		DeliverPolicy:  jetstream.DeliverNewPolicy,
	})
	if err != nil {
		return nil, unavailable("follow the event stream: %v", err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, unavailable("follow the event stream: %v", err)
	}
	t := &apiTarget{c: c, check: check, stop: it.Stop, done: make(chan struct{}), feeds: map[string]*feed{}}
	go t.receive(ctx, it)
	return t, nil
}

// receive hands each event the stream delivers to its match's feed, once
// check says it is the recorder's (the feed's reader checks the chain).
func (t *apiTarget) receive(ctx context.Context, it jetstream.MessagesContext) {
	defer close(t.done)
	for {
		m, err := it.Next()
		var e events.Event
		if err == nil {
			e, err = natsbus.DecodeMsg(m)
		}
		if err == nil {
			if cerr := t.check.Check(ctx, m, e); cerr != nil {
				err = &natsbus.BusDiffersError{Match: e.Match, Seq: e.Seq, Err: cerr}
			}
		}
		if err != nil {
			t.mu.Lock()
			t.err = err
			t.mu.Unlock()
			return
		}
		f := t.feed(e.Match)
		t.mu.Lock()
		f.evs = append(f.evs, e)
		t.mu.Unlock()
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

func (t *apiTarget) close() {
	t.stop()
	<-t.done
}

// feed returns match's feed, making it.
func (t *apiTarget) feed(match string) *feed {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.feeds[match]
	if f == nil {
		f = &feed{wake: make(chan struct{}, 1)}
		t.feeds[match] = f
	}
	return f
}

func (t *apiTarget) Create(ctx context.Context, req api.CreateRequest) (api.CreateResult, error) {
	var res api.CreateResult
	if err := t.c.call(ctx, api.VerbCreate, req, &res); err != nil {
		return res, err
	}
	t.feed(res.Match)
	return res, nil
}

func (t *apiTarget) Execute(ctx context.Context, match, token string, c projector.Command) (api.Result, error) {
	verb := api.VerbDeclare
	if c.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	var res api.Result
	err := t.c.call(ctx, verb, api.ExecuteRequest{Match: match, Token: token, Command: &c}, &res)
	return res, err
}

// feedTimeout bounds the wait for a recorded event to reach the stream.
const feedTimeout = 30 * time.Second

func (t *apiTarget) Events(ctx context.Context, match string, from, to uint64, fn func(events.Event) error) error {
	f := t.feed(match)
	timer := time.NewTimer(feedTimeout)
	defer timer.Stop()
	for next := from; next <= to; {
		t.mu.Lock()
		evs, cerr := f.evs, t.err
		f.evs = nil
		t.mu.Unlock()
		for i, e := range evs {
			switch {
			case e.Seq < next:
				continue
			case next > to: // not asked for yet: keep it
				t.mu.Lock()
				f.evs = append(evs[i:], f.evs...)
				t.mu.Unlock()
				return nil
			case e.Seq > next:
				return fmt.Errorf("the event feed of match %s skips from %d to %d", match, next, e.Seq)
			case f.last.Seq != 0 && e.Seq == f.last.Seq+1 && e.PrevHash != f.last.Hash:
				return &natsbus.BusDiffersError{Match: match, Seq: e.Seq, Err: natsbus.ErrBrokenChain}
			}
			f.last = store.Head{Seq: e.Seq, Hash: e.Hash}
			if err := fn(e); err != nil {
				return err
			}
			next = e.Seq + 1
		}
		if next > to {
			return nil
		}
		if cerr != nil {
			return fmt.Errorf("the event feed stopped: %v", cerr)
		}
		select {
		case <-f.wake:
		case <-t.done:
		case <-timer.C:
			return fmt.Errorf("event %d of match %s did not reach the stream in %s", next, match, feedTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Finish forgets a match the generator is done with.
func (t *apiTarget) Finish(match string) {
	t.mu.Lock()
	delete(t.feeds, match)
	t.mu.Unlock()
}
