package natsbus

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/matchrec/matchrec/store"
)

// Two recorders opening the same epoch keep one seed: the first created,
// returned to the second, which commits to it too; each keeps it in its
// own store; a recorder that never saw it reads it from the bucket. The
// registry lists every recorder's identity.
func TestClusterSecretsKeepTheFirstSeed(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "nats"), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	secrets, recorders, err := EnsureBuckets(ctx, js, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := &ClusterSecrets{KV: secrets, Local: openBolt(t)}
	b := &ClusterSecrets{KV: secrets, Local: openBolt(t)}
	first, second := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	if got, err := a.ClaimSecret(ctx, "m", 0, first); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first claim: %x %v", got, err)
	}
	if got, err := b.ClaimSecret(ctx, "m", 0, second); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("second claim: %x %v, want the first seed", got, err)
	}
	if got, err := b.Local.Secret(ctx, "m", 0); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("the second recorder keeps %x %v", got, err)
	}
	if err := b.PutSecret(ctx, "m", 0, second); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("PutSecret of another seed: %v, want ErrConflict", err)
	}
	c := &ClusterSecrets{KV: secrets, Local: openBolt(t)}
	if got, err := c.Secret(ctx, "m", 0); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("a third recorder reads %x %v", got, err)
	}
	if _, err := c.Secret(ctx, "m", 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown epoch: %v", err)
	}
	for _, pub := range [][]byte{bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{8}, 32)} {
		if err := Register(ctx, recorders, pub); err != nil {
			t.Fatal(err)
		}
	}
	list, err := Recorders(ctx, recorders)
	if err != nil || len(list) != 2 {
		t.Fatalf("recorders: %+v %v", list, err)
	}
}
