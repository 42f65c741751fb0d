// Package identity is a recorder's own Ed25519 key pair, kept in its data
// directory (identity.key, 0600): the key the recorder signs its receipts
// with (docs/bundle.md), and that `matchrec identity` prints, so a
// participant can check that a receipt, or a whole log, comes from the
// recorder they played on.
package identity

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/note"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
)

// File is the identity's file name in a data directory.
const File = "identity.key"

// Identity is a recorder's key pair.
type Identity struct {
	key *auth.Key
}

// LoadOrCreate reads dir's identity, creating it (and dir, 0700) on first
// use. The file has the key file format of docs/bundle.md, role
// "recorder"; one that others may read is refused.
func LoadOrCreate(dir string) (*Identity, error) {
	path := filepath.Join(dir, File)
	k, err := auth.ReadKey(path)
	if err == nil {
		return &Identity{key: k}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("recorder identity: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recorder identity: %w", err)
	}
	if k, err = auth.GenerateKey("", "recorder"); err != nil {
		return nil, err
	}
	if err := auth.WriteKey(path, k); err != nil {
		// Another process may have created it first: read theirs.
		if k2, err2 := auth.ReadKey(path); err2 == nil {
			return &Identity{key: k2}, nil
		}
		return nil, fmt.Errorf("recorder identity: %w", err)
	}
	return &Identity{key: k}, nil
}

// FromKey makes an identity of a key pair (tests, tools).
func FromKey(k *auth.Key) *Identity { return &Identity{key: k} }

// PublicKey is the identity's public key.
func (id *Identity) PublicKey() ed25519.PublicKey { return id.key.Public() }

// PublicHex is the public key in hex, as `matchrec identity` prints it.
func (id *Identity) PublicHex() string { return id.key.PublicHex() }

// Sign signs msg for domain (auth.Sign: domain || 0x00 || msg).
func (id *Identity) Sign(domain string, msg []byte) []byte {
	return auth.Sign(id.key.Private, domain, msg)
}

// Verify reports whether sig is pub's signature of msg for domain.
func Verify(pub ed25519.PublicKey, domain string, msg, sig []byte) bool {
	return auth.Verify(pub, domain, msg, sig)
}

// LogSigner is the note signer of the recorder's transparency log
// (events/headlog): its checkpoints are signed with this identity.
func (id *Identity) LogSigner() (note.Signer, error) { return headlog.NewSigner(id.key.Private) }

// Receipt signs the receipt of match's head (seq, hash).
func (id *Identity) Receipt(r auth.Receipt) auth.Receipt {
	r.Recorder = id.PublicKey()
	r.Signature = id.Sign(auth.ReceiptDomain, r.Body())
	return r
}
