package headlog

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
)

func key(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, 32)) }

func entry(match string, seq uint64) Entry {
	return Entry{Match: match, Seq: seq, Hash: sha256.Sum256([]byte(fmt.Sprint(match, seq))), Signed: seq%2 == 0, Kind: KindCreated, Prev: int64(seq) - 1}
}

func TestEntryRoundTripAndCanonical(t *testing.T) {
	e := entry("friday", 12)
	b := e.Marshal()
	got, err := ParseEntry(b)
	if err != nil || got != e {
		t.Fatalf("%+v %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"trailing byte": append(bytes.Clone(b), 0),
		"cut":           b[:len(b)-1],
		"empty":         nil,
		"version 2":     append([]byte{0x97, 0x02}, b[2:]...),
		"prev -2":       append(bytes.Clone(b[:len(b)-1]), 0xfe),
		"long int":      bytes.Replace(b, []byte{0x0c}, []byte{0xcd, 0x00, 0x0c}, 1),
	} {
		if _, err := ParseEntry(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckpointSignOpen(t *testing.T) {
	// Keys whose verifier key's base64 holds a "+" sign too.
	for b := byte(0); b < 40; b++ {
		if _, err := NewSigner(key(b)); err != nil {
			t.Fatalf("key %d: %v", b, err)
		}
	}
	k := key(1)
	s, err := NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public().(ed25519.PublicKey)
	if s.Name() != Origin(pub) {
		t.Fatalf("name %q", s.Name())
	}
	c, err := Sign(s, 5, tlog.Hash{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Open(c.Note, pub)
	if err != nil || got.Size != 5 || got.Hash != (tlog.Hash{1, 2, 3}) {
		t.Fatalf("%+v %v", got, err)
	}
	// Another recorder's checkpoint, and a forged one, are refused.
	if _, err := Open(c.Note, key(2).Public().(ed25519.PublicKey)); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("foreign: %v", err)
	}
	forged := bytes.Replace(c.Note, []byte("\n5\n"), []byte("\n6\n"), 1)
	if _, err := Open(forged, pub); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("forged: %v", err)
	}
	if _, err := Open([]byte("nonsense"), pub); !errors.Is(err, ErrMalformed) {
		t.Fatalf("nonsense: %v", err)
	}
	// A checkpoint of the right key but another origin (a note signed
	// with the recorder's key for some other purpose) is refused.
	if !strings.HasPrefix(string(c.Note), OriginPrefix) {
		t.Fatalf("origin line: %q", c.Note)
	}
}

func TestInclusionAndConsistency(t *testing.T) {
	k := key(3)
	pub := k.Public().(ed25519.PublicKey)
	s, _ := NewSigner(k)
	var tr MemTree
	var cps []Checkpoint
	for i := 0; i < 300; i++ {
		if _, err := tr.Append(entry(fmt.Sprint("m", i%7), uint64(i)).Marshal()); err != nil {
			t.Fatal(err)
		}
		if i%37 == 0 || i == 299 {
			h, err := tlog.TreeHash(tr.Size(), &tr)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := Sign(s, tr.Size(), h)
			cps = append(cps, c)
		}
	}
	last := cps[len(cps)-1]
	for _, n := range []int64{0, 1, 128, 255, 299} {
		p, err := tlog.ProveRecord(last.Size, n, &tr)
		if err != nil {
			t.Fatal(err)
		}
		in := Inclusion{Index: n, Entry: tr.Entry(n), Proof: p}
		e, err := in.Check(last)
		if err != nil || e.Seq != uint64(n) {
			t.Fatalf("leaf %d: %v", n, err)
		}
		// The proof of another entry, or for another index, fails.
		other := in
		other.Entry = tr.Entry((n + 1) % 300)
		if _, err := other.Check(last); !errors.Is(err, ErrBadProof) {
			t.Fatalf("another entry: %v", err)
		}
		other = in
		other.Index = (n + 3) % 300
		if _, err := other.Check(last); !errors.Is(err, ErrBadProof) {
			t.Fatalf("another index: %v", err)
		}
	}
	for _, old := range cps {
		p, err := tlog.ProveTree(last.Size, old.Size, &tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckConsistency(old, last, p); err != nil {
			t.Fatalf("from %d: %v", old.Size, err)
		}
		if len(p) > 2*9 {
			t.Fatalf("a consistency proof of %d hashes for 300 leaves: not O(log n)", len(p))
		}
	}
	// A second history: the same first 100 entries, then others.
	var fork MemTree
	for i := 0; i < 300; i++ {
		e := entry(fmt.Sprint("m", i%7), uint64(i))
		if i == 150 {
			e.Hash[0] ^= 1
		}
		_, _ = fork.Append(e.Marshal())
	}
	fh, _ := tlog.TreeHash(300, &fork)
	fc, _ := Sign(s, 300, fh)
	if err := CheckConsistency(last, fc, nil); !errors.Is(err, ErrFork) {
		t.Fatalf("two histories of one size: %v", err)
	}
	p, _ := tlog.ProveTree(300, cps[1].Size, &fork)
	if err := CheckConsistency(cps[1], fc, p); err != nil {
		t.Fatalf("the fork agrees before entry 150: %v", err)
	}
	old := cps[len(cps)-2] // size 260 > 150
	p, _ = tlog.ProveTree(300, old.Size, &fork)
	if err := CheckConsistency(old, fc, p); !errors.Is(err, ErrFork) {
		t.Fatalf("a fork after entry 150 was not caught: %v", err)
	}
	_ = pub
}

func TestCreates(t *testing.T) {
	mc, _ := events.EncodePayload(&events.MatchCreated{Edition: "3e", Keys: map[string]string{"judge": "aa"}})
	c, s := Creates(&events.Event{Type: events.TypeMatchCreated, Payload: mc})
	if !c || !s {
		t.Fatal("a match.created with keys")
	}
	mc, _ = events.EncodePayload(&events.MatchCreated{Edition: "3e"})
	if c, s := Creates(&events.Event{Type: events.TypeMatchCreated, Payload: mc}); !c || s {
		t.Fatal("a match.created without keys")
	}
	if c, _ := Creates(&events.Event{Type: events.TypeTurnStarted}); c {
		t.Fatal("turn.started creates nothing")
	}
}
