package headlog

import (
	"crypto/ed25519"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// MaxProof bounds the hashes of a proof: a tree of 2^63 leaves needs 63
// for an inclusion proof, about twice that for consistency.
const MaxProof = 128

// Hash is a tree hash (x/mod's tlog.Hash).
type Hash = tlog.Hash

// Inclusion proves that entry Entry is leaf Index of a tree: the hashes
// of RFC 6962's audit path (tlog.RecordProof). In JSON: {"index",
// "entry" (base64), "proof" (base64 hashes)}.
type Inclusion struct {
	Index int64       `json:"index"`
	Entry []byte      `json:"entry"`
	Proof []tlog.Hash `json:"proof"`
}

// Check verifies the proof against the tree of checkpoint c and returns
// the entry it proves.
func (p Inclusion) Check(c Checkpoint) (Entry, error) {
	e, err := ParseEntry(p.Entry)
	if err != nil {
		return Entry{}, err
	}
	if len(p.Proof) > MaxProof || p.Index < 0 || p.Index >= c.Size {
		return Entry{}, fmt.Errorf("%w: leaf %d of a tree of %d", ErrBadProof, p.Index, c.Size)
	}
	if err := tlog.CheckRecord(p.Proof, c.Size, c.Hash, p.Index, tlog.RecordHash(p.Entry)); err != nil {
		return Entry{}, fmt.Errorf("%w: entry %d (match %s event %d) is not in the tree of size %d: %v", ErrBadProof, p.Index, e.Match, e.Seq, c.Size, err)
	}
	return e, nil
}

// CheckConsistency verifies that the tree of checkpoint newer extends the
// tree of older (RFC 6962 consistency, tlog.CheckTree): older's entries
// are the first entries of newer, unchanged. Two checkpoints of one size
// must have one hash. ErrFork otherwise.
func CheckConsistency(older, newer Checkpoint, proof []tlog.Hash) error {
	if older.Size > newer.Size {
		older, newer = newer, older
	}
	if older.Size == newer.Size {
		if older.Hash != newer.Hash {
			return fmt.Errorf("%w: two trees of %d entries with different roots", ErrFork, older.Size)
		}
		return nil
	}
	if older.Size == 0 {
		return nil
	}
	if len(proof) > MaxProof {
		return fmt.Errorf("%w: a consistency proof of %d hashes", ErrMalformed, len(proof))
	}
	if err := tlog.CheckTree(proof, newer.Size, newer.Hash, older.Size, older.Hash); err != nil {
		return fmt.Errorf("%w: the tree of %d entries does not extend the tree of %d: %v", ErrFork, newer.Size, older.Size, err)
	}
	return nil
}

// Proof is what a participant, a bundle or `matchrec prove` carries of
// the log for one match (docs/transparency.md): a signed checkpoint, the
// entries of the match it proves included in it, and optionally
// consistency proofs from older tree sizes to it (so a verifier holding
// an older checkpoint relates it offline).
type Proof struct {
	Checkpoint  string        `json:"checkpoint"` // the signed note, as text
	Entries     []Inclusion   `json:"entries"`
	Consistency []Consistency `json:"consistency,omitempty"`
}

// Consistency is a consistency proof from the tree of size From to the
// proof's checkpoint.
type Consistency struct {
	From  int64       `json:"from"`
	Proof []tlog.Hash `json:"proof"`
}

// Open verifies the proof's checkpoint under the recorder key pub and
// every inclusion proof against it, returning the checkpoint and the
// entries in the order given.
func (p *Proof) Open(pub ed25519.PublicKey) (Checkpoint, []Entry, error) {
	c, err := Open([]byte(p.Checkpoint), pub)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	out := make([]Entry, 0, len(p.Entries))
	for _, in := range p.Entries {
		e, err := in.Check(c)
		if err != nil {
			return c, nil, err
		}
		out = append(out, e)
	}
	return c, out, nil
}

// ConsistencyFrom returns the proof's consistency proof from size n, if
// it carries one.
func (p *Proof) ConsistencyFrom(n int64) ([]tlog.Hash, bool) {
	for _, c := range p.Consistency {
		if c.From == n {
			return c.Proof, true
		}
	}
	return nil, false
}
