package witness

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/mod/sumdb/note"

	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
)

// algCosignatureV1 is c2sp.org/tlog-cosignature's signature type.
const algCosignatureV1 = 4

// NewCosignatureVerifier reads a witness's cosignature verifier key
// (name+hash+base64(0x04 || Ed25519 key), as VerifierKey prints it) into
// a note.Verifier. torchwood v0.6.1 makes such verifiers only from a
// signer; this one checks what its verifier checks: the signature is an
// 8-byte big-endian timestamp and an Ed25519 signature of
// "cosignature/v1\ntime <timestamp>\n" followed by the checkpoint.
func NewCosignatureVerifier(vkey string) (note.Verifier, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 || len(parts[1]) != 8 {
		return nil, fmt.Errorf("witness: malformed verifier key %q", vkey)
	}
	hash, err1 := strconv.ParseUint(parts[1], 16, 32)
	key, err2 := base64.StdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != algCosignatureV1 {
		return nil, fmt.Errorf("witness: %q is not a cosignature/v1 key", vkey)
	}
	h := sha256.Sum256(append([]byte(parts[0]+"\n"), key...))
	if binary.BigEndian.Uint32(h[:]) != uint32(hash) {
		return nil, fmt.Errorf("witness: the key hash of %q does not match its key", vkey)
	}
	return &cosigVerifier{name: parts[0], hash: uint32(hash), key: ed25519.PublicKey(key[1:])}, nil
}

type cosigVerifier struct {
	name string
	hash uint32
	key  ed25519.PublicKey
}

func (v *cosigVerifier) Name() string    { return v.name }
func (v *cosigVerifier) KeyHash() uint32 { return v.hash }
func (v *cosigVerifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	m := fmt.Appendf(nil, "cosignature/v1\ntime %d\n%s", binary.BigEndian.Uint64(sig), msg)
	return ed25519.Verify(v.key, m, sig[8:])
}

// Endpoint is one witness a recorder sends its checkpoints to: the base
// URL of its add-checkpoint endpoint and its cosignature verifier key.
type Endpoint struct {
	URL string
	Key string
}

// ParseEndpoint reads URL=KEY (serve's --witness).
func ParseEndpoint(s string) (Endpoint, error) {
	u, k, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(u, "http") {
		return Endpoint{}, fmt.Errorf("a witness is URL=KEY (its verifier key, as 'matchrec witness' prints it), got %q", s)
	}
	if _, err := NewCosignatureVerifier(k); err != nil {
		return Endpoint{}, err
	}
	return Endpoint{URL: strings.TrimSuffix(u, "/"), Key: k}, nil
}

// Client sends a recorder's new checkpoints to its witnesses and keeps
// the newest one with every cosignature it got (Cosigned), which the web
// server's /tlog/checkpoint and the log-checkpoint verb serve.
type Client struct {
	hl   store.HeadLog
	ws   []*endpointState
	http *http.Client
	log  zerolog.Logger

	mu       sync.Mutex
	cosigned []byte
	size     int64
}

type endpointState struct {
	Endpoint
	v     note.Verifier
	known int64 // the size the witness co-signed last (-1: unknown)
}

// NewClient returns a client of the witnesses for the log in hl.
func NewClient(hl store.HeadLog, ws []Endpoint, log zerolog.Logger) (*Client, error) {
	c := &Client{hl: hl, http: &http.Client{Timeout: 10 * time.Second}, log: log.With().Str("component", "witnesses").Logger()}
	for _, w := range ws {
		v, err := NewCosignatureVerifier(w.Key)
		if err != nil {
			return nil, err
		}
		c.ws = append(c.ws, &endpointState{Endpoint: w, v: v, known: -1})
	}
	return c, nil
}

// Cosigned is the newest checkpoint with its witnesses' cosignatures
// (nil: none yet).
func (c *Client) Cosigned() ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cosigned, c.size
}

// Run sends the store's newest checkpoint to every witness whenever it
// has grown, checking every poll, until ctx ends.
func (c *Client) Run(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if cp, err := c.hl.Checkpoint(ctx); err == nil {
			if _, size := c.Cosigned(); cp.Size > size {
				if err := c.Cosign(ctx, cp); err != nil {
					c.log.Warn().Err(err).Int64("size", cp.Size).Msg("a witness did not co-sign")
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Cosign sends cp to every witness and keeps it with the cosignatures
// that verify. It returns the witnesses' refusals, joined.
func (c *Client) Cosign(ctx context.Context, cp headlog.Checkpoint) error {
	out := bytes.Clone(cp.Note)
	var errs []error
	for _, w := range c.ws {
		lines, err := c.add(ctx, w, cp)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.URL, err))
			continue
		}
		if out, err = headlog.Cosign(out, lines); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.URL, err))
		}
	}
	c.mu.Lock()
	if cp.Size > c.size {
		c.cosigned, c.size = out, cp.Size
	}
	c.mu.Unlock()
	return errors.Join(errs...)
}

// add posts cp to one witness, once more with the size it says it knows.
func (c *Client) add(ctx context.Context, w *endpointState, cp headlog.Checkpoint) ([]byte, error) {
	for attempt := 0; attempt < 2; attempt++ {
		old := max(w.known, 0)
		proof, err := c.hl.ProveConsistency(ctx, old, cp.Size)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL+"/add-checkpoint", bytes.NewReader(Request(old, proof, cp.Note)))
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusOK:
			// The checkpoint's text with the witness's lines alone.
			text := cp.Note[:bytes.LastIndex(cp.Note, []byte("\n\n"))+2]
			n, err := note.Open(append(bytes.Clone(text), body...), note.VerifierList(w.v))
			if err != nil || len(n.Sigs) != 1 {
				return nil, fmt.Errorf("its cosignature does not verify under %s: %v", w.Key, err)
			}
			w.known = cp.Size
			return body, nil
		case http.StatusConflict:
			known, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
			if err != nil || known > cp.Size {
				return nil, fmt.Errorf("it knows a tree of %q entries, more than this log's %d: it saw another history", strings.TrimSpace(string(body)), cp.Size)
			}
			w.known = known
		default:
			return nil, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
	}
	return nil, errors.New("it refused the size it named itself")
}
