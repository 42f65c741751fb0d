package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

type echoReq struct {
	Match string `json:"match"`
	N     int    `json:"n"`
}

// testVerbs covers every way a handler can end.
func testVerbs() api.Verbs {
	return api.Verbs{
		"echo": func(_ context.Context, body []byte) (any, error) {
			var req echoReq
			if err := api.Bind(body, &req); err != nil {
				return nil, err
			}
			return req, nil
		},
		"nothing":   func(context.Context, []byte) (any, error) { return nil, nil },
		"conflict":  func(context.Context, []byte) (any, error) { return nil, fmt.Errorf("append m1: %w", store.ErrConflict) },
		"not_found": func(context.Context, []byte) (any, error) { return nil, fmt.Errorf("m9: %w", store.ErrNotFound) },
		"refused": func(context.Context, []byte) (any, error) {
			return nil, api.Errorf(projector.CodeWrongPhase, "not in the shooting phase")
		},
		"wrapped": func(context.Context, []byte) (any, error) {
			return nil, fmt.Errorf("judge only: %w", &api.Error{Code: projector.CodeUnauthorized, Message: "player p1"})
		},
		"plain":     func(context.Context, []byte) (any, error) { return nil, errors.New("disk on fire") },
		"panic":     func(context.Context, []byte) (any, error) { panic("secret internals") },
		"bad_value": func(context.Context, []byte) (any, error) { return func() {}, nil },
	}
}

func serve(t *testing.T, nc *nats.Conn, h api.Handler) func() {
	t.Helper()
	stop, err := ServeAPI(context.Background(), nc, h, ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return stop
}

func TestAPIReplies(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	snc, _ := connect(t, srv)
	serve(t, snc, testVerbs())
	cnc, _ := connect(t, srv)
	c := &Client{Conn: cnc, Timeout: 5 * time.Second}
	ctx := context.Background()

	var got echoReq
	if err := c.Call(ctx, "echo", echoReq{Match: "m1", N: 3}, &got); err != nil || got != (echoReq{"m1", 3}) {
		t.Fatalf("echo: %+v, %v", got, err)
	}
	if err := c.Call(ctx, "nothing", nil, nil); err != nil {
		t.Fatalf("nothing: %v", err)
	}

	for _, tc := range []struct {
		verb string
		body any
		code projector.Code
	}{
		{"nope", nil, projector.CodeUnknownVerb},
		{"nope", []byte("{"), projector.CodeUnknownVerb}, // the verb is checked first
		{"echo.more", nil, projector.CodeUnknownVerb},
		{"echo", []byte(`{"match":`), projector.CodeBadRequest},
		{"echo", []byte(`not json`), projector.CodeBadRequest},
		{"echo", []byte(`{"matc":"m1"}`), projector.CodeBadRequest}, // unknown field, via Bind
		{"echo", []byte(`{"n":"three"}`), projector.CodeBadRequest},
		{"conflict", nil, projector.CodeConflict},
		{"not_found", nil, projector.CodeNotFound},
		{"refused", nil, projector.CodeWrongPhase},
		{"wrapped", nil, projector.CodeUnauthorized},
		{"plain", nil, projector.CodeInternal},
		{"panic", nil, projector.CodeInternal},
		{"bad_value", nil, projector.CodeInternal},
	} {
		err := c.Call(ctx, tc.verb, tc.body, nil)
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%s %s: got %v, want code %s", tc.verb, tc.body, err, tc.code)
			continue
		}
		if tc.verb == "panic" && (ae.Message == "" || strings.Contains(ae.Message, "secret")) {
			t.Errorf("panic reply leaks or says nothing: %q", ae.Message)
		}
		if tc.verb == "wrapped" && ae.Message != "judge only: unauthorized: player p1" {
			t.Errorf("wrapped message: %q", ae.Message)
		}
	}

	// The wire format, as the nats CLI shows it.
	raw := func(verb, body string) string {
		t.Helper()
		m, err := cnc.Request(APIPrefix+verb, []byte(body), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return string(m.Data)
	}
	if got, want := raw("echo", `{"match":"m1","n":2}`), `{"ok":true,"result":{"match":"m1","n":2}}`; got != want {
		t.Errorf("ok reply %s, want %s", got, want)
	}
	if got, want := raw("nothing", ``), `{"ok":true,"result":null}`; got != want {
		t.Errorf("empty reply %s, want %s", got, want)
	}
	var e struct {
		OK    bool           `json:"ok"`
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw("refused", `{}`)), &e); err != nil || e.OK ||
		e.Error["code"] != "wrong_phase" || e.Error["message"] != "not in the shooting phase" {
		t.Errorf("error reply %+v, %v", e, err)
	}

}

