package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics/report"
)

func (a *app) measurementsCmd() *cobra.Command {
	var player, edition string
	cmd := &cobra.Command{
		Use:   "measurements",
		Short: "How often each side's measurements at the table were contested and ruled against",
		Long: `measurements lists, per edition and player, the measurements taken at a
physical table (matches measured there, and declarations that carried their
facts: docs/events.md#measured-geometry): how many, how many facts, how many
the opponent contested and how many a judge ruled against (voided, or
amended to another value), with the rates, and the contests the ruling left
standing. The rows are the measurements table's (docs/analytics.md).`,
		Example: `  matchrec report measurements
  matchrec --json report measurements --player alice --edition 6e`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if edition != "" && !slices.Contains(editions.IDs(), edition) {
				return usageErr(fmt.Errorf("--edition %q: known editions are %s", edition, strings.Join(editions.IDs(), ", ")))
			}
			return a.runReport(cmd, func(ctx context.Context, q report.Querier) (any, error) {
				return report.Measurements(ctx, q, report.MeasurementsOptions{Player: player, Edition: edition})
			}, func(w io.Writer, r any) { printMeasurements(w, r.(*report.MeasurementsReport)) }, nil, "")
		},
	}
	cmd.Flags().StringVar(&player, "player", "", "only this player's measurements")
	cmd.Flags().StringVar(&edition, "edition", "", "only this edition")
	return cmd
}

func printMeasurements(w io.Writer, r *report.MeasurementsReport) {
	tw := &table{w: w}
	tw.row("EDITION", "PLAYER", "MATCHES", "MEASUREMENTS", "FACTS", "CONTESTED", "RATE", "RULED AGAINST", "RATE", "FACTS CHANGED", "CONTESTS UPHELD")
	for _, x := range r.Players {
		tw.row(x.Edition, x.Player, fmt.Sprint(x.Matches), fmt.Sprint(x.Measurements), fmt.Sprint(x.Facts), fmt.Sprint(x.Contested), pct(x.ContestedRate),
			fmt.Sprint(x.RuledAgainst), pct(x.RuledAgainstPct), fmt.Sprint(x.FactsChanged), fmt.Sprint(x.UpheldContests))
	}
	tw.flush()
}
