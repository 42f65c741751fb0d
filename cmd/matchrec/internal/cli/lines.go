package cli

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

func (a *app) branchCmd() *cobra.Command {
	var (
		req  api.BranchRequest
		cred credFlags
		kf   keyFlags
	)
	cmd := &cobra.Command{
		Use:   "branch MATCH --at SEQ",
		Short: "Start a what-if line: a new match that shares MATCH's events 1..SEQ",
		Long: `branch creates a new match whose history is MATCH's events 1 to SEQ — kept
as a pointer to the parent, not a copy — followed by its own events. It
takes a participant's credential of MATCH (--key, or --token), recorded with
the branch. It gets its own tokens for every role (printed once, like
'new'), or with --sign (or brought --player ID=PUBKEY, --judge PUBKEY) its
own participants' keys, and its own dice epoch. The parent is never changed.
Branches of branches work.`,
		Example: `  matchrec branch 3fa9c2e1b7d0 --at 41 --name "if the save had passed" --token $ALICE
  matchrec branch friday --at 41 --key friday.player-alice.key --sign
  matchrec --json branch 3fa9c2e1b7d0 --at 41 --token $JUDGE | jq -r '.tokens["player:bob"]'`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Parent = args[0]
			if req.At == 0 {
				return usageErr(fmt.Errorf("--at SEQ is required (1 or more)"))
			}
			p, err := cred.participant(cmd)
			if err != nil {
				return err
			}
			if req.Match == "" {
				req.Match = newMatchID()
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				res, pk, err := a.branch(ctx, c, req, p, &kf)
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				fmt.Fprintf(a.stdout, "branch %s of %s at event %d\n", res.Match, req.Parent, req.At)
				for _, r := range sortedRoles(res.Tokens) {
					fmt.Fprintf(a.stdout, "  token %-14s %s\n", r, res.Tokens[r])
				}
				if pk != nil {
					pk.print(a)
				}
				return nil
			})
		},
	}
	cmd.Flags().Uint64Var(&req.At, "at", 0, "the last event of MATCH the branch shares")
	cmd.Flags().StringVar(&req.Name, "name", "", "a name for the branch")
	cmd.Flags().StringVar(&req.Match, "id", "", "the branch's match id (default: generated)")
	cred.add(cmd)
	kf.add(cmd, true)
	return cmd
}

// branch asks for a branch as participant p of the parent: signed over the
// fork event with p's key, or with p's token and a request id; the
// branch's own participants get keys (kf) or tokens.
func (a *app) branch(ctx context.Context, c *recorderAPI, req api.BranchRequest, p *participant, kf *keyFlags) (api.CreateResult, *participantKeys, error) {
	var res api.CreateResult
	at, err := stateAt(ctx, c, req.Parent, req.At)
	if err != nil {
		return res, nil, err
	}
	role, err := p.role(at)
	if err != nil {
		return res, nil, err
	}
	var pk *participantKeys
	if kf.signed() {
		players := make([]events.PlayerSpec, 0, len(at.Players))
		for _, pl := range at.Players {
			players = append(players, events.PlayerSpec{ID: pl.ID, Name: pl.Name})
		}
		if pk, err = kf.make(req.Match, players); err != nil {
			return res, nil, err
		}
		req.Keys = pk.public
	}
	nonce := auth.NewNonce()
	if p.key != nil {
		cmd := projector.Command{Type: projector.CmdBranch, At: req.At, Match: req.Match, Name: req.Name, Keys: req.Keys}
		b, err := events.EncodeValue(cmd)
		if err != nil {
			return res, nil, err
		}
		st := auth.Statement{Match: req.Parent, HeadSeq: at.Seq, HeadHash: at.Head, Nonce: nonce, Role: role, Command: b}
		req.Statement = st.Marshal()
		req.Signature = auth.Sign(p.key.Private, auth.StatementDomain, req.Statement)
	} else {
		req.Token, req.RequestID = p.token, hex.EncodeToString(nonce[:])
	}
	if len(req.Keys) == 0 {
		req.Secret = randomHexString(32) // the branch's tokens derive from it: a retry gets them back
	}
	if err := c.call(ctx, api.VerbBranch, req, &res); err != nil {
		return res, nil, err
	}
	if res.Receipt != nil {
		if _, err := a.receiptStore().remember(res.Match, res.Keys, ""); err != nil {
			return res, nil, err
		}
		if err := a.keep(ctx, c, *res.Receipt); err != nil {
			return res, nil, err
		}
	}
	return res, pk, nil
}

