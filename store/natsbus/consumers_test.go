package natsbus

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// What the server holds a viewer's consumers to (issue 22: viewers could
// make unlimited durables and push consumers delivering anywhere): a
// durable without an idle limit gets the stream's, so it is removed when
// idle; a longer one, or more unacknowledged messages than allowed, is
// refused; the account's consumer limit is set; and the viewer may
// delete its own consumer, by name, without a permissions violation.
func TestViewerConsumersAreLimited(t *testing.T) {
	srv, auth, rjs, _ := closedServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 3 {
		if _, err := rjs.Publish(ctx, SubjectPrefix+"m1", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	refusals := make(chan error, 10)
	vnc := connectAs(t, srv, auth, RoleViewer, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refusals <- err }))
	vjs, _ := jetstream.New(vnc)
	vs, err := vjs.Stream(ctx, StreamName)
	if err != nil {
		t.Fatal(err)
	}

	c, err := vs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "mine", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CachedInfo().Config.InactiveThreshold; got != ConsumerIdle {
		t.Fatalf("a viewer's durable idles %s before removal, want %s", got, ConsumerIdle)
	}
	if _, err := vs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "forever", InactiveThreshold: time.Hour}); err == nil {
		t.Fatal("a durable idle for an hour was accepted")
	}
	if _, err := vs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "greedy", AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: 10 * MaxAckPending}); err == nil {
		t.Fatal("a consumer holding 10,000 unacknowledged messages was accepted")
	}
	info, err := vjs.AccountInfo(ctx)
	if err != nil || info.Limits.MaxConsumers != MaxConsumers {
		t.Fatalf("the account's consumer limit: %+v %v", info, err)
	}

	if err := vs.DeleteConsumer(ctx, "mine"); err != nil {
		t.Fatalf("the viewer deletes its own consumer: %v", err)
	}
	select {
	case err := <-refusals:
		t.Fatalf("a permissions violation: %v", err)
	default:
	}
}

// The server's refusals of a client are logged at warn, its own failures
// at error.
func TestServerRefusalsAreWarnings(t *testing.T) {
	var buf bytes.Buffer
	l := &serverLogger{log: zerolog.New(&buf), writeErr: make(chan struct{}, 1)}
	l.Errorf("%s - Publish Violation - Subject %q", `cid:7 - "viewer"`, "$JS.API.CONSUMER.DELETE.MATCHREC.x")
	l.Errorf("Filestore [MATCHREC] Critical write error: %s", "no space left on device")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"level":"warn"`) || !strings.Contains(lines[1], `"level":"error"`) {
		t.Fatalf("log:\n%s", buf.String())
	}
}
