package replay

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sort"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/natsbus"
)

// LogInputsOf is what an audit of a match in a store checks against the
// store's transparency log: the log's proof of the match (ProveMatch) in
// its newest checkpoint, under the recorder's key, and the checkpoint the
// caller holds (nil: none). A store without the log gives nil.
func LogInputsOf(ctx context.Context, st store.Store, match string, recorder ed25519.PublicKey, held []byte) (*LogInputs, error) {
	hl, ok := st.(store.HeadLog)
	if !ok {
		return nil, nil
	}
	p, err := ProveMatch(ctx, hl, match, 0, nil)
	if errors.Is(err, store.ErrNotFound) {
		p, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &LogInputs{Proof: p, Held: held, Recorder: recorder}, nil
}

// LogFinding is a match the log holds that the store does not hold as
// logged: gone, cut, or rewritten.
type LogFinding struct {
	Match   string `json:"match"`
	Seq     uint64 `json:"seq"` // the first event the store lacks or differs at
	Code    string `json:"code"`
	Message string `json:"message"`
}

// AuditLogged compares every entry of the store's log with the store: a
// match the log holds must be in the store (a match deleted whole is
// `missing`), up to the log's newest entry of it (`truncated`), with the
// hash each entry names (`rewritten`). It reads every entry: it is what an
// auditor of the whole recorder runs (`matchrec audit --log`), not a hot
// path. cp is a checkpoint the caller verified: the entries read are hashed
// into a tree again, whose root must be cp's (else the log's entries are
// not the ones it signed).
func AuditLogged(ctx context.Context, hl store.HeadLog, st store.Store, cp headlog.Checkpoint) ([]LogFinding, error) {
	type seen struct {
		newest uint64
		ended  bool
	}
	matches := map[string]*seen{}
	var out []LogFinding
	var tree headlog.MemTree
	for i := int64(0); i < cp.Size; i++ {
		b, err := hl.LogEntry(ctx, i)
		if err != nil {
			return nil, err
		}
		if _, err := tree.Append(b); err != nil {
			return nil, err
		}
		e, err := headlog.ParseEntry(b)
		if err != nil {
			return nil, fmt.Errorf("log entry %d: %w", i, err)
		}
		m := matches[e.Match]
		if m == nil {
			m = &seen{}
			matches[e.Match] = m
		}
		m.newest = max(m.newest, e.Seq)
		m.ended = m.ended || e.Kind == headlog.KindEnded
		rec, err := natsbus.RecordedEvent(ctx, st, e.Match, e.Seq)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // reported once per match below
		case err != nil:
			return nil, err
		case rec.Hash != e.Hash:
			out = append(out, LogFinding{Match: e.Match, Seq: e.Seq, Code: "rewritten", Message: fmt.Sprintf(
				"the log's entry %d says event %d has hash %s; the store's is %s", i, e.Seq, e.Hash, rec.Hash)})
		}
	}
	if root, err := tlog.TreeHash(cp.Size, &tree); err != nil || root != cp.Hash {
		return nil, fmt.Errorf("%w: the log's entries do not hash to the checkpoint's root (%d entries)", headlog.ErrFork, cp.Size)
	}
	names := make([]string, 0, len(matches))
	for n := range matches {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := matches[n]
		end := ""
		if m.ended {
			end = " (it ended)"
		}
		h, err := st.Head(ctx, n)
		switch {
		case errors.Is(err, store.ErrNotFound):
			out = append(out, LogFinding{Match: n, Seq: 1, Code: "missing", Message: fmt.Sprintf(
				"the log holds match %s up to event %d%s; the store has no such match", n, m.newest, end)})
		case err != nil:
			return nil, err
		case h.Seq < m.newest:
			out = append(out, LogFinding{Match: n, Seq: h.Seq + 1, Code: "truncated", Message: fmt.Sprintf(
				"the log holds match %s up to event %d%s; the store ends at event %d", n, m.newest, end, h.Seq)})
		}
	}
	return out, nil
}
