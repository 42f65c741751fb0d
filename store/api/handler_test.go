package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

func TestBindIsStrict(t *testing.T) {
	type req struct {
		Match string `json:"match"`
		N     int    `json:"n"`
	}
	var r req
	if err := api.Bind([]byte(`{"match":"m1","n":2}`), &r); err != nil || r != (req{"m1", 2}) {
		t.Fatalf("good body: %+v %v", r, err)
	}
	if err := api.Bind([]byte("  "), &r); err != nil || r != (req{"m1", 2}) {
		t.Fatalf("an empty body changed the request or failed: %+v %v", r, err)
	}
	for _, body := range []string{`{"matc":"m1"}`, `{"n":"two"}`, `{"n":1} {"n":2}`, `{`} {
		if err := api.Bind([]byte(body), &r); api.CodeOf(err) != projector.CodeBadRequest {
			t.Errorf("%s: %v, want bad_request", body, err)
		}
	}
}

func TestVerbsAndMerge(t *testing.T) {
	echo := func(_ context.Context, b []byte) (any, error) { return string(b), nil }
	a, b := api.Verbs{"a": echo}, api.Verbs{"b": echo}
	v, err := api.Merge(a, b)
	if err != nil || !v.Knows("a") || !v.Knows("b") || v.Knows("c") {
		t.Fatalf("merge: %v %v", v, err)
	}
	if got, err := v.Handle(context.Background(), "b", []byte("x")); got != "x" || err != nil {
		t.Fatalf("handle b: %v %v", got, err)
	}
	if _, err := v.Handle(context.Background(), "c", nil); api.CodeOf(err) != projector.CodeUnknownVerb {
		t.Fatalf("unknown verb: %v", err)
	}
	if _, err := api.Merge(a, b, api.Verbs{"a": echo}); err == nil || !strings.Contains(err.Error(), "a") {
		t.Fatalf("a verb served twice: %v", err)
	}
}
