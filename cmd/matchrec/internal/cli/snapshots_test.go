package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store/bolt"
)

// audit checks the cached snapshots against its own fold of the records
// (the recorder only lists them) and has the ones that differ discarded;
// a clean cache is left alone.
func TestAuditDiscardsSnapshotsThatDiffer(t *testing.T) {
	dir := t.TempDir()
	storeLong(t, dir, 400)
	mustRun(t, dir, "state", longMatchID, "--at", "390") // keeps snapshots at 128, 256, 384
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(dir, node.StoreFile), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := &fold.Seeker{Log: st, Lookup: editions.Lookup}
	if sums, err := k.SnapshotSums(ctx, longMatchID); err != nil || len(sums) != 3 {
		t.Fatalf("snapshots kept: %v %v", sums, err)
	}
	// A forged snapshot whose framing is consistent: only a fold can tell.
	s, err := k.StateAt(ctx, longMatchID, 256)
	if err != nil {
		t.Fatal(err)
	}
	s.Units[0].Models[0].Removed = !s.Units[0].Models[0].Removed
	b, _ := fold.EncodeSnapshot(s)
	if err := st.PutSnapshots(ctx, longMatchID, map[uint64][]byte{256: b}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var rep struct {
		OK                 bool     `json:"ok"`
		SnapshotsDiscarded []uint64 `json:"snapshots_discarded"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "audit", longMatchID)), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.SnapshotsDiscarded) != 1 || rep.SnapshotsDiscarded[0] != 256 {
		t.Fatalf("audit: ok %v, discarded %v; want ok and the snapshot at 256", rep.OK, rep.SnapshotsDiscarded)
	}
	rep.SnapshotsDiscarded = nil
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "audit", longMatchID)), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.SnapshotsDiscarded) != 0 {
		t.Fatalf("second audit: ok %v, discarded %v", rep.OK, rep.SnapshotsDiscarded)
	}
}
