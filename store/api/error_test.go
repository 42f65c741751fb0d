package api_test

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// enospc is a write that found the disk full, as the os package reports it.
var enospc = &fs.PathError{Op: "write", Path: "events.db", Err: syscall.ENOSPC}

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
		// A full disk, as bbolt's write reports it (the errno inside a
		// PathError), wrapped by the store or not: disk_full, saying what
		// to do.
		{fmt.Errorf("append to match m: %w", store.DiskFull(fmt.Errorf("commit events.db: %w", enospc))), projector.CodeDiskFull,
			api.DiskFullAdvice + ": append to match m: the disk is full: commit events.db: write events.db: no space left on device"},
		{fmt.Errorf("commit: %w", enospc), projector.CodeDiskFull, api.DiskFullAdvice + ": commit: write events.db: no space left on device"},
		{&fs.PathError{Op: "write", Path: "t", Err: syscall.EDQUOT}, projector.CodeDiskFull, api.DiskFullAdvice + ": write t: " + syscall.EDQUOT.Error()},
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
