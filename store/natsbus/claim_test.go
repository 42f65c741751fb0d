package natsbus

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A second single-machine recorder on the bus another one relays to is
// refused, and so is a cluster recorder on a single stream and a single
// recorder on a cluster stream (issue 15: never split a match's truth).
// Each refusal leaves the stream's claim as it was.
func TestClaimRefusesASecondTruth(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "nats"), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	a := Claim{Mode: ModeSingle, Owner: "aaaa"}
	if _, created, err := EnsureClaimed(ctx, js, a); err != nil || !created {
		t.Fatalf("first claim: created %v, %v", created, err)
	}
	if _, created, err := EnsureClaimed(ctx, js, a); err != nil || created {
		t.Fatalf("the owner again: created %v, %v", created, err)
	}
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeSingle, Owner: "bbbb"}); !errors.Is(err, ErrClaimed) {
		t.Fatalf("second single recorder: %v, want ErrClaimed", err)
	}
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1}); !errors.Is(err, ErrModeMismatch) {
		t.Fatalf("cluster recorder on a single stream: %v, want ErrModeMismatch", err)
	}
	// Migrating is the owner's business only.
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1, Owner: "bbbb", Migrate: true}); !errors.Is(err, ErrModeMismatch) {
		t.Fatalf("another recorder migrating the stream: %v, want ErrModeMismatch", err)
	}
	assertClaim(t, ctx, js, ModeSingle, "aaaa")

	// The owner migrates it: the stream becomes the cluster's.
	s, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1, Owner: "aaaa", Migrate: true})
	if err != nil {
		t.Fatalf("owner migrates: %v", err)
	}
	if !s.CachedInfo().Config.AllowAtomicPublish {
		t.Fatal("a cluster stream without atomic batches")
	}
	assertClaim(t, ctx, js, ModeCluster, "")
	if _, _, err := EnsureClaimed(ctx, js, a); !errors.Is(err, ErrModeMismatch) {
		t.Fatalf("single recorder on a cluster stream: %v, want ErrModeMismatch", err)
	}
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1}); err != nil {
		t.Fatalf("second cluster recorder: %v", err)
	}
	assertClaim(t, ctx, js, ModeCluster, "")
}

// An unclaimed stream that holds events is not taken by a cluster
// recorder without --migrate; an empty one is. The relay's unclaimed
// EnsureStream keeps a claim it finds.
func TestClaimOfAnUnclaimedStream(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "nats"), EmbeddedOptions{DontListen: true})
	nc, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1}); err != nil {
		t.Fatalf("cluster claim of an empty unclaimed stream: %v", err)
	}
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	assertClaim(t, ctx, js, ModeCluster, "")

	// A fresh server with an unclaimed stream holding an event.
	srv2 := startServer(t, filepath.Join(t.TempDir(), "nats"), EmbeddedOptions{DontListen: true})
	nc, js = connect(t, srv2)
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish(SubjectPrefix+"m1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitMsgs(t, ctx, js, 1)
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1}); !errors.Is(err, ErrModeMismatch) {
		t.Fatalf("cluster claim of a used unclaimed stream: %v, want ErrModeMismatch", err)
	}
	assertClaim(t, ctx, js, "", "")
}

// A cluster recorder refuses a stream whose settings would drop events,
// and changes nothing.
func TestClaimRefusesAnIncompatibleStream(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "nats"), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := StreamConfig()
	cfg.MaxAge = time.Hour
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, _, err := EnsureClaimed(ctx, js, Claim{Mode: ModeCluster, Replicas: 1}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("stream with a max age: %v, want ErrIncompatible", err)
	}
	s, err := js.Stream(ctx, StreamName)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CachedInfo().Config; got.MaxAge != time.Hour || got.Metadata[MetaMode] != "" {
		t.Fatalf("the refused stream was changed: max age %s, mode %q", got.MaxAge, got.Metadata[MetaMode])
	}
}

func assertClaim(t *testing.T, ctx context.Context, js jetstream.JetStream, mode Mode, owner string) {
	t.Helper()
	s, err := js.Stream(ctx, StreamName)
	if err != nil {
		t.Fatal(err)
	}
	m := s.CachedInfo().Config.Metadata
	if Mode(m[MetaMode]) != mode || m[MetaOwner] != owner {
		t.Fatalf("claim %q/%q, want %q/%q", m[MetaMode], m[MetaOwner], mode, owner)
	}
}

func waitMsgs(t *testing.T, ctx context.Context, js jetstream.JetStream, n uint64) {
	t.Helper()
	for {
		s, err := js.Stream(ctx, StreamName)
		if err != nil {
			t.Fatal(err)
		}
		if s.CachedInfo().State.Msgs >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("stream never held %d messages", n)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
