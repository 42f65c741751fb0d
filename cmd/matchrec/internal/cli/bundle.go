package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
)

// exportBundle writes match's self-verifying bundle (api.Bundle) to
// file: every stored record, the lineage and ancestors' reveals of a
// branch, and the recorder's state hash. It writes to a temporary file and
// renames it, so a failed export leaves no partial file behind.
func (a *app) exportBundle(ctx context.Context, match, file string) error {
	return a.withAPI(ctx, func(c *recorderAPI) error {
		b, err := fetchBundle(ctx, c, match, false)
		if err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(file), ".bundle-*")
		if err != nil {
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		defer os.Remove(tmp.Name())
		if err := replay.WriteBundle(tmp, b); err != nil {
			tmp.Close()
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		if err := tmp.Close(); err != nil {
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		if err := os.Rename(tmp.Name(), file); err != nil {
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		if !a.json {
			fmt.Fprintf(a.stderr, "wrote %s: %d events of match %s\n", file, len(b.Records), match)
		}
		return nil
	})
}
