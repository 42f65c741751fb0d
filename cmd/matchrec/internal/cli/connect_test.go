package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A serve whose NATS server is down holds the data directory but does not
// answer: commands say the recorder is unreachable and why, never that the
// directory is locked; once NATS is back they work again.
func TestUnreachableServeIsNotLocked(t *testing.T) {
	natsDir := filepath.Join(t.TempDir(), "nats")
	srv, err := natsbus.StartEmbedded(natsDir, natsbus.EmbeddedOptions{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	port, url := srv.Port(), srv.ClientURL()
	dir := t.TempDir()
	n, err := node.Open(context.Background(), node.Config{DataDir: dir, NATSURL: url, WriteServerFile: true,
		Reconnect: natsbus.Reconnect{Wait: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	mustRun(t, dir, "play", example)

	srv.Shutdown()
	code, _, errs := run(t, dir, "matches")
	if code != ExitUsage || !strings.Contains(errs, "error: unavailable: recorder unreachable: ") || strings.Contains(errs, "locked") {
		t.Fatalf("with NATS down: exit %d, %s", code, errs)
	}

	srv, err = natsbus.StartEmbedded(natsDir, natsbus.EmbeddedOptions{Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, out, errs := run(t, dir, "matches")
		if code == 0 && strings.Contains(out, "Boltguns vs Boyz") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after NATS came back: exit %d, %s", code, errs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// identity prints the key the recorder keeps in the data directory, the
// same at every start, and the one its events on the bus are signed with.
func TestIdentityCommand(t *testing.T) {
	dir := t.TempDir()
	first := strings.TrimSpace(mustRun(t, dir, "identity"))
	id, err := identity.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first != id.PublicHex() {
		t.Fatalf("identity printed %q, the key file holds %s", first, id.PublicHex())
	}
	var res struct {
		Recorder string `json:"recorder"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "identity")), &res); err != nil || res.Recorder != first {
		t.Fatalf("--json identity: %+v %v", res, err)
	}
}
