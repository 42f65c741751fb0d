package natsbus

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/store/api"
)

// Which reply subjects the API answers on: InboxReply (any inbox
// namespace) and RoleReply (the inboxes of the roles that may call the
// verb).
func TestReplySubjectChecks(t *testing.T) {
	for _, c := range []struct {
		verb, reply string
		inbox, role bool
	}{
		{api.VerbPing, "_INBOX_client.abc", true, true},
		{api.VerbPing, "_INBOX_viewer.abc.def", true, true},
		{api.VerbDeclare, "_INBOX_client.abc", true, true},
		{api.VerbDeclare, "_INBOX_viewer.abc", true, false}, // the viewer may not declare
		{api.VerbPing, "_INBOX_recorder.abc", true, false},
		{api.VerbPing, "_INBOX_api.abc", true, false},
		{api.VerbPing, "_INBOX.abc", true, false},
		{api.VerbPing, "_INBOX_alice.abc", true, false}, // an external server's own user
		{api.VerbPing, "_INBOX_client", false, false},
		{api.VerbPing, "_INBOX_client.", false, false},
		{api.VerbPing, "_INBOX_.abc", false, false},
		{api.VerbPing, "_INBOX_client.*", false, false},
		{api.VerbPing, "_INBOX_client.>", false, false},
		{api.VerbPing, "_INBOXclient.abc", false, false},
		{api.VerbPing, "matchrec.events.friday", false, false},
		{api.VerbPing, "$JS.API.STREAM.PURGE.MATCHREC", false, false},
		{api.VerbPing, "$KV.seeds.m1", false, false},
		{api.VerbPing, "$SYS.REQ.SERVER.PING", false, false},
		{api.VerbPing, "matchrec.api.declare", false, false},
		{api.VerbPing, "matchrec.cancel.x", false, false},
		{api.VerbPing, "", false, false},
	} {
		if got := InboxReply(c.verb, c.reply); got != c.inbox {
			t.Errorf("InboxReply(%s, %q) = %v", c.verb, c.reply, got)
		}
		if got := RoleReply(c.verb, c.reply); got != c.role {
			t.Errorf("RoleReply(%s, %q) = %v", c.verb, c.reply, got)
		}
	}
}

// The API's own user may publish into the callers' inboxes and nowhere
// else, whatever a request names as its reply: with matchrec's own check
// switched off, the server itself refuses every answer aimed at the
// stream, JetStream's API or a KV bucket, and the stream stays empty.
func TestAPIUserAnswersOnlyInTheCallersInboxes(t *testing.T) {
	srv, auth, _, stream := closedServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	refusals := make(chan error, 100)
	anc := connectAs(t, srv, auth, RoleAPI, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		refusals <- err
	}))
	stop, err := ServeAPI(ctx, anc, api.Verbs{api.VerbPing: func(context.Context, []byte) (any, error) { return "pong", nil }},
		ServeOptions{Reply: func(string, string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	vnc := connectAs(t, srv, auth, RoleViewer)

	hostile := []string{SubjectPrefix + "friday", "$JS.API.STREAM.PURGE." + StreamName, "$JS.API.STREAM.UPDATE." + StreamName,
		"$KV.victim.key", InboxPrefix(RoleRecorder) + ".x", "_INBOX.x", APIPrefix + "ping"}
	for _, reply := range hostile {
		if err := vnc.PublishRequest(APIPrefix+api.VerbPing, reply, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-refusals:
			if !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), reply) {
				t.Fatalf("the answer on %s: %v", reply, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the server did not refuse the API's answer on %s", reply)
		}
	}
	var pong string
	if err := (&Client{Conn: vnc, Timeout: 10 * time.Second}).Call(ctx, api.VerbPing, nil, &pong); err != nil || pong != "pong" {
		t.Fatalf("a proper ping: %q %v", pong, err)
	}
	info, err := stream.Info(ctx)
	if err != nil || info.State.Msgs != 0 || info.Config.DenyPurge != true {
		t.Fatalf("the stream after the attacks: %+v %v", info, err)
	}
}
