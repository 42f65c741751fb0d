package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// DisputeView is a dispute as `disputes --json` lists it: the dispute,
// its ruling if any, and the disputed event as the log tells it.
type DisputeView struct {
	projector.Dispute
	Open     bool   `json:"open"`
	Disputed string `json:"disputed"` // the disputed event's log line
}

// DisputesResult is what `disputes --json` prints.
type DisputesResult struct {
	Match    string        `json:"match"`
	Disputes []DisputeView `json:"disputes"`
	// Contested are contested physical rolls and measurements no ruling has settled (one
	// made after the contest) and no open dispute is about: the audit is
	// UNRESOLVED until a ruling settles them.
	Contested []projector.ManualRoll `json:"contested,omitempty"`
}

func (a *app) disputesCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "disputes MATCH",
		Short: "List a match's open disputes (and contested rolls) for the judge",
		Long: `disputes lists the disputes of a match that no ruling has answered yet, each
with its event number (what 'declare --type rule --dispute N' takes), who
raised it, why, and the disputed event as the log tells it; then the
contested physical rolls no ruling has settled (a ruling on a dispute of
the roll made after the contest) and no open dispute is about, with who
contested them. --all lists the ruled disputes too, with their rulings:
the one in force on each event (the last void or amend) and those it
replaced.`,
		Example: `  matchrec disputes friday
  matchrec disputes friday --all
  matchrec --json disputes friday | jq '.disputes[].seq'`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				res, err := listDisputes(ctx, c, args[0], all)
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				printDisputes(a, res, all)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list ruled disputes too")
	return cmd
}

func listDisputes(ctx context.Context, c *recorderAPI, match string, all bool) (DisputesResult, error) {
	var s projector.State
	if err := c.call(ctx, api.VerbState, api.StateRequest{Match: match}, &s); err != nil {
		return DisputesResult{}, err
	}
	res := DisputesResult{Match: s.Match, Disputes: []DisputeView{}}
	disputed := map[uint64]bool{} // events an open dispute is about
	for _, d := range s.Disputes {
		if d.Ruling == 0 {
			disputed[d.Event] = true
		}
		if d.Ruling != 0 && !all {
			continue
		}
		v := DisputeView{Dispute: d, Open: d.Ruling == 0}
		var evs api.EventsResult
		if err := c.call(ctx, api.VerbEvents, api.EventsRequest{Match: match, From: d.Event, To: d.Event}, &evs); err != nil {
			return res, err
		}
		if len(evs.Events) == 1 {
			v.Disputed = evs.Events[0].Text
		}
		res.Disputes = append(res.Disputes, v)
	}
	for _, m := range replay.Witnessed(&s) { // physical rolls and measurements
		if m.Unsettled() && !disputed[m.Seq] {
			res.Contested = append(res.Contested, m)
		}
	}
	slices.SortFunc(res.Disputes, func(x, y DisputeView) int {
		if x.Open != y.Open {
			if x.Open {
				return -1
			}
			return 1
		}
		return int(x.Seq) - int(y.Seq)
	})
	return res, nil
}

func printDisputes(a *app, res DisputesResult, all bool) {
	w := a.stdout
	open := 0
	for _, d := range res.Disputes {
		if d.Open {
			open++
		}
	}
	switch {
	case open == 0 && len(res.Contested) == 0 && !all:
		fmt.Fprintf(w, "match %s has no open dispute\n", res.Match)
	case open > 0:
		fmt.Fprintf(w, "open disputes of match %s:\n", res.Match)
	}
	for _, d := range res.Disputes {
		state := "OPEN"
		switch {
		case d.Open:
		case d.Superseded != 0:
			state = fmt.Sprintf("ruled %s at event %d, replaced by ruling %d", d.Decision, d.Ruling, d.Superseded)
		case projector.Changes(d.Decision):
			state = fmt.Sprintf("ruled %s at event %d, in force", d.Decision, d.Ruling)
		default:
			state = fmt.Sprintf("ruled %s at event %d", d.Decision, d.Ruling)
		}
		fmt.Fprintf(w, "  dispute %d by %s on event %d — %s: %s\n", d.Seq, d.By, d.Event, state, d.Reason)
		if d.Disputed != "" {
			fmt.Fprintf(w, "      event %d: %s\n", d.Event, firstLine(d.Disputed))
		}
	}
	if open > 0 {
		fmt.Fprintf(w, "rule with: matchrec declare %s --token $JUDGE --type rule --dispute N --decision uphold|void|amend\n", res.Match)
	}
	if len(res.Contested) > 0 {
		fmt.Fprintln(w, "contested rolls and measurements no ruling has settled and no open dispute is about (the audit is UNRESOLVED until a ruling settles them):")
		for _, m := range res.Contested {
			fmt.Fprintf(w, "  event %d (%s's) contested by %s at event %d: %s\n", m.Seq, m.Roller, m.Witness, m.By, m.Reason)
		}
	}
}

// firstLine is the first line of a narrated event (an attack's summary
// follows on the next).
func firstLine(text string) string {
	l, _, _ := strings.Cut(text, "\n")
	return l
}