// stateAt fetches a match's state after event at.
func stateAt(ctx context.Context, c *recorderAPI, match string, at uint64) (*projector.State, error) {
	var s projector.State
	if err := c.call(ctx, api.VerbState, api.StateRequest{Match: match, At: at}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func (a *app) branchesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "branches MATCH",
		Short:   "Show the tree of branches MATCH belongs to",
		Example: "  matchrec branches 3fa9c2e1b7d0",
		Args:    exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var res api.BranchesResult
				if err := c.call(ctx, api.VerbBranches, api.BranchesRequest{Match: args[0]}, &res); err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				depth := map[string]int{}
				for _, m := range res.Matches {
					d := 0
					if m.Parent != "" {
						d = depth[m.Parent] + 1
					}
					depth[m.ID] = d
					line := fmt.Sprintf("%s%s  (%d events)", strings.Repeat("    ", d), m.ID, m.Head.Seq)
					if m.Parent != "" {
						line = fmt.Sprintf("%s└─ %s  forks %s after event %d, %d events", strings.Repeat("    ", d-1), m.ID, m.Parent, m.At, m.Head.Seq)
					}
					if m.ID == args[0] {
						line += "   ◀"
					}
					fmt.Fprintln(a.stdout, line)
				}
				return nil
			})
		},
	}
}

func (a *app) diffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Show where two lines of play part and how their boards differ",
		Long: `diff compares two matches — typically a match and a branch of it: the last
event they share, then each side's models lost and wounds caused, and every
unit whose models or wounds differ.`,
		Example: "  matchrec diff 3fa9c2e1b7d0 7c1e09d2aa41",
		Args:    exactArgs("A", "B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var d api.Diff
				if err := c.call(ctx, api.VerbDiff, api.DiffRequest{A: args[0], B: args[1]}, &d); err != nil {
					return err
				}
				if a.json {
					return a.printJSON(d)
				}
				w := a.stdout
				switch {
				case d.Common == 0:
					fmt.Fprintf(w, "%s and %s share no event\n", d.A, d.B)
				case d.Common == d.LenA && d.Common == d.LenB:
					fmt.Fprintf(w, "%s and %s are the same %d events\n", d.A, d.B, d.Common)
				default:
					fmt.Fprintf(w, "%s (%d events) and %s (%d events) share events 1..%d and part after it\n", d.A, d.LenA, d.B, d.LenB, d.Common)
				}
				fmt.Fprintf(w, "\n%-12s %14s %14s\n", "side", "lost A / B", "caused A / B")
				for _, s := range d.Sides {
					fmt.Fprintf(w, "%-12s %14s %14s\n", s.Player, fmt.Sprintf("%d / %d", s.ModelsLostA, s.ModelsLostB), fmt.Sprintf("%d / %d", s.WoundsCausedA, s.WoundsCausedB))
				}
				if len(d.Units) == 0 {
					fmt.Fprintln(w, "\nevery unit stands the same")
					return nil
				}
				fmt.Fprintf(w, "\n%-28s %12s %12s\n", "unit", "models A / B", "wounds A / B")
				for _, u := range d.Units {
					fmt.Fprintf(w, "%-28s %12s %12s\n", u.Name, fmt.Sprintf("%d / %d", u.ModelsA, u.ModelsB), fmt.Sprintf("%d / %d", u.WoundsA, u.WoundsB))
					if len(u.OnlyA) > 0 {
						fmt.Fprintf(w, "    on the table only in A: %s\n", strings.Join(u.OnlyA, ", "))
					}
					if len(u.OnlyB) > 0 {
						fmt.Fprintf(w, "    on the table only in B: %s\n", strings.Join(u.OnlyB, ", "))
					}
				}
				return nil
			})
		},
	}
}

