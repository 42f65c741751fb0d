package api

import (
	"context"
	"encoding/json"
	"github.com/matchrec/matchrec/events/auth"
)

// Read-your-writes across recorders (docs/cluster.md). Every recorder of
// a cluster keeps a full copy of the stream, a moment behind the others'
// appends; a client that recorded event n of a match through one recorder
// and then asks another must still see event n. So a client names, with
// any request about a match, the last event of it that it saw written
// (After; over NATS the Matchrec-After header, store/natsbus), and the
// recorder that answers first waits, boundedly, until its copy holds it.

// After is a request's floor: the caller has seen event Seq of Match.
type After struct {
	Match string
	Seq   uint64
}

type afterKey struct{}

// WithAfter returns ctx carrying the request's floor (a zero After: none).
func WithAfter(ctx context.Context, a After) context.Context {
	if a.Match == "" || a.Seq == 0 {
		return ctx
	}
	return context.WithValue(ctx, afterKey{}, a)
}

// AfterOf returns the floor WithAfter put on ctx.
func AfterOf(ctx context.Context) (After, bool) {
	a, ok := ctx.Value(afterKey{}).(After)
	return a, ok
}

// MatchOf is the match a request body is about: its "parent" (a branch
// is read from its parent) or its "match" ("" for none). Every request
// about a match names it in one of those two fields.
func MatchOf(body []byte) string {
	var r struct {
		Match  string `json:"match"`
		Parent string `json:"parent"`
	}
	if len(body) == 0 || json.Unmarshal(body, &r) != nil {
		return ""
	}
	if r.Parent != "" {
		return r.Parent
	}
	return r.Match
}

// Written is the head a write's result vouches for: the match and
// sequence of its receipt (create, declare, roll, branch, status all
// carry one). ok is false for a result without one.
func Written(result []byte) (After, bool) {
	var r struct {
		Receipt *struct {
			Match string
			Seq   uint64
		} `json:"receipt"`
	}
	if json.Unmarshal(result, &r) != nil || r.Receipt == nil || r.Receipt.Match == "" {
		return After{}, false
	}
	return After{Match: r.Receipt.Match, Seq: r.Receipt.Seq}, true
}

// WrittenBy is Written for a result already decoded into one of the
// write verbs' result types (no second decode on the command's path);
// ok is false for another value or one without a receipt.
func WrittenBy(resp any) (After, bool) {
	var r *auth.Receipt
	switch v := resp.(type) {
	case *Result:
		r = v.Receipt
	case *CreateResult:
		r = v.Receipt
	case *StatusResult:
		r = v.Receipt
	}
	if r == nil || r.Match == "" {
		return After{}, false
	}
	return After{Match: r.Match, Seq: r.Seq}, true
}

// Writes says whether verb's result carries a receipt worth learning a
// head from (Written).
func Writes(verb string) bool {
	switch verb {
	case VerbCreate, VerbDeclare, VerbRoll, VerbBranch, VerbStatus:
		return true
	}
	return false
}
