package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// replayOpts are the filters and pacing of `matchrec replay`.
type replayOpts struct {
	from, to uint64
	turn     int
	speed    float64
	maxGap   time.Duration
	follow   bool
}

func (a *app) replayCmd() *cobra.Command {
	var o replayOpts
	cmd := &cobra.Command{
		Use:   "replay MATCH|BUNDLE",
		Short: "Tell a match's timeline again, paced as it was played, optionally following it live",
		Long: `replay prints the narrated timeline of a match (as 'log' does), filtered by
--from/--to SEQ or --turn N. With --speed X it paces the lines as the match
happened, the recorded times scaled by 1/X and any pause capped at
--max-gap. With --follow it keeps going as new events arrive over NATS
(from a running 'matchrec serve'), until interrupted. --json prints JSON
lines {seq, type, time, actor, payload, hash, text, witness, marks}.

In place of a match id it takes a bundle file written by 'export MATCH
--bundle FILE' (any argument with a '.' or '/' in it).`,
		Example: `  matchrec replay 3fa9c2e1b7d0 --turn 2
  matchrec replay 3fa9c2e1b7d0 --speed 10
  matchrec replay ./friday.bundle --turn 1
  matchrec --server nats://127.0.0.1:4222 replay 3fa9c2e1b7d0 --follow`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.speed < 0 {
				return usageErr(fmt.Errorf("--speed must be positive"))
			}
			ctx := cmd.Context()
			tellAll := func(evs []events.Event) (*teller, error) {
				// The judge's marks depend on the whole match: tell it
				// once, marked, before pacing it.
				marked, _, err := replay.Tell(editions.Lookup, scanOf(evs), 0, 0, 0)
				if err != nil {
					return nil, err
				}
				t := &teller{a: a, o: o, marks: map[uint64]api.EventView{}}
				for _, v := range marked {
					t.marks[v.Seq] = v
				}
				for _, e := range evs {
					if err := t.tell(ctx, e); errors.Is(err, events.ErrStop) {
						return nil, nil
					} else if err != nil {
						return nil, err
					}
				}
				return t, nil
			}
			if isBundleFile(args[0]) {
				if o.follow {
					return usageErr(errors.New("--follow follows a recorded match, not a bundle file"))
				}
				_, evs, err := a.matchEvents(ctx, args[0])
				if err != nil {
					return err
				}
				_, err = tellAll(evs)
				return err
			}
			return a.withAPI(ctx, func(c *recorderAPI) error {
				b, err := fetchBundle(ctx, c, args[0], false)
				if err != nil {
					return err
				}
				evs, err := bundleEvents(b)
				if err != nil {
					return err
				}
				t, err := tellAll(evs)
				if t == nil || err != nil || !o.follow {
					return err
				}
				js, err := jetstream.New(c.client.Conn)
				if err != nil {
					return unavailable("follow: %v", err)
				}
				check, err := signedBy(ctx, c)
				if err != nil {
					return err
				}
				// From the last event the recorder gave over the API: the
				// bus's events must chain from it and carry its signature.
				var after store.Head
				if len(evs) > 0 {
					after = store.Head{Seq: evs[len(evs)-1].Seq, Hash: evs[len(evs)-1].Hash}
				}
				err = natsbus.Subscribe(ctx, js, b.Match, after, check, func(e events.Event) error { return t.tell(ctx, e) })
				switch {
				case errors.Is(err, context.Canceled) || errors.Is(err, events.ErrStop):
					return nil
				case errors.Is(err, natsbus.ErrBusDiffers):
					return unavailable("follow stopped: %v (the record is intact: 'matchrec replay %s' reads it)", err, args[0])
				}
				return err
			})
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&o.from, "from", 0, "first event to tell")
	f.Uint64Var(&o.to, "to", 0, "last event to tell (stops --follow there too)")
	f.IntVar(&o.turn, "turn", 0, "tell only the events of game turn N")
	f.Float64Var(&o.speed, "speed", 0, "pace the lines as played, X times faster (0 = no pacing)")
	f.DurationVar(&o.maxGap, "max-gap", 2*time.Second, "longest pause between two lines when pacing")
	f.BoolVar(&o.follow, "follow", false, "keep telling new events as they are recorded")
	return cmd
}

// teller narrates events one by one, filtering and pacing them.
type teller struct {
	a     *app
	o     replayOpts
	nar   *replay.Narrator
	last  int64                    // recording time of the last event told
	marks map[uint64]api.EventView // the judge's marks of the events recorded so far
}

func (t *teller) tell(ctx context.Context, e events.Event) error {
	if t.nar == nil {
		t.nar = replay.NewNarratorFor(editions.Lookup)
	}
	lines, err := t.nar.Next(e)
	if err != nil {
		return err
	}
	if t.o.to != 0 && e.Seq > t.o.to {
		return events.ErrStop
	}
	if e.Seq < t.o.from || (t.o.turn != 0 && t.nar.State().Turn != t.o.turn) {
		return nil
	}
	if t.o.speed > 0 && t.last != 0 {
		gap := min(time.Duration(float64(e.Time-t.last)/t.o.speed), t.o.maxGap)
		select {
		case <-time.After(max(gap, 0)):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.last = e.Time
	v, err := t.nar.View(e, lines)
	if err != nil {
		return err
	}
	if m, ok := t.marks[e.Seq]; ok {
		v.Witness, v.Marks = m.Witness, m.Marks
	}
	return t.a.printEvents([]api.EventView{v})
}
