// Package witness is the C2SP tlog-witness protocol for matchrec's
// transparency log (docs/transparency.md, "Witnesses"): a witness is
// another party's process that co-signs a recorder's checkpoints, each
// only after checking that it extends the last one it co-signed (a
// consistency proof), so a recorder that shows two histories cannot get
// both co-signed, and anyone who trusts a witness can tell. Server is the
// witness (`matchrec witness`); Client is the recorder's side, which
// sends each new checkpoint to its witnesses and keeps the cosigned one.
//
// The protocol is the add-checkpoint endpoint of c2sp.org/tlog-witness:
//
//	POST /add-checkpoint
//	old <size the witness co-signed last, 0 for none>
//	<consistency proof from it, one base64 hash a line>
//	(an empty line)
//	<the signed checkpoint>
//
// answered 200 with the witness's cosignature lines (c2sp.org/
// tlog-cosignature, by filippo.io/torchwood), 409 with the size it knows
// (text/x.tlog.size) when old is not it, 404 for a log it does not
// witness, 403 when the log's signature does not verify, 422 when the
// proof does not, 400 for anything else malformed.
package witness

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"filippo.io/torchwood"
	"github.com/rs/zerolog"
	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events/headlog"
)

// MaxBody bounds an add-checkpoint request.
const MaxBody = headlog.MaxCheckpoint + 64*(headlog.MaxProof+1)

// Server is a witness: the logs it witnesses (their note verifier keys),
// the last tree it co-signed of each (kept in a bbolt file), and its key.
type Server struct {
	db     *bbolt.DB
	signer *torchwood.CosignatureSigner
	logs   map[string]note.Verifier // origin → the log's key
	log    zerolog.Logger
	mu     sync.Mutex // one add-checkpoint at a time: check, then persist
}

var bktTrees = []byte("trees") // origin → size (8) | root (32)

// NewServer opens (creating) the witness's state file and witnesses the
// logs whose note verifier keys are given (`matchrec identity --json`'s
// log_key). name is the witness's own name in its cosignatures.
func NewServer(path, name string, key ed25519.PrivateKey, logKeys []string, log zerolog.Logger) (*Server, error) {
	s := &Server{logs: map[string]note.Verifier{}, log: log}
	for _, k := range logKeys {
		v, err := note.NewVerifier(k)
		if err != nil {
			return nil, fmt.Errorf("witness: log key %q: %w", k, err)
		}
		s.logs[v.Name()] = v
	}
	var err error
	if s.signer, err = torchwood.NewCosignatureSigner(name, key); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	if s.db, err = bbolt.Open(path, 0o600, nil); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	if err := s.db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bktTrees); return err }); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("witness: %w", err)
	}
	return s, nil
}

// Close closes the state file.
func (s *Server) Close() error { return s.db.Close() }

// VerifierKey is the witness's cosignature verifier key (name+hash+key),
// which whoever trusts the witness gives to verify its cosignatures.
func (s *Server) VerifierKey() string { return s.signer.Verifier().String() }

// Handler serves add-checkpoint.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /add-checkpoint", s.addCheckpoint)
	return mux
}

// errConflict carries the size the witness knows.
type errConflict struct{ known int64 }

func (e *errConflict) Error() string {
	return fmt.Sprintf("the witness co-signed a tree of %d entries last", e.known)
}

var (
	errUnknownLog = errors.New("not a log this witness witnesses")
	errSignature  = errors.New("the checkpoint is not signed by the log's key")
	errProof      = errors.New("the consistency proof does not verify")
	errMalformed  = errors.New("malformed add-checkpoint request")
)

func (s *Server) addCheckpoint(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		http.Error(w, errMalformed.Error(), http.StatusBadRequest)
		return
	}
	cosig, err := s.add(body)
	var conflict *errConflict
	switch {
	case errors.As(err, &conflict):
		w.Header().Set("Content-Type", "text/x.tlog.size")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, "%d\n", conflict.known)
		return
	case errors.Is(err, errUnknownLog):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, errSignature):
		http.Error(w, err.Error(), http.StatusForbidden)
	case errors.Is(err, errProof):
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
	case errors.Is(err, errMalformed):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case err != nil:
		s.log.Error().Err(err).Msg("add-checkpoint")
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
	if err != nil {
		s.log.Info().Err(err).Msg("add-checkpoint refused")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(cosig)
}

// add checks a request and co-signs its checkpoint, persisting the tree
// first: a witness never co-signs two trees that do not extend each other.
func (s *Server) add(body []byte) ([]byte, error) {
	head, msg, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return nil, errMalformed
	}
	lines := strings.Split(string(head), "\n")
	size, ok := strings.CutPrefix(lines[0], "old ")
	old, err := strconv.ParseInt(size, 10, 64)
	if !ok || err != nil || old < 0 || len(lines)-1 > headlog.MaxProof {
		return nil, errMalformed
	}
	proof := make(tlog.TreeProof, 0, len(lines)-1)
	for _, l := range lines[1:] {
		h, err := tlog.ParseHash(l)
		if err != nil {
			return nil, errMalformed
		}
		proof = append(proof, h)
	}
	origin, _, _ := strings.Cut(string(msg), "\n")
	v, ok := s.logs[origin]
	if !ok {
		return nil, fmt.Errorf("%w: %q", errUnknownLog, origin)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSignature, err)
	}
	c, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil || c.Origin != origin || c.Extension != "" {
		return nil, errMalformed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	knownSize, knownHash, err := s.tree(origin)
	if err != nil {
		return nil, err
	}
	if old != knownSize {
		return nil, &errConflict{knownSize}
	}
	if c.N < old {
		return nil, fmt.Errorf("%w: a tree of %d entries is older than the one of %d co-signed", errMalformed, c.N, old)
	}
	if old > 0 {
		older := headlog.Checkpoint{Size: old, Hash: knownHash}
		newer := headlog.Checkpoint{Size: c.N, Hash: c.Hash}
		if err := headlog.CheckConsistency(older, newer, proof); err != nil {
			return nil, fmt.Errorf("%w: %v", errProof, err)
		}
	}
	if err := s.db.Update(func(tx *bbolt.Tx) error {
		v := binary.BigEndian.AppendUint64(nil, uint64(c.N))
		return tx.Bucket(bktTrees).Put([]byte(origin), append(v, c.Hash[:]...))
	}); err != nil {
		return nil, err
	}
	signed, err := note.Sign(&note.Note{Text: n.Text}, s.signer)
	if err != nil {
		return nil, err
	}
	// The response is the witness's own signature lines.
	i := bytes.LastIndex(signed, []byte("\n\n"))
	return signed[i+2:], nil
}

// tree is the tree of origin the witness co-signed last (0: none).
func (s *Server) tree(origin string) (int64, tlog.Hash, error) {
	var size int64
	var h tlog.Hash
	err := s.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bktTrees).Get([]byte(origin))
		if v == nil {
			return nil
		}
		if len(v) != 8+tlog.HashSize {
			return fmt.Errorf("witness: the tree of %s is %d bytes", origin, len(v))
		}
		size = int64(binary.BigEndian.Uint64(v))
		copy(h[:], v[8:])
		return nil
	})
	return size, h, err
}

// Request is the body of an add-checkpoint request.
func Request(old int64, proof []tlog.Hash, checkpoint []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", old)
	for _, h := range proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(checkpoint)
	return b.Bytes()
}
