package bolt_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// damagedAt stores n events of match "a" and overwrites the record of
// event bad with bytes that do not decode, then reopens the store.
func damagedAt(t *testing.T, n int, bad uint64) *bolt.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(bg, "a", 0, storetest.MakeEvents("a", 1, events.Hash{}, n)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("matches")).Bucket([]byte("a")).Put(be(bad), []byte{0xc1})
	})
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err = bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestScanDecodesOnlyWhatItHandsOut: a scan decodes each record only when
// its callback is about to get it, so a reader that stops early (a seek
// checking one event) never pays for, nor fails on, the records after.
func TestScanDecodesOnlyWhatItHandsOut(t *testing.T) {
	s := damagedAt(t, 100, 3)
	for _, from := range []uint64{1, 2} {
		got := 0
		err := s.Scan(bg, "a", from, func(e events.Event) error {
			got++
			if e.Seq != from {
				t.Fatalf("scan from %d gave event %d first", from, e.Seq)
			}
			return events.ErrStop
		})
		if !errors.Is(err, events.ErrStop) || got != 1 {
			t.Fatalf("scan from %d stopped at the first event: %v after %d events, want ErrStop after 1", from, err, got)
		}
	}
	// Reading on hands out every good event before the damaged one.
	var seen []uint64
	err := s.Scan(bg, "a", 1, func(e events.Event) error {
		seen = append(seen, e.Seq)
		return nil
	})
	if !errors.Is(err, bolt.ErrCorrupt) || len(seen) != 2 {
		t.Fatalf("full scan: %v after events %v, want ErrCorrupt after events 1 and 2", err, seen)
	}
}

// TestScanBoundsChunkBytes: records too large for one chunk's byte budget
// are read over several transactions, all of them, in order.
func TestScanBoundsChunkBytes(t *testing.T) {
	s := openTest(t, bolt.Options{NoSync: true})
	var evs []events.Event
	var prev events.Hash
	for seq := uint64(1); seq <= 12; seq++ {
		e, err := events.New("big", seq, prev, storetest.Clock, events.Actor{Kind: events.ActorSystem},
			&events.MatchEnded{Reason: strings.Repeat("x", 300<<10)})
		if err != nil {
			t.Fatal(err)
		}
		evs, prev = append(evs, e), e.Hash
	}
	if err := s.Append(bg, "big", 0, evs); err != nil {
		t.Fatal(err)
	}
	for _, from := range []uint64{1, 4, 12} {
		next := from
		err := s.Scan(bg, "big", from, func(e events.Event) error {
			if e.Seq != next || e.Hash != evs[next-1].Hash {
				t.Fatalf("scan from %d: got event %d, want %d", from, e.Seq, next)
			}
			next++
			return nil
		})
		if err != nil || next != 13 {
			t.Fatalf("scan from %d: %v, ended before event %d", from, err, next)
		}
		keys := 0
		err = s.ScanRaw(bg, "big", from, func(key uint64, rec []byte) error {
			if key != from+uint64(keys) || len(rec) < 300<<10 {
				t.Fatalf("raw scan from %d: record %d of %d bytes", from, key, len(rec))
			}
			keys++
			return nil
		})
		if err != nil || keys != 13-int(from) {
			t.Fatalf("raw scan from %d: %v after %d records", from, err, keys)
		}
	}
}
