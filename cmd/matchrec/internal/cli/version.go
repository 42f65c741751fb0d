package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
)

// Version, Commit and Date are set at build time (the Makefile:
// -ldflags "-X .../cli.Version=v1.2.3 -X .../cli.Commit=… -X .../cli.Date=…").
// A build that does not set them (go build, go install) reads them from
// the module's build information instead (buildInfo).
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

// VersionInfo is what `version --json` (and `--json --version`) prints.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`     // when it was built (ldflags) or committed (VCS stamp)
	Modified  bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Go        string `json:"go"`
	OS        string `json:"os"`
	Analytics bool   `json:"analytics"`
}

// versionInfo is this binary's version: the ldflags' values where set,
// the build information's (the module version `go install` records, the
// VCS revision and time `go build` stamps) for the rest.
func versionInfo() VersionInfo {
	v := VersionInfo{Version: Version, Commit: Commit, Date: Date, Go: runtime.Version(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, Analytics: node.HasAnalytics}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fillFromBuildInfo(&v, bi)
	}
	return v
}

// fillFromBuildInfo fills what the ldflags left unset from bi.
func fillFromBuildInfo(v *VersionInfo, bi *debug.BuildInfo) {
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	ldCommit := v.Commit != ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if !ldCommit {
				v.Commit = s.Value
			}
		case "vcs.time":
			if v.Date == "" {
				v.Date = s.Value
			}
		case "vcs.modified":
			if !ldCommit {
				v.Modified = s.Value == "true"
			}
		}
	}
}

// String is the line `version` and `--version` print.
func (v VersionInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "matchrec %s", v.Version)
	var parts []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += "-dirty"
		}
		parts = append(parts, "commit "+c)
	}
	if v.Date != "" {
		parts = append(parts, "built "+v.Date)
	}
	parts = append(parts, v.Go+" "+v.OS)
	fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	if !v.Analytics {
		b.WriteString(", built without the analytics")
	}
	return b.String()
}

// versionFlag gives root a --version flag that prints what `version`
// prints (as JSON with --json), and makes root itself, run bare, show its
// help.
func (a *app) versionFlag(root *cobra.Command) {
	var show bool
	root.Flags().BoolVar(&show, "version", false, "print matchrec's version, commit and build date (with --json: as JSON)")
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return usageErr(fmt.Errorf("%s", msg))
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		if show {
			return a.printVersion()
		}
		return cmd.Help()
	}
}

func (a *app) printVersion() error {
	v := versionInfo()
	if a.json {
		return a.printJSON(v)
	}
	fmt.Fprintln(a.stdout, v.String())
	return nil
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print matchrec's version, commit and build date",
		Long: `version prints matchrec's version, the commit it was built from and when,
the Go version and platform, and whether the analytics are built in. A
binary built by 'make build' has them from the Makefile; one built with
'go build' or 'go install' from the build information Go stamps into it
(the module version, the VCS revision and its time, "-dirty" for a tree
with uncommitted changes). With --json the same as a JSON object.`,
		Example: "  matchrec version\n  matchrec version --json\n  matchrec --json --version",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return a.printVersion() },
	}
}
