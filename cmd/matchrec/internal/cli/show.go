package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

func (a *app) logCmd() *cobra.Command {
	var from, to uint64
	cmd := &cobra.Command{
		Use:   "log MATCH|BUNDLE",
		Short: "Print a match's events as readable lines (JSON lines with --json)",
		Long: `log prints every event of a match, one readable line each: moves,
declarations, every roll with its dice, target number and successes, and a
summary line when an attack completes. A physical roll shows whether the
opponent confirmed or contested it; the judge's marks follow an event
after a "!": a dispute with no ruling yet, an amendment (old → new dice and
their effect), a void, the later events a ruling discarded. With --json it
prints one JSON object per line: {seq, type, time, actor, payload, hash,
text, witness, marks}.

In place of a match id it takes a bundle file written by 'export MATCH
--bundle FILE' (any argument with a '.' or '/' in it).`,
		Example: `  matchrec log 3fa9c2e1b7d0
  matchrec log 3fa9c2e1b7d0 --from 40 --to 60
  matchrec log ./friday.bundle
  matchrec --json log 3fa9c2e1b7d0 | jq -r 'select(.type=="dice.rolled") | .text'`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if isBundleFile(args[0]) {
				_, evs, err := a.matchEvents(ctx, args[0])
				if err != nil {
					return err
				}
				views, _, err := replay.Tell(editions.Lookup, scanOf(evs), from, to, 0)
				if err != nil {
					return &cliError{exit: ExitRefused, code: projector.CodeInternal, msg: fmt.Sprintf("%s: %v (run 'matchrec verify')", args[0], err)}
				}
				return a.printEvents(views)
			}
			return a.withAPI(ctx, func(c *recorderAPI) error {
				req := api.EventsRequest{Match: args[0], From: from, To: to, TextOnly: !a.json}
				for {
					var page api.EventsResult
					if err := c.call(ctx, api.VerbEvents, req, &page); err != nil {
						return err
					}
					if err := a.printEvents(page.Events); err != nil {
						return err
					}
					if page.Next == 0 {
						return nil
					}
					req.From = page.Next
				}
			})
		},
	}
	cmd.Flags().Uint64Var(&from, "from", 0, "first event to print (default: the first)")
	cmd.Flags().Uint64Var(&to, "to", 0, "last event to print (default: the last)")
	return cmd
}

func (a *app) stateCmd() *cobra.Command {
	var (
		at       uint64
		asPlayed bool
	)
	cmd := &cobra.Command{
		Use:   "state MATCH|BUNDLE",
		Short: "Print a match's board state, now or after event --at",
		Long: `state folds a match's events into its board state and prints it: turn,
phase, what the match waits for (and from whom, with the model ids a choice
may name), every unit with the ids of its models left, the attack in
progress, the last completed attack, each side's tally, and for the judge
the physical rolls not yet confirmed, the contested ones and the open
disputes. --at SEQ shows the state right after event SEQ. With --json it
prints the whole state, including every model's position.

The state is the match as ruled: voided events do not count, amended ones
count as the judge read them. --as-played shows the match as it was played,
ignoring the rulings, to compare the two.

In place of a match id it takes a bundle file written by 'export MATCH
--bundle FILE' (any argument with a '.' or '/' in it), folded here.`,
		Example: `  matchrec state 3fa9c2e1b7d0
  matchrec state 3fa9c2e1b7d0 --at 25
  matchrec state 3fa9c2e1b7d0 --as-played
  matchrec state ./friday.bundle
  matchrec --json state 3fa9c2e1b7d0 | jq .pending`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if asPlayed || isBundleFile(args[0]) {
				b, evs, err := a.matchEvents(ctx, args[0])
				if err != nil {
					return err
				}
				mode := fold.AsRuled
				if asPlayed {
					mode = fold.AsPlayed
				}
				s, err := foldBundle(b, evs, at, mode)
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(s)
				}
				printState(a.stdout, s)
				return nil
			}
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var raw json.RawMessage
				if err := c.call(ctx, api.VerbState, api.StateRequest{Match: args[0], At: at}, &raw); err != nil {
					return err
				}
				if a.json {
					return a.printJSON(raw)
				}
				var s projector.State
				if err := json.Unmarshal(raw, &s); err != nil {
					return err
				}
				printState(a.stdout, &s)
				return nil
			})
		},
	}
	cmd.Flags().Uint64Var(&at, "at", 0, "show the state after this event (default: now)")
	cmd.Flags().BoolVar(&asPlayed, "as-played", false, "the match as played, ignoring the judge's rulings")
	return cmd
}

// printEvents prints told events: readable lines, or JSON lines.
func (a *app) printEvents(views []api.EventView) error {
	for _, e := range views {
		if !a.json {
			printEventText(a.stdout, e)
			continue
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, string(b))
	}
	return nil
}