func (a *app) whatifCmd() *cobra.Command {
	var o replay.WhatIfOptions
	var at uint64
	cmd := &cobra.Command{
		Use:   "whatif MATCH --at SEQ",
		Short: "Replay an attack's remaining rolls N times with simulated dice: how lucky was it?",
		Long: `whatif takes the attack sequence pending or begun at event SEQ and plays its
remaining rolls N times with simulated dice through the same rules engine,
then reports the distribution of hits, wounds, unsaved wounds, casualties
and models left, and where the actual outcome falls in it (its percentile,
mid-rank: the share of runs below it plus half of those equal to it).
The match itself is never changed. Runs are seeded: the same --seed gives
the same report.`,
		Example: `  matchrec whatif 3fa9c2e1b7d0 --at 17
  matchrec whatif 3fa9c2e1b7d0 --at 17 --runs 100000 --seed 42
  matchrec --json whatif 3fa9c2e1b7d0 --at 17 | jq .measures.casualties.percentile`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if at == 0 {
				return usageErr(fmt.Errorf("--at SEQ is required"))
			}
			if o.Runs < 1 {
				return usageErr(fmt.Errorf("--runs must be at least 1"))
			}
			ctx := cmd.Context()
			var b *api.Bundle
			if err := a.withAPI(ctx, func(c *recorderAPI) error {
				var err error
				b, err = fetchBundle(ctx, c, args[0], false)
				return err
			}); err != nil {
				return err
			}
			evs, err := bundleEvents(b)
			if err != nil {
				return err
			}
			bar := a.newProgress("simulating")
			o.Progress = bar.Update
			w, err := replay.WhatIfEvents(ctx, b.Match, b.Lineage, evs, at, editions.Lookup, o)
			bar.Done()
			if err != nil {
				return &cliError{exit: ExitRefused, code: projector.CodeNoAttack, msg: err.Error()}
			}
			if a.json {
				return a.printJSON(w)
			}
			printWhatIf(a, w)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&at, "at", 0, "an event at which an attack sequence is pending or in progress")
	cmd.Flags().IntVar(&o.Runs, "runs", 10_000, "number of simulated runs")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "seed of the simulated dice")
	return cmd
}

func printWhatIf(a *app, w *replay.WhatIf) {
	out := a.stdout
	fmt.Fprintf(out, "what if: %s's attack on %s (declared at event %d), from event %d, %d runs\n\n", w.Firer, w.Target, w.Declaration, w.At, w.Runs)
	fmt.Fprintf(out, "%-12s %8s %8s %11s\n", "", "mean", "actual", "percentile")
	for _, name := range []string{"hits", "wounds", "unsaved", "casualties", "models_left"} {
		d := w.Measures[name]
		actual, pct := "-", "-"
		if w.Actual != nil {
			actual, pct = fmt.Sprint(d.Actual), fmt.Sprintf("%.1f%%", d.Percentile)
		}
		fmt.Fprintf(out, "%-12s %8.3f %8s %11s\n", name, d.Mean, actual, pct)
	}
	c := w.Measures["casualties"]
	fmt.Fprintln(out, "\ncasualties  runs")
	for _, bin := range c.Hist {
		bar := strings.Repeat("█", max(1, 50*bin.Runs/w.Runs))
		mark := ""
		if w.Actual != nil && bin.Value == c.Actual {
			mark = "  ◀ actual"
		}
		fmt.Fprintf(out, "%10d  %6d %s%s\n", bin.Value, bin.Runs, bar, mark)
	}
	if w.Actual == nil {
		fmt.Fprintln(out, "\nthe attack has not finished yet: no actual outcome to compare")
	}
}
