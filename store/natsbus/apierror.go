package natsbus

import (
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/store"
)

// Stable error codes. Scripts match on them, so they never change meaning.
const (
	CodeBadRequest   = "bad_request"  // malformed JSON or invalid arguments
	CodeUnknownVerb  = "unknown_verb" // no such matchrec.api.<verb>
	CodeUnauthorized = "unauthorized" // caller may not do this
	CodeNotFound     = "not_found"    // no such match (store.ErrNotFound)
	CodeConflict     = "conflict"     // the match moved on (store.ErrConflict); re-read and retry
	CodeRefused      = "refused"      // valid request the rules forbid (e.g. action out of phase)
	CodeInternal     = "internal"     // a bug or an outage; the message says which
)

// Error is an API error: a stable Code for programs and a Message for
// people. Handlers return it (or wrap it) to choose the code.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError maps err to the API error sent to callers: an *Error found
// anywhere in err's chain keeps its code (with err's full message, which
// carries the context added by wrapping); store.ErrConflict becomes
// conflict, store.ErrNotFound not_found; anything else is internal with
// err's message. nil stays nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	switch {
	case errors.As(err, &ae):
		if ae == err {
			return ae
		}
		return &Error{Code: ae.Code, Message: err.Error()}
	case errors.Is(err, store.ErrConflict):
		return &Error{Code: CodeConflict, Message: err.Error()}
	case errors.Is(err, store.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	default:
		return &Error{Code: CodeInternal, Message: err.Error()}
	}
}

func unknownVerb(verb string) *Error {
	return Errorf(CodeUnknownVerb, "unknown verb %q (subjects are %s<verb>)", verb, APIPrefix)
}
