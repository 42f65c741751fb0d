package natsbus

import (
	"context"
	"testing"
	"time"
)

// Starting JetStream again (what the embedded server does once a full
// disk has room again, storage.go) keeps the stream and its messages, on a
// server closed by its users: the recorder's connection publishes again
// and reads what was there.
func TestJetStreamStartsAgainOnItsFiles(t *testing.T) {
	srv, _, js, s := closedServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.Publish(ctx, SubjectPrefix+"m1", []byte("before")); err != nil {
		t.Fatal(err)
	}
	if err := srv.restartJetStream(); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, SubjectPrefix+"m1", []byte("after")); err != nil {
		t.Fatalf("publish after the restart: %v", err)
	}
	info, err := s.Info(ctx)
	if err != nil || info.State.Msgs != 2 || !info.Config.DenyPurge {
		t.Fatalf("the stream after the restart: %+v %v", info, err)
	}
}

// The server's log lines that mean JetStream cannot write.
func TestWriteErrorsAreRecognised(t *testing.T) {
	for msg, want := range map[string]bool{
		"Filestore [MATCHREC] Critical write error: write /d/1.blk: no space left on device":            true,
		"JetStream stream 'A > MATCHREC' critical write error: write /d/1.blk: no space left on device": true,
		"JetStream failed to store a msg on stream 'A > MATCHREC': write /d: no space left on device":   true,
		"JetStream out of resources, will be DISABLED":                                                  true,
		"Publish Violation - User \"viewer\"":                                                           false,
	} {
		if isWriteError(msg) != want {
			t.Errorf("isWriteError(%q) = %v", msg, !want)
		}
	}
}
