package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matchrec/matchrec/store/natsbus"
)

// Two single-machine recorders on one bus would each answer half of the
// API's requests from their own store (issue 15): the second refuses to
// start, with an error that says why and what to do; the owner restarts
// on its own data directory.
func TestSecondSingleRecorderOnABusRefuses(t *testing.T) {
	srv, _, pw := docServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := func() Config {
		return Config{DataDir: t.TempDir(), NATSURL: srv.ClientURL(),
			NATSAuth:    natsbus.Credentials{User: "recorder", Password: pw[natsbus.RoleRecorder], InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)},
			NATSAPIAuth: docAPILogin(pw)}
	}
	first, err := Open(ctx, cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Open(ctx, cfg())
	if err == nil {
		second.Close()
		t.Fatal("a second single-machine recorder started on the bus the first relays to")
	}
	if !errors.Is(err, natsbus.ErrClaimed) {
		t.Fatalf("second recorder: %v, want ErrClaimed", err)
	}
	// Restarting the owner on its own data directory is no second truth.
	dir := first.cfg.DataDir
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := cfg()
	again.DataDir = dir
	n, err := Open(ctx, again)
	if err != nil {
		t.Fatalf("the owner restarted: %v", err)
	}
	n.Close()
}
