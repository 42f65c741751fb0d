package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
)

// annotCreatesData marks the commands that record something new (new,
// play, generate; serve opens its node itself): only they may start a
// recorder on a data directory that does not exist yet, and so create it.
// Every other command reads what is there, and a --data that names no
// directory is a typo to report, not an empty store to make.
const annotCreatesData = "matchrec/creates-data"

// createsData marks cmd as one that records, and returns it.
func createsData(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotCreatesData] = "yes"
	return cmd
}

// checkDataDir refuses a read command's --data directory that does not
// exist (exit 2, no_data_dir), naming it; nothing is created.
func (a *app) checkDataDir() error {
	if a.createsData {
		return nil
	}
	st, err := os.Stat(a.data)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &cliError{exit: ExitUsage, code: projector.CodeNoDataDir, msg: fmt.Sprintf(
			"no data directory %s: nothing is recorded there (is --data or $MATCHREC_DATA mistyped?); "+
				"the commands that record (new, play, generate, serve) create it", abs(a.data))}
	case err != nil:
		return &cliError{exit: ExitUsage, code: projector.CodeNoDataDir, msg: fmt.Sprintf("data directory %s: %v", abs(a.data), err)}
	case !st.IsDir():
		return &cliError{exit: ExitUsage, code: projector.CodeNoDataDir, msg: fmt.Sprintf("--data %s is a file, not a data directory", abs(a.data))}
	}
	return nil
}
