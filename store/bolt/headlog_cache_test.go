package bolt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store/storetest"
)

// The log's hash cache (headlog_cache.go) only ever holds committed
// hashes: a transaction that wrote entries and rolled back leaves nothing
// in it, though the next commit writes other hashes at the same indexes.
// Every proof read through the cache is the proof read from the file
// alone, and checks against the newest checkpoint.
func TestHashCacheHoldsOnlyCommittedHashes(t *testing.T) {
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	signer, err := headlog.NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(t.TempDir(), "matchrec.db"), Options{Signer: signer, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	heads := map[string]events.Hash{}
	seqs := map[string]uint64{}
	appendSome := func(round int) {
		for m := 0; m < 5; m++ {
			match := fmt.Sprint("m", m)
			evs := storetest.MakeEvents(match, seqs[match]+1, heads[match], 1+(m+round)%3)
			if _, err := s.AppendLogged(ctx, match, seqs[match], evs, nil, nil); err != nil {
				t.Fatal(err)
			}
			seqs[match], heads[match] = evs[len(evs)-1].Seq, evs[len(evs)-1].Hash
		}
		// Proofs of every leaf so far, through the cache: they fill it.
		size := s.logSize(t)
		for leaf := int64(0); leaf < size; leaf += 3 {
			if _, err := s.ProveInclusion(ctx, leaf, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendSome(0)

	// A transaction enters six entries, reads their hashes back, and
	// rolls back; then one commit enters six others at the same leaves
	// (reading, as it goes, hashes it wrote itself at indexes the ghost
	// wrote too).
	errRollBack := errors.New("roll back")
	err = s.db.Update(func(tx *bbolt.Tx) error {
		l, err := openLogTx(tx, s.hashes)
		if err != nil {
			return err
		}
		for i, e := range storetest.MakeEvents("ghost", 1, events.Hash{}, 6) {
			if _, err := l.add(&e); err != nil {
				return err
			}
			if _, err := tlog.TreeHash(l.size, l); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatalf("the ghost transaction: %v", err)
	}
	if _, err := s.AppendLogged(ctx, "real", 0, storetest.MakeEvents("real", 1, events.Hash{}, 6), nil, nil); err != nil {
		t.Fatal(err)
	}
	for round := 1; round < 4; round++ {
		appendSome(round)
	}

	cp, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for leaf := int64(0); leaf < cp.Size; leaf++ {
		in, err := s.ProveInclusion(ctx, leaf, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.Check(cp); err != nil {
			t.Fatalf("leaf %d of %d: the cached proof does not check: %v", leaf, cp.Size, err)
		}
		var raw tlog.RecordProof
		err = s.db.View(func(tx *bbolt.Tx) error {
			l, err := openLogTx(tx, nil)
			if err != nil {
				return err
			}
			raw, err = tlog.ProveRecord(cp.Size, leaf, l)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(raw, in.Proof) {
			t.Fatalf("leaf %d: the proof through the cache differs from the file's", leaf)
		}
	}
	hits := 0
	for x := int64(0); x < tlog.StoredHashCount(cp.Size); x++ {
		if _, ok := s.hashes.get(x); ok {
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("the proofs put nothing in the cache")
	}
}

func (s *Store) logSize(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := s.readLog(context.Background(), func(l *logTx) error { n = l.size; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
