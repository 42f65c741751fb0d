// Package cli is the matchrec command line: every command is a thin
// client of the recorder's NATS API, whether the recorder runs as a
// `matchrec serve` process or, for the duration of one command, inside the
// CLI itself (see connect.go). One code path for both keeps what a script
// sees from the CLI identical to what `nats req` sees.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
)

// Exit codes.
const (
	ExitOK         = 0
	ExitRefused    = 1 // the recorder refused or failed the command; an audit FAILED
	ExitUsage      = 2 // bad usage, bad input file, or nothing to talk to
	ExitUnresolved = 3 // an audit found the record sound, with a dispute or contested roll unruled
)

// app is one invocation: its streams and global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	data     string
	server   string
	receipts string // the receipts directory (local.go)
	natsAuth natsFlags
	json     bool
	logLevel string
	log      zerolog.Logger
	// rehearsal: this app plays a script against a throw-away recorder
	// first (play.go), whose errors record nothing.
	rehearsal bool
	// createsData: the command records, so a missing data directory is
	// made (datadir.go); a read command refuses one instead.
	createsData bool
}

// Run runs the command line args (without the program name) and returns
// the process exit code. It never panics: a bug is reported as an internal
// error with exit code 2.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, log: zerolog.Nop()}
	defer func() {
		if p := recover(); p != nil {
			a.log.Error().Interface("panic", p).Bytes("stack", debug.Stack()).Msg("panic")
			code = a.fail(&cliError{exit: ExitUsage, code: projector.CodeInternal, msg: fmt.Sprintf("unexpected failure: %v (please report it)", p)})
		}
	}()
	root := a.root()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		return a.fail(err)
	}
	return ExitOK
}

func (a *app) root() *cobra.Command {
	defData := os.Getenv("MATCHREC_DATA")
	if defData == "" {
		defData = "./matchrec-data"
	}
	root := &cobra.Command{
		Use:   "matchrec",
		Short: "Record Warhammer 40,000 matches as a verifiable event log",
		Long: `matchrec records Warhammer 40,000 matches as an append-only, hash-chained
event log: players declare actions and roll dice, the edition's rules decide
every outcome, and anyone can replay the log to the same board.

Commands talk to a recorder over its NATS API: the one started by
'matchrec serve' on the same --data directory (found through
<data>/server.json, with the client credentials it names), the one at
--server (log in with the --nats-* flags), or else one started inside the
command for its duration.`,
		Example: `  matchrec play examples/3e-boltguns-vs-boyz.yaml
  matchrec log 3fa9c2e1b7d0
  matchrec --json state 3fa9c2e1b7d0`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.createsData = cmd.Annotations[annotCreatesData] != ""
			return a.setupLog(cmd)
		},
	}
	a.versionFlag(root)
	pf := root.PersistentFlags()
	pf.StringVar(&a.data, "data", defData, "data directory: store, embedded NATS files, server.json ($MATCHREC_DATA)")
	pf.StringVar(&a.server, "server", "", "use the recorder on this NATS server (nats://HOST:PORT) instead of the data directory's")
	a.natsAuth.register(pf)
	pf.BoolVar(&a.json, "json", false, "print results (and errors) as JSON")
	pf.StringVar(&a.receipts, "receipts", "", "where the recorder's receipts are kept: default $MATCHREC_RECEIPTS, else ~/.local/share/matchrec/receipts (docs/bundle.md)")
	pf.StringVar(&a.logLevel, "log-level", "warn", "log level: trace, debug, info, warn, error, disabled")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	root.AddCommand(a.serveCmd(), createsData(a.playCmd()), createsData(a.newCmd()), a.declareCmd(), a.rollCmd(),
		a.logCmd(), a.stateCmd(), a.matchesCmd(), a.versionCmd())
	// Judges and lines of play (audit.go, lines.go, replaycmd.go).
	root.AddCommand(a.auditCmd(), a.verifyCmd(), a.proveCmd(), a.witnessCmd(), a.disputesCmd(), a.rulingsCmd(), a.replayCmd(), a.branchCmd(), a.branchesCmd(), a.diffCmd(), a.whatifCmd())
	// Keys, receipts and seeds (keys.go, send.go).
	root.AddCommand(a.keygenCmd(), a.identityCmd(), a.statusCmd(), a.seedCmd(), a.joinCmd(), a.clusterDemoCmd(), a.venueDemoCmd(), a.repairBusCmd())
	// Analytics (analytics.go, sql.go, export.go, report.go, generate.go).
	root.AddCommand(a.sqlCmd(), a.exportCmd(), a.reportCmd(), createsData(a.generateCmd()))
	// Armies from list builders (rosters.go).
	root.AddCommand(a.rosterCmd())
	return root
}

// setupLog configures zerolog on stderr: a console writer for a person at
// a terminal, JSON lines for anything else (a log collector, a CI file).
func (a *app) setupLog(cmd *cobra.Command) error {
	level := a.logLevel
	if cmd.Name() == "serve" && !cmd.Flags().Changed("log-level") {
		level = "info" // a server's start, stop and outages are worth seeing
	}
	lv, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		return usageErr(fmt.Errorf("--log-level %q: want trace, debug, info, warn, error or disabled", a.logLevel))
	}
	var w io.Writer = a.stderr
	if f, ok := a.stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		w = zerolog.ConsoleWriter{Out: a.stderr, TimeFormat: "15:04:05"}
	}
	a.log = zerolog.New(w).Level(lv).With().Timestamp().Logger()
	return nil
}

// printJSON writes v as one JSON document on stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cliError is an error with its exit code and stable code.
type cliError struct {
	exit int
	code projector.Code
	msg  string
}

func (e *cliError) Error() string { return string(e.code) + ": " + e.msg }

func usageErr(err error) error {
	return &cliError{exit: ExitUsage, code: projector.CodeUsage, msg: err.Error()}
}

// fail prints err and returns its exit code.
func (a *app) fail(err error) int {
	ce := classify(err)
	if a.json {
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": string(ce.code), "message": ce.msg}})
		fmt.Fprintln(a.stderr, string(b))
	} else {
		fmt.Fprintf(a.stderr, "error: %s: %s\n", ce.code, ce.msg)
		if ce.code == projector.CodeUsage {
			fmt.Fprintln(a.stderr, "(see 'matchrec --help' or 'matchrec COMMAND --help')")
		}
	}
	return ce.exit
}

// classify gives every error an exit code and a code: API errors keep the
// recorder's code (a refusal's own, like not_your_turn); errors cobra makes
// itself (unknown command, bad arguments) are usage errors.
func classify(err error) *cliError {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	if ae := apiError(err); ae != nil {
		return &cliError{exit: ExitRefused, code: ae.Code, msg: ae.Message}
	}
	return &cliError{exit: ExitUsage, code: projector.CodeUsage, msg: err.Error()}
}

// Argument validators that report usage errors.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErr(fmt.Errorf("unexpected argument %q", args[0]))
	}
	return nil
}

func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return usageErr(fmt.Errorf("want %d argument(s): %s; got %d", len(names), strings.Join(names, " "), len(args)))
		}
		return nil
	}
}
