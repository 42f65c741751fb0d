package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/store/bolt"
)

// longEvents is the size of the long match: 100,000 events.
const longEvents = 100_000

// longMatchID names the long match.
const longMatchID = "long"

// longData returns a data directory holding one autoplayed 3e match of
// longEvents events (projtest.LongMatch), made once and kept in the temporary
// directory (it takes a while to play). Tests copy it before writing.
func longData(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("matchrec-long-%d-v2", longEvents))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		tb.Fatal(err)
	}
	storeLong(tb, dir, longEvents)
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// storeLong records an autoplayed 3e match of n events (projtest.LongMatch) as
// match longMatchID in the store of data directory dir.
func storeLong(tb testing.TB, dir string, n int) {
	tb.Helper()
	st, err := bolt.Open(filepath.Join(dir, node.StoreFile), bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	evs := projtest.Relabel(longMatchID, projtest.LongMatch(tb, ed3e.Rules{}, n, 1).Events)
	for i := 0; i < len(evs); i += 10_000 {
		if err := st.Append(context.Background(), longMatchID, uint64(i), evs[i:min(i+10_000, len(evs))]); err != nil {
			tb.Fatal(err)
		}
	}
}
