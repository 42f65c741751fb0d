package headlog

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// OriginPrefix starts every matchrec log's origin; the recorder's public
// key (64 hex digits) follows, so the origin names the log and the key
// that signs it, and two recorders' logs never share one.
const OriginPrefix = "matchrec/"

// Origin is the origin line (and the note key name) of the log a
// recorder with public key pub signs.
func Origin(pub ed25519.PublicKey) string { return OriginPrefix + hex.EncodeToString(pub) }

// MaxCheckpoint bounds a signed checkpoint with its cosignatures.
const MaxCheckpoint = 16 << 10

// Checkpoint is a signed tree head (C2SP tlog-checkpoint in a C2SP signed
// note): the log of origin Origin had Size entries with root hash Hash.
// Note is the signed note as read, with every signature it carries
// (the recorder's and any witness cosignatures), so it can be passed on
// byte for byte.
type Checkpoint struct {
	Origin string
	Size   int64
	Hash   tlog.Hash
	Note   []byte
	// Cosigned names the witnesses whose cosignatures were verified.
	Cosigned []string
}

// Tree is the checkpoint's tree.
func (c Checkpoint) Tree() tlog.Tree { return tlog.Tree{N: c.Size, Hash: c.Hash} }

// Text is the checkpoint body that is signed: origin, size and root hash
// in the C2SP format.
func Text(origin string, size int64, hash tlog.Hash) string {
	return torchwood.Checkpoint{Origin: origin, Tree: tlog.Tree{N: size, Hash: hash}}.String()
}

// NewSigner makes the note signer of a recorder's log from its Ed25519
// key: the signed-note key of name Origin(pub), algorithm Ed25519. The
// note's key hash is x/mod's (NewEd25519VerifierKey); the private key
// is passed in the encoded form note.NewSigner reads.
func NewSigner(priv ed25519.PrivateKey) (note.Signer, error) {
	pub, ok := priv.Public().(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("headlog: not an Ed25519 key")
	}
	name := Origin(pub)
	vkey, err := note.NewEd25519VerifierKey(name, pub)
	if err != nil {
		return nil, fmt.Errorf("headlog: signer: %w", err)
	}
	// vkey is name+hash+keydata; the signer key is PRIVATE+KEY+name+hash+
	// base64(algorithm || seed).
	parts := strings.SplitN(vkey, "+", 3) // the key data is base64: it may hold "+"
	if len(parts) != 3 {
		return nil, fmt.Errorf("headlog: unexpected verifier key %q", vkey)
	}
	skey := "PRIVATE+KEY+" + name + "+" + parts[1] + "+" + base64.StdEncoding.EncodeToString(append([]byte{1}, priv.Seed()...))
	return note.NewSigner(skey)
}

// VerifierKey is the signed-note verifier key of a recorder's log
// (name+hash+keydata, as `matchrec identity --json` prints it).
func VerifierKey(pub ed25519.PublicKey) (string, error) {
	return note.NewEd25519VerifierKey(Origin(pub), pub)
}

// Verifier is the note verifier of a recorder's log.
func Verifier(pub ed25519.PublicKey) (note.Verifier, error) {
	k, err := VerifierKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: recorder key: %v", ErrMalformed, err)
	}
	return note.NewVerifier(k)
}

// Sign signs the checkpoint of a tree of size entries with root hash.
func Sign(s note.Signer, size int64, hash tlog.Hash) (Checkpoint, error) {
	text := Text(s.Name(), size, hash)
	msg, err := note.Sign(&note.Note{Text: text}, s)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("headlog: sign checkpoint: %w", err)
	}
	return Checkpoint{Origin: s.Name(), Size: size, Hash: hash, Note: msg}, nil
}

// Open verifies a signed checkpoint of the log of the recorder whose key
// is pub, and any cosignatures of the witnesses given (their note
// verifiers, torchwood.CosignatureVerifier). It fails with
// ErrBadCheckpoint when the recorder's signature is missing or does not
// verify (a forged checkpoint, or another recorder's), and ErrMalformed
// when msg is no checkpoint. Signatures of keys it does not know are
// ignored, as the signed-note format requires.
func Open(msg []byte, pub ed25519.PublicKey, witnesses ...note.Verifier) (Checkpoint, error) {
	if len(msg) > MaxCheckpoint {
		return Checkpoint{}, fmt.Errorf("%w: a checkpoint of %d bytes (at most %d)", ErrMalformed, len(msg), MaxCheckpoint)
	}
	v, err := Verifier(pub)
	if err != nil {
		return Checkpoint{}, err
	}
	n, err := note.Open(msg, note.VerifierList(append([]note.Verifier{v}, witnesses...)...))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unverified) || errors.As(err, &invalid) {
			return Checkpoint{}, fmt.Errorf("%w: %s (the recorder's key is %s)", ErrBadCheckpoint, err, Origin(pub))
		}
		return Checkpoint{}, fmt.Errorf("%w: checkpoint: %v", ErrMalformed, err)
	}
	recorder := false
	var cosigned []string
	for _, s := range n.Sigs {
		if s.Name == v.Name() && s.Hash == v.KeyHash() {
			recorder = true
		} else {
			cosigned = append(cosigned, s.Name)
		}
	}
	if !recorder {
		return Checkpoint{}, fmt.Errorf("%w: not signed by %s", ErrBadCheckpoint, Origin(pub))
	}
	c, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint: %v", ErrMalformed, err)
	}
	if c.Origin != Origin(pub) {
		return Checkpoint{}, fmt.Errorf("%w: the checkpoint's origin %q is not the recorder's log %s", ErrBadCheckpoint, c.Origin, Origin(pub))
	}
	if c.Extension != "" {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint with extension lines", ErrMalformed)
	}
	return Checkpoint{Origin: c.Origin, Size: c.N, Hash: c.Hash, Note: msg, Cosigned: cosigned}, nil
}

// Cosign adds the signature lines of cosigs (as a witness returns them:
// one "— name base64" line each) to a signed checkpoint.
func Cosign(signed []byte, cosigs []byte) ([]byte, error) {
	if len(cosigs) == 0 || cosigs[len(cosigs)-1] != '\n' || !strings.HasPrefix(string(cosigs), "— ") {
		return nil, fmt.Errorf("%w: cosignature lines", ErrMalformed)
	}
	out := make([]byte, 0, len(signed)+len(cosigs))
	return append(append(out, signed...), cosigs...), nil
}

// ParseSize reads the tree size of a signed checkpoint without verifying
// it (the recorder, sizing a proof for its own checkpoint).
func ParseSize(note string) (int64, error) {
	text, _, _ := strings.Cut(note, "\n\n")
	c, err := torchwood.ParseCheckpoint(text + "\n")
	if err != nil {
		return 0, fmt.Errorf("%w: checkpoint: %v", ErrMalformed, err)
	}
	return c.N, nil
}
