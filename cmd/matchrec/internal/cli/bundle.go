package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// exportBundle writes match's self-verifying bundle (api.Bundle) to
// file: every stored record, the lineage and ancestors' reveals of a
// branch, and the recorder's state hash. It writes each page as it
// arrives (replay.BundleWriter), so memory stays one page however long the
// match, to a temporary file it renames at the end, so a failed export
// leaves no partial file behind.
func (a *app) exportBundle(ctx context.Context, match, file string, mode os.FileMode) error {
	return a.withAPI(ctx, func(c *recorderAPI) error {
		tmp, err := os.CreateTemp(filepath.Dir(file), ".bundle-*")
		if err != nil {
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		var (
			bw *replay.BundleWriter
			n  int
		)
		// The bundle's log proof carries the consistency proof from the
		// newest checkpoint this CLI kept, and is checked against it.
		req := api.BundleRequest{Match: match}
		pub, err := a.recorderKey(ctx, c, match, "")
		if err != nil {
			return err
		}
		if n := a.keptSize(pub); n > 0 {
			req.LogFrom = []int64{n}
		}
		err = bundlePages(ctx, c, req, func(page *api.BundleResult) error {
			if page.Log != nil {
				if _, err := a.seeCheckpoint(ctx, c, page.Log, pub); err != nil {
					return err
				}
			}
			if bw == nil {
				var err error
				if bw, err = replay.NewBundleWriter(tmp, &page.Bundle); err != nil {
					return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
				}
			}
			n += len(page.Records)
			bw.SetLog(page.Log)
			return bw.Add(page.Keys, page.Records)
		})
		if err != nil {
			return err
		}
		if err := bw.Close(); err != nil {
			return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		if err := tmp.Chmod(mode); err != nil { // CreateTemp makes it 0600
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
			fmt.Fprintf(a.stderr, "wrote %s: %d events of match %s\n", file, n, match)
		}
		return nil
	})
}
