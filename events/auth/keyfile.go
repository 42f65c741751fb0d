package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// KeyFormat and KeyVersion name the key file format (docs/bundle.md):
//
//	{"format": "matchrec-key", "version": 1, "public": HEX32, "private": HEX32,
//	 "match": "friday", "role": "player:alice"}
//
// private is the 32-byte Ed25519 private seed (RFC 8032), public the key
// it gives; match and role are optional notes of what the key was made
// for. The file is written 0600 and read only if no one else may read it.
const (
	KeyFormat  = "matchrec-key"
	KeyVersion = 1
)

// Key is a participant's key pair.
type Key struct {
	Private ed25519.PrivateKey
	Match   string // optional: the match the key was made for
	Role    string // optional: the role it was made for
	Path    string // where it was read from or written to
}

// Public returns the public key.
func (k *Key) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// PublicHex returns the public key in hex.
func (k *Key) PublicHex() string { return PublicHex(k.Public()) }

// Seed returns the 32-byte private seed: the secret a player's dice seeds
// derive from (dice.DerivePlayerSeed).
func (k *Key) Seed() []byte { return k.Private.Seed() }

// GenerateKey makes a new key pair from crypto/rand.
func GenerateKey(match, role string) (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return &Key{Private: priv, Match: match, Role: role}, nil
}

// KeyFromSeed makes the key pair of a 32-byte private seed.
func KeyFromSeed(seed []byte, match, role string) (*Key, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: a private key is %d bytes, got %d", ErrMalformed, ed25519.SeedSize, len(seed))
	}
	return &Key{Private: ed25519.NewKeyFromSeed(seed), Match: match, Role: role}, nil
}

type keyJSON struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Public  string `json:"public"`
	Private string `json:"private"`
	Match   string `json:"match,omitempty"`
	Role    string `json:"role,omitempty"`
}

// ParseKey reads a key file's bytes.
func ParseKey(b []byte) (*Key, error) {
	var j keyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("%w: not a matchrec key file: %v", ErrMalformed, err)
	}
	if j.Format != KeyFormat {
		return nil, fmt.Errorf("%w: not a matchrec key file (format %q)", ErrMalformed, j.Format)
	}
	if j.Version != KeyVersion {
		return nil, fmt.Errorf("%w: key file version %d (this build reads version %d)", ErrMalformed, j.Version, KeyVersion)
	}
	seed, err := hex.DecodeString(j.Private)
	if err != nil {
		return nil, fmt.Errorf("%w: private key is not hex", ErrMalformed)
	}
	k, err := KeyFromSeed(seed, j.Match, j.Role)
	if err != nil {
		return nil, err
	}
	if k.PublicHex() != j.Public {
		return nil, fmt.Errorf("%w: the public key %q is not the private key's (%s)", ErrMalformed, clip(j.Public), k.PublicHex())
	}
	return k, nil
}

// ReadKey reads a key file, refusing one that others may read.
func ReadKey(path string) (*Key, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: key file %s may be read by others (mode %04o): chmod 600 it", ErrMalformed, path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	k, err := ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	k.Path = path
	return k, nil
}

// Marshal returns the key file's bytes.
func (k *Key) Marshal() []byte {
	b, _ := json.MarshalIndent(keyJSON{KeyFormat, KeyVersion, k.PublicHex(), hex.EncodeToString(k.Seed()), k.Match, k.Role}, "", "  ")
	return append(b, '\n')
}

// WriteKey writes k to path, 0600, creating its directory (0700); it never
// overwrites an existing file.
func WriteKey(path string, k *Key) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("key directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("key file %s exists: not overwriting it", path)
	}
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	if _, err := f.Write(k.Marshal()); err != nil {
		f.Close()
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	k.Path = path
	return nil
}
