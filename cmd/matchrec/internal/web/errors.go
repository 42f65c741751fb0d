package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
)

// APIError is the body of every error answer: a stable code to match on
// (projector.Code, the one vocabulary of matchrec) and a message for
// people.
type APIError struct {
	Error struct {
		Code    projector.Code `json:"code"`
		Message string         `json:"message"`
	} `json:"error"`
}

// statusOf is the HTTP status of each code the web answers with.
var statusOf = map[projector.Code]int{
	projector.CodeBadRequest:       http.StatusBadRequest,         // a malformed id or query
	projector.CodeUnauthorized:     http.StatusUnauthorized,       // a judge request without a valid token
	projector.CodeForbidden:        http.StatusForbidden,          // a valid token that is not the judge's
	projector.CodeNotFound:         http.StatusNotFound,           // no such match (or none public yet), no such endpoint
	projector.CodeBeyondEnd:        http.StatusNotFound,           // a sequence number past the (visible) end
	projector.CodeMethodNotAllowed: http.StatusMethodNotAllowed,   // an endpoint asked with the wrong method
	projector.CodeTooManyRequests:  http.StatusTooManyRequests,    // wrong judge tokens: wait Retry-After
	projector.CodeUnavailable:      http.StatusServiceUnavailable, // this recorder's copy lacks the event ?after= names: ask again
	projector.CodeInternal:         http.StatusInternalServerError,
}

// writeError answers with code's status and an APIError body. A code
// missing from statusOf is a bug of this package: it answers 500.
func writeError(w http.ResponseWriter, code projector.Code, msg string) {
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	var e APIError
	e.Error.Code, e.Error.Message = code, msg
	b, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeStoreError answers for an error of the store, the fold or the bus:
// what the caller got wrong is a 4xx, anything else a 500 with the cause.
func (s *Server) writeStoreError(w http.ResponseWriter, r *http.Request, match string, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, projector.CodeNotFound, fmt.Sprintf("no match %q", match))
	case errors.Is(err, fold.ErrBeyondEnd):
		writeError(w, projector.CodeBeyondEnd, err.Error())
	case errors.Is(err, store.ErrUnavailable):
		w.Header().Set("Retry-After", "1")
		writeError(w, projector.CodeUnavailable, err.Error())
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client left; nobody reads an answer.
	default:
		s.log.Error().Err(err).Str("match", match).Str("path", r.URL.Path).Msg("request failed")
		writeError(w, projector.CodeInternal, err.Error())
	}
}