// A plain HandlerFunc cannot say which verbs exist: the server vets the
// JSON first and the handler answers unknown_verb itself.
func TestAPIHandlerFunc(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	snc, _ := connect(t, srv)
	serve(t, snc, api.HandlerFunc(func(_ context.Context, verb string, body []byte) (any, error) {
		if verb != "ping" {
			return nil, api.Errorf(projector.CodeUnknownVerb, "no %s", verb)
		}
		return "pong", nil
	}))
	cnc, _ := connect(t, srv)
	c := &Client{Conn: cnc}
	var got string
	if err := c.Call(context.Background(), "ping", nil, &got); err != nil || got != "pong" {
		t.Fatalf("ping: %q, %v", got, err)
	}
	for body, code := range map[string]projector.Code{"{": projector.CodeBadRequest, "{}": projector.CodeUnknownVerb} {
		var ae *api.Error
		if err := c.Call(context.Background(), "pong", []byte(body), nil); !errors.As(err, &ae) || ae.Code != code {
			t.Errorf("pong %s: %v, want %s", body, err, code)
		}
	}
}

// Requests are handled side by side: ten handlers wait for each other
// (a serial API would never get ten in flight), then a thousand calls
// all get their own answer; stop lets a request in flight finish and
// reply, and after it nobody answers. Decided by events, never by how
// long anything took.
func TestAPIConcurrentCalls(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	snc, _ := connect(t, srv)
	const together = 10
	var inFlight atomic.Int64
	all := make(chan struct{}) // closed once together handlers run at once
	var allOnce sync.Once
	started, release := make(chan struct{}, 1), make(chan struct{})
	stop := serve(t, snc, api.Verbs{
		"slow": func(_ context.Context, body []byte) (any, error) {
			if inFlight.Add(1) >= together {
				allOnce.Do(func() { close(all) })
			}
			defer inFlight.Add(-1)
			select {
			case <-all:
			case <-time.After(30 * time.Second):
				return nil, errors.New("never had ten requests in flight at once: not concurrent")
			}
			var req echoReq
			if err := api.Bind(body, &req); err != nil {
				return nil, err
			}
			return req.N * 2, nil
		},
		"held": func(context.Context, []byte) (any, error) {
			started <- struct{}{}
			<-release
			return 42, nil
		},
		"ping": func(context.Context, []byte) (any, error) { return "pong", nil },
	})

	const clients, calls = 100, 10
	cnc, _ := connect(t, srv)
	c := &Client{Conn: cnc}
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < calls; j++ {
				n := i*calls + j
				var got int
				if err := c.Call(context.Background(), "slow", echoReq{N: n}, &got); err != nil {
					errs <- err
					return
				}
				if got != 2*n {
					errs <- fmt.Errorf("call %d: got %d", n, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// stop lets a request already received finish and reply: the held
	// request is released only once stop has begun (the API no longer
	// takes requests: a ping finds no recorder).
	reply := make(chan string, 1)
	go func() {
		// Bounded: a lost request fails the test instead of hanging it.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var got int
		err := c.Call(ctx, "held", nil, &got)
		reply <- fmt.Sprint(got, err)
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the held request never reached its handler")
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Call(ctx, "ping", nil, nil)
		cancel()
		if errors.Is(err, ErrNoRecorder) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API still answers after stop began: %v", err)
		}
	}
	close(release)
	if got := <-reply; got != "42 <nil>" {
		t.Errorf("request in flight at stop: %v", got)
	}
	<-stopped
	if err := c.Call(context.Background(), "slow", nil, nil); !errors.Is(err, ErrNoRecorder) {
		t.Errorf("call after stop: %v, want ErrNoRecorder", err)
	}
}

// TestAPIRepliesCarryTheNote: while ServeOptions.Note has something to
// say (the bus is behind the record), every reply carries it, success or
// error, and Client.OnNote hears it; otherwise replies have no note.
func TestAPIRepliesCarryTheNote(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	nc, _ := connect(t, srv)
	var note atomic.Pointer[string]
	empty := ""
	note.Store(&empty)
	stop, err := ServeAPI(context.Background(), nc, testVerbs(), ServeOptions{Note: func() string { return *note.Load() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	var heard []string
	c := &Client{Conn: nc, OnNote: func(verb, n string) { heard = append(heard, verb+": "+n) }}
	ctx := context.Background()
	if err := c.Call(ctx, "nothing", nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Fatalf("a note without one: %v", heard)
	}
	behind := "recorded, but the bus is behind"
	note.Store(&behind)
	var out echoReq
	if err := c.Call(ctx, "echo", echoReq{Match: "m1", N: 3}, &out); err != nil || out.N != 3 {
		t.Fatalf("echo with a note: %+v %v", out, err)
	}
	if err := c.Call(ctx, "refused", nil, nil); err == nil {
		t.Fatal("refused: no error")
	}
	want := []string{"echo: " + behind, "refused: " + behind}
	if strings.Join(heard, "|") != strings.Join(want, "|") {
		t.Fatalf("heard %q, want %q", heard, want)
	}
}
