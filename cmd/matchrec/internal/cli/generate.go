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
				js, err := jetstream.New(c.client.Conn)
				if err != nil {
					return unavailable("jetstream: %v", err)
				}
				check, err := signedBy(ctx, c)
				if err != nil {
					return err
				}
				t := &apiTarget{c: c, js: js, check: check, feeds: map[string]*feed{}}
				bar := a.newProgress("recording matches")
				start := time.Now()
				res, err := generate.Run(ctx, t, editions.Lookup, generate.Options{
					Edition: edition, Matches: n, Seed: seed, Workers: workers, MaxTurns: turns, ManualRatio: manual, Progress: bar.Update})
				bar.Done()
				t.closeAll()
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
// from its JetStream subject (natsbus.Subscribe), the feed every follower
// reads: digital dice are known only once recorded.
type apiTarget struct {
	c     *recorderAPI
	js    jetstream.JetStream
	check natsbus.Check // the recorder's signature
	mu    sync.Mutex
	feeds map[string]*feed
}

// feed follows one match's events.
type feed struct {
	ch     chan events.Event
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func (t *apiTarget) Create(ctx context.Context, req api.CreateRequest) (api.CreateResult, error) {
	var res api.CreateResult
	if err := t.c.call(ctx, api.VerbCreate, req, &res); err != nil {
		return res, err
	}
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &feed{ch: make(chan events.Event, 256), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = natsbus.Subscribe(fctx, t.js, res.Match, store.Head{}, t.check, func(e events.Event) error {
			select {
			case f.ch <- e:
				return nil
			case <-fctx.Done():
				return fctx.Err()
			}
		})
	}()
	t.mu.Lock()
	t.feeds[res.Match] = f
	t.mu.Unlock()
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
	t.mu.Lock()
	f := t.feeds[match]
	t.mu.Unlock()
	if f == nil {
		return fmt.Errorf("no feed of match %s", match)
	}
	timer := time.NewTimer(feedTimeout)
	defer timer.Stop()
	for next := from; next <= to; {
		select {
		case e := <-f.ch:
			if e.Seq < next {
				continue
			}
			if err := fn(e); err != nil {
				return err
			}
			next = e.Seq + 1
		case <-f.done:
			return fmt.Errorf("the event feed of match %s stopped: %v", match, f.err)
		case <-timer.C:
			return fmt.Errorf("event %d of match %s did not reach the stream in %s", next, match, feedTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Finish stops following a match.
func (t *apiTarget) Finish(match string) {
	t.mu.Lock()
	f := t.feeds[match]
	delete(t.feeds, match)
	t.mu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

func (t *apiTarget) closeAll() {
	t.mu.Lock()
	ids := make([]string, 0, len(t.feeds))
	for id := range t.feeds {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	for _, id := range ids {
		t.Finish(id)
	}
}
