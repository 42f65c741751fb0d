package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/clusterrun"
	"github.com/matchrec/matchrec/projector"
)

// clusterDemoCmd is `make cluster-demo`: hidden, as it is a demonstration
// of the cluster (docs/cluster.md), not a tool for recording.
func (a *app) clusterDemoCmd() *cobra.Command {
	var doc string
	var keep bool
	cmd := &cobra.Command{
		Use:    "cluster-demo [EXAMPLE...]",
		Short:  "Run 3 NATS nodes and 3 recorders on this machine, play through all at once, kill one of each, check nothing was lost",
		Hidden: true,
		Long: `cluster-demo starts, in a scratch directory, a 3-node NATS cluster
configured by docs/cluster.md and three recorder processes (this binary,
serve --cluster), each connected to its own node first; plays every
example at once through all three (each step reads the match first, as a
table's screen does, on whichever recorder answers), then 'matchrec play'
through the cluster; kills recorder 1 with SIGKILL in the middle of a
match and restarts it; stops the stream's leader node in the middle of
another; reads every match back through the cluster; then checks every
acknowledged event in the three recorders' stores and on the stream,
audits every match, prints a summary and cleans up. It exits 1 if
anything was lost, doubled or unequal.
`,
		Example: `  make cluster-demo
  matchrec cluster-demo --doc docs/cluster.md examples/*.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args, _ = filepath.Glob("examples/*.yaml")
			}
			if len(args) == 0 {
				return usageErr(fmt.Errorf("no examples: name the scripts to play"))
			}
			bin, err := os.Executable()
			if err != nil {
				return err
			}
			start := time.Now()
			res, err := clusterrun.Demo(cmd.Context(), clusterrun.DemoConfig{Bin: bin, Doc: doc, Examples: args, Out: a.stdout, Keep: keep})
			if err != nil {
				return &cliError{exit: ExitRefused, code: projector.CodeInternal, msg: fmt.Sprintf("cluster demo: %v", err)}
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "\n== summary (%s)\n", time.Since(start).Round(time.Second))
			fmt.Fprintf(a.stdout, "acked events      %d in %d matches\n", res.Acked, res.Matches)
			fmt.Fprintf(a.stdout, "lost              %d\n", res.Lost)
			fmt.Fprintf(a.stdout, "doubled           %d\n", res.Doubled)
			fmt.Fprintf(a.stdout, "gaps              %d\n", res.Gaps)
			fmt.Fprintf(a.stdout, "heads equal       %v (the three recorders and the stream; reads through the cluster: %v)\n", res.HeadsEqual, res.ReadsEqual)
			fmt.Fprintf(a.stdout, "audits CLEAN      %d/%d matches, on every recorder\n", res.AuditClean, res.Matches)
			fmt.Fprintf(a.stdout, "answered by       %v\n", res.ByRecorder)
			fmt.Fprintf(a.stdout, "CLI plays         %d/%d passed through the cluster\n", res.CLIPlays, res.CLIRuns)
			fmt.Fprintf(a.stdout, "failover          recorder killed: commands waited at most %s; leader node stopped: at most %s\n",
				res.RecorderFailover.Round(time.Millisecond), res.NodeFailover.Round(time.Millisecond))
			for _, p := range res.Problems {
				fmt.Fprintln(a.stdout, "problem: "+p)
			}
			if !res.OK() || !res.ReadsEqual || res.CLIPlays != res.CLIRuns || len(res.ByRecorder) < 3 {
				return &cliError{exit: ExitRefused, code: projector.CodeAuditFailed, msg: "the cluster lost, doubled or split events"}
			}
			fmt.Fprintln(a.stdout, "OK: nothing lost, nothing doubled, one truth")
			return nil
		},
	}
	cmd.Flags().StringVar(&doc, "doc", "docs/cluster.md", "the document whose ```conf block configures the NATS nodes")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the scratch directory (its path is printed)")
	return cmd
}
