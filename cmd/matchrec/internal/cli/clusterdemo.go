package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/clusterrun"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
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

// venueDemoCmd is `make venue-demo`: hidden, like cluster-demo.
func (a *app) venueDemoCmd() *cobra.Command {
	var (
		doc, example string
		cut          time.Duration
		keep         bool
	)
	cmd := &cobra.Command{
		Use:    "venue-demo",
		Short:  "Run a hub and two venues on this machine, cut a venue's line under play, check both ends",
		Hidden: true,
		Long: `venue-demo starts, in a scratch directory, a league on loopback as
docs/cluster.md ("Venues") configures it: a 3-node NATS hub (JetStream
domain hub) with two recorders (serve --cluster --venues north,south),
and two venues, north and south, each a NATS leaf node with its own
JetStream domain and a recorder (serve --venue). Tables play the example
match after match at both venues; north's line to the hub is cut for
--cut (default a minute) while its tables play on; then it is restored.
It then checks that every acknowledged event is in its venue's store and
stream and exactly once, in order, in the hub's archive and both hub
recorders' stores, that everything audits CLEAN at both ends, that the
hub's viewers read every match as its venue recorded it, that the hub
refused to write a venue's match, and that it knows both venue
recorders' keys. It exits 1 if any of it failed.`,
		Example: `  make venue-demo
  matchrec venue-demo --cut 3m`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := readScript(example, script.DefaultMaxBytes)
			if err != nil {
				return err
			}
			bin, err := os.Executable()
			if err != nil {
				return err
			}
			start := time.Now()
			res, err := clusterrun.VenueDemo(cmd.Context(), bin, doc, sc, cut, keep, a.stdout)
			if err != nil {
				return &cliError{exit: ExitRefused, code: projector.CodeInternal, msg: fmt.Sprintf("venue demo: %v", err)}
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "\n== summary (%s)\n", time.Since(start).Round(time.Second))
			for _, name := range []string{"north", "south"} {
				r := res.Venues[name]
				fmt.Fprintf(a.stdout, "venue %-6s      %d events in %d matches, lost %d, doubled %d, audits CLEAN %d/%d\n", name, r.Acked, r.Matches, r.Lost, r.Doubled, r.AuditClean, r.Matches)
			}
			h := res.Hub
			fmt.Fprintf(a.stdout, "hub archive       %d events in %d matches, lost %d, doubled %d, out of order %d, audits CLEAN %d/%d\n", h.Acked, h.Matches, h.Lost, h.Doubled, h.Disordered, h.AuditClean, h.Matches)
			fmt.Fprintf(a.stdout, "line cut          %s, north recorded %d events meanwhile\n", res.Cut.Round(time.Second), res.DuringCut)
			fmt.Fprintf(a.stdout, "caught up         archive %s, hub viewers %s after the restore\n", res.ArchiveBack.Round(time.Millisecond), res.ViewersBack.Round(time.Millisecond))
			fmt.Fprintf(a.stdout, "one writer        %v; venue keys known at the hub: %v\n", res.OneWriter, res.KeysKnown)
			if !res.OK() {
				return &cliError{exit: ExitRefused, code: projector.CodeAuditFailed, msg: "the league lost, doubled or split events, or wrote a venue's match at the hub"}
			}
			fmt.Fprintln(a.stdout, "OK: every venue event exactly once in the hub's archive, in order; one writer per match")
			return nil
		},
	}
	cmd.Flags().StringVar(&doc, "doc", "docs/cluster.md", "the document whose ```conf blocks configure the hub's nodes and the venues' leaf nodes")
	cmd.Flags().StringVar(&example, "example", "examples/6e-grot-wood-assault.yaml", "the script every table plays")
	cmd.Flags().DurationVar(&cut, "cut", time.Minute, "how long north's line to the hub stays cut")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the scratch directory (its path is printed)")
	return cmd
}
