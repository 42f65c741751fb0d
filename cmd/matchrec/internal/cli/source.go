package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// log, state and replay read a match either through the recorder (a match
// id) or from a bundle file written by 'export MATCH --bundle FILE' — a
// bundle is the whole match, so everything they show can be told from it
// alone. A match id is letters, digits, '-' and '_' only, so an argument
// with a '.' or a '/' in it is a file: ./friday, friday.bundle.

// isBundleFile reports whether arg names a bundle file, not a match.
func isBundleFile(arg string) bool { return strings.ContainsAny(arg, "./") }

// readBundleFile reads and decodes a bundle file.
func readBundleFile(path string) (*api.Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	defer f.Close()
	b, err := replay.ReadBundle(f)
	if err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: fmt.Sprintf("%s: %v", path, err)}
	}
	return b, nil
}

// matchEvents returns the bundle and decoded events of arg: a bundle file,
// or a match read through the recorder.
func (a *app) matchEvents(ctx context.Context, arg string) (*api.Bundle, []events.Event, error) {
	var b *api.Bundle
	if isBundleFile(arg) {
		var err error
		if b, err = readBundleFile(arg); err != nil {
			return nil, nil, err
		}
	} else if err := a.withAPI(ctx, func(c *recorderAPI) error {
		var err error
		b, err = fetchBundle(ctx, c, arg, false)
		return err
	}); err != nil {
		return nil, nil, err
	}
	evs, err := bundleEvents(b)
	if err != nil {
		return nil, nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	return b, evs, nil
}

// scanOf hands evs to a fold as a store's Scan would.
func scanOf(evs []events.Event) func(func(events.Event) error) error { return fold.FromEvents(evs) }

// foldBundle folds a bundle's events up to event at (0: all), as ruled or
// as played.
func foldBundle(b *api.Bundle, evs []events.Event, at uint64, mode fold.Mode) (*projector.State, error) {
	f := fold.NewFolder(b.Match, editions.Lookup)
	f.Lineage, f.Mode = b.Lineage, mode
	for _, e := range evs {
		if at != 0 && e.Seq > at {
			break
		}
		if err := f.Apply(e); err != nil {
			return nil, &cliError{exit: ExitRefused, code: projector.CodeInternal, msg: fmt.Sprintf("event %d does not fold (run 'matchrec audit'): %v", e.Seq, err)}
		}
	}
	if at != 0 && f.State.Seq < at {
		return nil, &cliError{exit: ExitRefused, code: projector.CodeBadRequest, msg: fmt.Sprintf("match %s has %d events, not %d", b.Match, f.State.Seq, at)}
	}
	return f.State, nil
}
