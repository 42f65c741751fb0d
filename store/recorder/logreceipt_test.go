package recorder

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/identity"
)

// On a store that keeps the transparency log, a reply's receipt is the
// checkpoint of its group commit and the head's inclusion proof — no
// signature of its own — and it verifies offline; commands committed in
// one batch share one checkpoint (one signature).
func TestReceiptsAreCheckpointsAndProofs(t *testing.T) {
	ctx := context.Background()
	k, err := auth.GenerateKey("", "recorder")
	if err != nil {
		t.Fatal(err)
	}
	id := identity.FromKey(k)
	signer, _ := id.LogSigner()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "events.db"), bolt.Options{Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	r := New(st, Options{Rules: editions.Lookup, Identity: id})
	var created []api.CreateResult
	for _, m := range []string{"m1", "m2", "m3", "m4"} {
		req := fixture()
		req.Match = m
		res, err := r.Create(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, res)
	}
	var mu sync.Mutex
	var receipts []*auth.Receipt
	requests := map[string]string{}
	var wg sync.WaitGroup
	for _, c := range created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Execute(ctx, c.Match, c.Tokens[api.RolePlayer("alice")], projector.Command{Type: projector.CmdNextTurn})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			receipts = append(receipts, res.Receipt, c.Receipt)
			requests[c.Match] = res.Request
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, rc := range receipts {
		if rc.Log == nil || len(rc.Signature) != 0 {
			t.Fatalf("receipt for %s/%d: a signature of its own, or no log proof", rc.Match, rc.Seq)
		}
		if err := rc.Verify(); err != nil {
			t.Fatal(err)
		}
		_, e, err := rc.LogEntry()
		if err != nil || e.Signed || (rc.Seq == 2 && e.Kind != "") {
			t.Fatalf("%+v %v", e, err)
		}
		// A receipt re-pointed at another head no longer verifies.
		bad := *rc
		bad.Seq++
		if bad.Verify() == nil {
			t.Fatal("a receipt for another head verifies")
		}
	}
	// The created entry is marked.
	leaf, _ := st.LogLeaf(ctx, "m1", 1)
	cp, _ := st.Checkpoint(ctx)
	in, _ := st.ProveInclusion(ctx, leaf, cp.Size)
	c, _ := headlog.Open(cp.Note, id.PublicKey())
	if e, err := in.Check(c); err != nil || e.Kind != headlog.KindCreated || e.Seq != 1 {
		t.Fatalf("%+v %v", e, err)
	}
	// A status is answered with a receipt from the log too, against the
	// newest checkpoint.
	sr, err := r.Status(ctx, api.StatusRequest{Match: "m1", Role: api.RolePlayer("alice"), Request: requests["m1"]})
	if err != nil || !sr.Recorded || sr.Receipt == nil || sr.Receipt.Log == nil || sr.Receipt.Verify() != nil {
		t.Fatalf("status: %+v %v", sr, err)
	}
	if got, _, _ := sr.Receipt.LogEntry(); got.Size != cp.Size {
		t.Fatalf("the status receipt is against a tree of %d, the newest has %d", got.Size, cp.Size)
	}
}
