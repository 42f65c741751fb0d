package api

import (
	"errors"
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
)

// Error is the one error shape of the API: a stable Code for programs (a
// projector.Code) and a Message for people. Handlers return one (Errorf),
// or any error, which FromError maps; clients get one back for every
// error reply.
type Error struct {
	Code    projector.Code `json:"code"`
	Message string         `json:"message"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Errorf returns an *Error with code and a formatted message. An error
// that carries a code is built with it where it arises, so the message
// says only what went wrong, never the code again.
func Errorf(code projector.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FromError maps any error to the error sent to callers; it is the one
// place that decides an error's code:
//
//   - a refusal of the rules (*projector.Refusal) keeps its code and its
//     reason (scripts and callers match on not_your_turn, bad_dice, ...);
//   - an *Error anywhere in err's chain keeps its code, with err's full
//     message (which carries the context added by wrapping);
//   - fold.ErrBeyondEnd is bad_request (the caller asked past the end);
//   - store.ErrConflict is conflict, store.ErrNotFound not_found,
//     store.ErrUnavailable unavailable, store.ErrDiskFull (or the
//     operating system's ENOSPC, EDQUOT anywhere in the chain) disk_full;
//   - anything else is internal, with err's message.
//
// nil stays nil.
func FromError(err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	if r, ok := projector.AsRefusal(err); ok {
		return &Error{Code: r.Code, Message: r.Reason}
	}
	switch {
	case errors.As(err, &ae):
		if ae == err {
			return ae
		}
		return &Error{Code: ae.Code, Message: err.Error()}
	case errors.Is(err, fold.ErrBeyondEnd):
		return &Error{Code: projector.CodeBadRequest, Message: err.Error()}
	case errors.Is(err, store.ErrConflict):
		return &Error{Code: projector.CodeConflict, Message: err.Error()}
	case errors.Is(err, store.ErrNotFound):
		return &Error{Code: projector.CodeNotFound, Message: notFound(err)}
	case errors.Is(err, store.ErrUnavailable):
		return &Error{Code: projector.CodeUnavailable, Message: err.Error()}
	case errors.Is(store.DiskFull(err), store.ErrDiskFull):
		return &Error{Code: projector.CodeDiskFull, Message: DiskFullAdvice + ": " + err.Error()}
	default:
		return &Error{Code: projector.CodeInternal, Message: err.Error()}
	}
}

// DiskFullAdvice opens a disk_full error's message: what happened and
// what to do.
const DiskFullAdvice = "the recorder's disk is full, so nothing was recorded: free space on the disk of its data directory " +
	"(or raise the quota), then send the command again (a retry with the same request id is recorded once); " +
	"everything acknowledged before is safe, and the bus catches up by itself"

// notFound is the message of a not_found error as a caller reads it: the
// store's own words ("match not found: \"fridya\""), without the names of
// the layers it went through on the way ("fold match fridya: ...").
func notFound(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e != store.ErrNotFound && strings.HasPrefix(e.Error(), store.ErrNotFound.Error()) {
			msg = e.Error()
		}
	}
	return msg
}

// CodeOf is the code FromError gives err ("" for nil).
func CodeOf(err error) projector.Code {
	if e := FromError(err); e != nil {
		return e.Code
	}
	return ""
}
