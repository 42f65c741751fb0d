package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics/plot"
	"github.com/matchrec/matchrec/replay/analytics/report"
)

func (a *app) reportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report luck|dice|weapons|measurements",
		Short: "Built-in analyses over every recorded match: luck, loaded dice, weapons, measurements",
		Long: `report answers the common questions without SQL, from the analytic tables
(brought up to date with the store first):

  luck     each player's dice luck (successes minus the exact expected
           successes) with how rare it is under fair dice, and unsaved
           wounds caused against expected
  dice     face counts per player and dice source with a chi-square test:
           are these dice loaded? States the rolls a test needs
  weapons  hit and wound rates per weapon against the exact odds
  measurements  how often each side's measurements at the table were
           contested and ruled against

--plot FILE.png draws the report; --json prints it for programs.`,
		Example: `  matchrec report luck --player alice
  matchrec report dice --source manual --plot dice.png
  matchrec --json report weapons --edition 3e`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(errors.New("name a report: luck, dice, weapons or measurements"))
			}
			return usageErr(fmt.Errorf("unknown report %q: luck, dice, weapons or measurements", args[0]))
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.luckCmd(), a.diceCmd(), a.weaponsCmd(), a.measurementsCmd())
	return cmd
}

// runReport connects, syncs the tables, computes the report and prints
// or plots it.
func (a *app) runReport(cmd *cobra.Command, compute func(context.Context, report.Querier) (any, error),
	print func(io.Writer, any), draw func(any, string) error, plotFile string) error {
	if plotFile != "" && !strings.EqualFold(filepath.Ext(plotFile), ".png") {
		return usageErr(fmt.Errorf("--plot %q: only .png files are drawn", plotFile))
	}
	ctx := cmd.Context()
	return a.withAPI(ctx, func(c *recorderAPI) error {
		if err := a.syncTables(ctx, c); err != nil {
			return err
		}
		r, err := compute(ctx, apiQuerier{a: a, c: c})
		if err != nil { // no_data among them: exit 1 with the code
			return err
		}
		if plotFile != "" {
			if err := draw(r, plotFile); err != nil {
				return &cliError{exit: ExitRefused, code: projector.CodePlotFailed, msg: err.Error()}
			}
		}
		if a.json {
			return a.printJSON(r)
		}
		print(a.stdout, r)
		if plotFile != "" {
			fmt.Fprintf(a.stdout, "\nplot written to %s\n", plotFile)
		}
		return nil
	})
}

func (a *app) luckCmd() *cobra.Command {
	var player, plotFile string
	cmd := &cobra.Command{
		Use:   "luck",
		Short: "Each player's luck: actual minus expected, and its percentile under fair dice",
		Long: `luck sums, for each player, every die with a target number they rolled (hit,
wound, save, Look Out Sir and re-rolls): successes minus expected successes
from the exact odds. Under fair dice that total has mean 0 and a known
variance, so z and the percentile say how rare it is (95th percentile: luckier
than 95% of fair-dice players with the same rolls). It also lists unsaved
wounds caused against the expected unsaved wounds of the player's attacks.
--plot draws each player's cumulative luck match by match, with the 95% band
of fair dice.`,
		Example: `  matchrec report luck
  matchrec report luck --player alice --plot alice-luck.png`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runReport(cmd, func(ctx context.Context, q report.Querier) (any, error) {
				return report.Luck(ctx, q, report.LuckOptions{Player: player})
			}, func(w io.Writer, r any) { printLuck(w, r.(*report.LuckReport)) },
				func(r any, f string) error { return plot.Luck(r.(*report.LuckReport), f) }, plotFile)
		},
	}
	cmd.Flags().StringVar(&player, "player", "", "only this player")
	cmd.Flags().StringVar(&plotFile, "plot", "", "draw luck over time to this PNG file")
	return cmd
}

func printLuck(w io.Writer, r *report.LuckReport) {
	tw := &table{w: w}
	tw.row("PLAYER", "MATCHES", "DICE", "SUCCESSES", "EXPECTED", "LUCK", "Z", "PERCENTILE", "UNSAVED", "EXP UNSAVED", "UNSAVED LUCK")
	for _, p := range r.Players {
		tw.row(p.Player, fmt.Sprint(p.Matches), fmt.Sprint(p.Dice), fmt.Sprint(p.Successes), f2(p.Expected), signed(p.Luck),
			signed(p.Z), fmt.Sprintf("%.1f", p.Percentile), fmt.Sprint(p.Wounds), f2(p.ExpWounds), signed(p.WoundLuck))
	}
	tw.flush()
}

func (a *app) diceCmd() *cobra.Command {
	var player, source, plotFile string
	cmd := &cobra.Command{
		Use:   "dice",
		Short: "Are these dice loaded? Face counts and a chi-square test per player and source",
		Long: `dice counts the faces each player rolled, per dice source (manual: physical
dice typed in; digital: rolled by the recorder), and tests each group against
a fair die with Pearson's chi-square (5 degrees of freedom). A group is
flagged when its p-value is below 5% divided by the number of groups tested,
so a report of fair dice flags nothing 95% of the time however many players it
lists. Groups under 30 rolls are not tested. The report states how many rolls
a test needs: to catch a die loaded 2:3:3:3:3:4 with 80% chance, and to catch
dice as far from fair as each group looks.`,
		Example: `  matchrec report dice
  matchrec report dice --player bob --source manual --plot bob-dice.png`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if source != "" && source != "manual" && source != "digital" {
				return usageErr(fmt.Errorf("--source %q: want manual or digital", source))
			}
			return a.runReport(cmd, func(ctx context.Context, q report.Querier) (any, error) {
				return report.Dice(ctx, q, report.DiceOptions{Player: player, Source: source})
			}, func(w io.Writer, r any) { printDice(w, r.(*report.DiceReport)) },
				func(r any, f string) error { return plot.Dice(r.(*report.DiceReport), f) }, plotFile)
		},
	}
	cmd.Flags().StringVar(&player, "player", "", "only this player's dice")
	cmd.Flags().StringVar(&source, "source", "", "only manual or digital dice")
	cmd.Flags().StringVar(&plotFile, "plot", "", "draw the face histograms to this PNG file")
	return cmd
}

