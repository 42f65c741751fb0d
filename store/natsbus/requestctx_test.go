package natsbus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matchrec/matchrec/store/api"
)

// blockingVerb is a handler that runs until its context ends, and says
// when it started (with its deadline, if any) and how it ended.
func blockingVerb(started chan<- time.Time, ended chan<- error) api.Verbs {
	return api.Verbs{"block": func(ctx context.Context, _ []byte) (any, error) {
		dl, _ := ctx.Deadline()
		started <- dl
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}
}

// A handler runs as long as its caller waits, and no longer: it is
// cancelled when its caller times out, or stops waiting before that.
func TestHandlersEndWithTheirCaller(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	nc, _ := connect(t, srv)
	started, ended := make(chan time.Time, 1), make(chan error, 1)
	serve(t, nc, blockingVerb(started, ended))
	cnc, _ := connect(t, srv)
	c := &Client{Conn: cnc, Timeout: time.Minute}

	// The caller times out: the handler is cancelled then.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t0 := time.Now()
	go func() { _ = c.Call(ctx, "block", nil, nil) }()
	<-started
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) || time.Since(t0) < time.Second {
			t.Fatalf("the handler ended with %v after %v", err, time.Since(t0))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler ran on after its caller timed out")
	}

	// A caller that gives up early cancels the handler at once.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "block", nil, nil) }()
	<-started
	t0 = time.Now()
	cancel()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler ended with %v, want canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler ran on after its caller went away")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call: %v", err)
	}
	t.Logf("handler cancelled %v after its caller left", time.Since(t0))
}

// Stopping the API gives running handlers a grace period, then cancels
// them: it returns whatever they do.
func TestStopCancelsHandlersAfterGrace(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	nc, _ := connect(t, srv)
	started, ended := make(chan time.Time, 1), make(chan error, 1)
	stop, err := ServeAPI(context.Background(), nc, blockingVerb(started, ended), ServeOptions{Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cnc, _ := connect(t, srv)
	c := &Client{Conn: cnc, Timeout: time.Hour}
	go func() { _ = c.Call(context.Background(), "block", nil, nil) }()
	<-started
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("stop waits for a handler that never ends")
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the handler ended with %v", err)
	}
}
