package api_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

func TestFromError(t *testing.T) {
	direct := &api.Error{Code: projector.CodeUnauthorized, Message: "no"}
	refusal := projector.Refuse(projector.CodeWrongPlayer, "it is Bob's turn")
	for _, tc := range []struct {
		err  error
		code projector.Code
		msg  string
	}{
		{direct, projector.CodeUnauthorized, "no"},
		{fmt.Errorf("ctx: %w", direct), projector.CodeUnauthorized, "ctx: unauthorized: no"},
		{refusal, projector.CodeWrongPlayer, "it is Bob's turn"},
		{fmt.Errorf("execute: %w", refusal), projector.CodeWrongPlayer, "it is Bob's turn"},
		{fmt.Errorf("%w: match m has 3 events, not 9", fold.ErrBeyondEnd), projector.CodeBadRequest, fold.ErrBeyondEnd.Error() + ": match m has 3 events, not 9"},
		{fmt.Errorf("a: %w", store.ErrConflict), projector.CodeConflict, "a: " + store.ErrConflict.Error()},
		{fmt.Errorf("a: %w", store.ErrNotFound), projector.CodeNotFound, "a: " + store.ErrNotFound.Error()},
		{errors.New("boom"), projector.CodeInternal, "boom"},
	} {
		got := api.FromError(tc.err)
		if got.Code != tc.code || got.Message != tc.msg {
			t.Errorf("FromError(%v) = %+v, want %s %q", tc.err, got, tc.code, tc.msg)
		}
		if api.CodeOf(tc.err) != tc.code {
			t.Errorf("CodeOf(%v) = %s, want %s", tc.err, api.CodeOf(tc.err), tc.code)
		}
	}
	if api.FromError(direct) != direct {
		t.Errorf("an *Error is not passed through as is")
	}
	if api.FromError(nil) != nil || api.CodeOf(nil) != "" {
		t.Errorf("nil is not nil")
	}
	if got := api.Errorf(projector.CodeBadRequest, "match %q", "x").Error(); got != `bad_request: match "x"` {
		t.Errorf("Error() = %q", got)
	}
}
