package bolt_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

func logKey(t *testing.T) (ed25519.PublicKey, bolt.Options) {
	t.Helper()
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	s, err := headlog.NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	return k.Public().(ed25519.PublicKey), bolt.Options{Signer: s, NoSync: true}
}

// Every appended event is an entry of one tree over all matches; each
// append is told its last event's leaf and a checkpoint signed after its
// batch, whose inclusion proof verifies; later checkpoints extend earlier
// ones (consistency), across a reopen.
func TestHeadLogAppendProveReopen(t *testing.T) {
	pub, opts := logKey(t)
	path := filepath.Join(t.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		match string
		seq   uint64
		lg    store.Logged
	}
	var mu sync.Mutex
	var all []got
	var wg sync.WaitGroup
	for m := 0; m < 4; m++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			match := fmt.Sprint("m", m)
			var prev events.Hash
			for i := 0; i < 10; i++ {
				evs := storetest.MakeEvents(match, uint64(i*2+1), prev, 2)
				lg, err := s.AppendLogged(bg, match, uint64(i*2), evs, nil, nil)
				if err != nil {
					t.Error(err)
					return
				}
				prev = evs[1].Hash
				mu.Lock()
				all = append(all, got{match, evs[1].Seq, lg})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var newest headlog.Checkpoint
	for _, g := range all {
		cp, err := headlog.Open(g.lg.Checkpoint.Note, pub)
		if err != nil {
			t.Fatalf("%s/%d: %v", g.match, g.seq, err)
		}
		in, err := s.ProveInclusion(bg, g.lg.Leaf, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		e, err := in.Check(cp)
		if err != nil || e.Match != g.match || e.Seq != g.seq {
			t.Fatalf("%s/%d: entry %+v, %v", g.match, g.seq, e, err)
		}
		if cp.Size > newest.Size {
			newest = cp
		}
	}
	if newest.Size != 80 {
		t.Fatalf("the log has %d entries for 80 events", newest.Size)
	}
	for _, g := range all {
		p, err := s.ProveConsistency(bg, g.lg.Checkpoint.Size, newest.Size)
		if err != nil {
			t.Fatal(err)
		}
		if err := headlog.CheckConsistency(g.lg.Checkpoint, newest, p); err != nil {
			t.Fatal(err)
		}
	}
	lv, err := s.LogLeaves(bg, "m2")
	if err != nil || lv.Created < 0 || lv.Newest < lv.Created || lv.Ended != -1 {
		t.Fatalf("%+v %v", lv, err)
	}
	if _, err := s.LogLeaves(bg, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a match the log has not: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bolt.Check(path); err != nil {
		t.Fatal(err)
	}
	// Reopened: the same tree, signed again on demand.
	s, err = bolt.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cp, err := s.Checkpoint(bg)
	if err != nil || cp.Size != newest.Size || cp.Hash != newest.Hash {
		t.Fatalf("after a reopen: %+v %v", cp, err)
	}
}

// A store recorded before the log existed gets one holding every event it
// has, when it is opened.
func TestHeadLogBackfill(t *testing.T) {
	pub, opts := logKey(t)
	path := filepath.Join(t.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	evs := storetest.MakeEvents("old", 1, events.Hash{}, 5)
	if err := s.Append(bg, "old", 0, evs); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Checkpoint(bg)
	_ = s.Close()
	// As an older build left it: no log buckets.
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range []string{"tlog", "tlog-hashes", "tlog-entries", "tlog-matches"} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	_ = db.Close()
	s, err = bolt.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cp, err := s.Checkpoint(bg)
	if err != nil || cp.Size != 5 || cp.Hash != before.Hash {
		t.Fatalf("backfilled %+v, was %+v (%v)", cp, before, err)
	}
	leaf, err := s.LogLeaf(bg, "old", 3)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.ProveInclusion(bg, leaf, cp.Size)
	c, _ := headlog.Open(cp.Note, pub)
	if e, err := in.Check(c); err != nil || e.Seq != 3 {
		t.Fatalf("%+v %v", e, err)
	}
}
