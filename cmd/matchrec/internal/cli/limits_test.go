package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/store/natsbus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A script over --max-script-bytes is refused as a bad script, naming the
// limit, and nothing is recorded.
func TestPlayRefusesAScriptOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run(t, dir, "play", "--max-script-bytes", "100", example)
	if code != ExitUsage || !strings.Contains(errs, "bad_script") || !strings.Contains(errs, "limit is 100") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out := mustRun(t, dir, "matches"); !strings.Contains(out, "no matches") {
		t.Fatalf("something was recorded: %s", out)
	}
	if code, _, errs := run(t, dir, "new", "--max-script-bytes", "0", example); code != ExitUsage || !strings.Contains(errs, "must be positive") {
		t.Fatalf("a limit of 0: exit %d: %s", code, errs)
	}
}

// serve stops within seconds of SIGTERM whatever is running: a query
// that would take minutes is interrupted, and its caller is told.
func TestServeStopsWhileAQueryRuns(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, dir)
	mustRun(t, dir, "play", example)
	sqlDone := make(chan int, 1)
	var errs string
	go func() {
		var code int
		code, _, errs = run(t, dir, "sql", "SELECT sum(a.range * b.range) FROM range(100000) a, range(100000) b")
		sqlDone <- code
	}()
	time.Sleep(3 * time.Second) // the tables caught up, the query running
	t0 := time.Now()
	srv.stop()
	select {
	case <-srv.exited:
		t.Logf("serve stopped %v after SIGTERM (exit %d)", time.Since(t0), srv.code)
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s of SIGTERM with a query running")
	}
	select {
	case code := <-sqlDone:
		if code == ExitOK {
			t.Fatalf("the interrupted query succeeded")
		}
		t.Logf("sql: exit %d: %s", code, strings.TrimSpace(errs))
	case <-time.After(20 * time.Second):
		t.Fatal("the query's caller was never told")
	}
}

// generate through serve reads the stream through one consumer for the
// whole run, not one per match left behind on the server.
func TestGenerateLeavesNoConsumersBehind(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, dir)
	mustRun(t, dir, "generate", "--edition", "3e", "--matches", "12", "--seed", "3", "--turns", "1")
	// As a client of the locked bus (its credentials and inbox prefix).
	nc, err := nats.Connect(srv.info.NATSURL, nats.UserCredentials(srv.info.ClientCreds), nats.CustomInboxPrefix(srv.info.InboxPrefix))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.NewWithAPIPrefix(nc, "$JS.API")
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Consumers > 1 {
		t.Fatalf("%d consumers on the stream after generating 12 matches", info.State.Consumers)
	}
}