func printDice(w io.Writer, r *report.DiceReport) {
	tw := &table{w: w}
	tw.row("PLAYER", "SOURCE", "ROLLS", "1s", "2s", "3s", "4s", "5s", "6s", "CHI2", "P", "VERDICT", "ROLLS NEEDED")
	for _, g := range r.Groups {
		verdict := "fair"
		switch {
		case !g.Tested:
			verdict = fmt.Sprintf("too few (<%d)", report.MinRolls)
		case g.Flag:
			verdict = "LOADED?"
		}
		needed := "-"
		if g.Needed > 0 {
			needed = fmt.Sprint(g.Needed)
		}
		cells := []string{g.Player, g.Source, fmt.Sprint(g.N)}
		for _, c := range g.Faces {
			cells = append(cells, fmt.Sprint(c))
		}
		cells = append(cells, f2(g.Chi2), fmt.Sprintf("%.4f", g.P), verdict, needed)
		tw.row(cells...)
	}
	tw.flush()
	fmt.Fprintf(w, "\nflagged: p < %.4g (5%% over %s tested). A die loaded 2:3:3:3:3:4 is caught 80%% of the time after %d rolls;\n",
		r.Level, plural(countTested(r), "group"), r.ReferenceNeeded)
	fmt.Fprintln(w, "ROLLS NEEDED is the rolls that would catch dice as far from fair as that group looks.")
}

func countTested(r *report.DiceReport) int {
	n := 0
	for _, g := range r.Groups {
		if g.Tested {
			n++
		}
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (a *app) weaponsCmd() *cobra.Command {
	var edition, plotFile string
	cmd := &cobra.Command{
		Use:   "weapons",
		Short: "Hit and wound rates per weapon against the exact odds",
		Long: `weapons lists, per edition and weapon, shots, hits and the hit rate beside the
rate the edition's exact odds expect (re-rolls, BS 6+ tables, snap shots, and
a template's or blast's hits given where it was placed) with the 95% interval
fair dice stay in, z (how many standard deviations the hits are from
expected), and wounds per hit against expected, with theirs. A blast or
template hits every model under it, so its rate may pass 100%.`,
		Example: `  matchrec report weapons
  matchrec report weapons --edition 6e --plot weapons.png`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if edition != "" && !slices.Contains(editions.IDs(), edition) {
				return usageErr(fmt.Errorf("--edition %q: known editions are %s", edition, strings.Join(editions.IDs(), ", ")))
			}
			return a.runReport(cmd, func(ctx context.Context, q report.Querier) (any, error) {
				return report.Weapons(ctx, q, report.WeaponsOptions{Edition: edition})
			}, func(w io.Writer, r any) { printWeapons(w, r.(*report.WeaponsReport)) },
				func(r any, f string) error { return plot.Weapons(r.(*report.WeaponsReport), f) }, plotFile)
		},
	}
	cmd.Flags().StringVar(&edition, "edition", "", "only this edition")
	cmd.Flags().StringVar(&plotFile, "plot", "", "draw the rates to this PNG file")
	return cmd
}

func printWeapons(w io.Writer, r *report.WeaponsReport) {
	tw := &table{w: w}
	tw.row("EDITION", "WEAPON", "ATTACKS", "SHOTS", "HITS", "HIT RATE", "EXPECTED", "Z", "WOUNDS", "WOUND RATE", "EXPECTED", "Z")
	for _, x := range r.Weapons {
		tw.row(x.Edition, x.Weapon, fmt.Sprint(x.Attacks), fmt.Sprint(x.Shots), fmt.Sprint(x.Hits), pct(x.HitRate), band(x.ExpHit, x.HitBand),
			zOf(x.HitZ, x.HitVar), fmt.Sprint(x.Wounds), pct(x.WoundRate), band(x.ExpWound, x.WoundBand), zOf(x.WoundZ, x.WoundVar))
	}
	tw.flush()
	fmt.Fprintln(w, "(expected: the exact odds, ± the 95% interval of fair dice; Z: — where the count is not random, as a template's hits)")
}

// band is an expected rate with its 95% interval: "77.8% ±3.1".
func band(rate, half float64) string {
	if half == 0 {
		return pct(rate)
	}
	return fmt.Sprintf("%s ±%.1f", pct(rate), 100*half)
}

// zOf is a z-score, or "—" for a count that is not random.
func zOf(z, variance float64) string {
	if variance <= 1e-12 {
		return "—"
	}
	return signed(z)
}

func f2(x float64) string     { return fmt.Sprintf("%.2f", x) }
func signed(x float64) string { return fmt.Sprintf("%+.2f", x) }
func pct(x float64) string    { return fmt.Sprintf("%.1f%%", 100*x) }

// table aligns report columns: the first ones left, numbers right.
type table struct {
	w    io.Writer
	rows [][]string
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) flush() {
	if len(t.rows) == 0 {
		return
	}
	width := make([]int, len(t.rows[0]))
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if isNumeric(c) {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
	}
}

func isNumeric(s string) bool {
	s = strings.TrimSuffix(strings.TrimLeft(s, "+-"), "%")
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}
