package node

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// Reply subjects (issue 22): a request names where its answer goes, and
// a viewer's ping with the reply subject matchrec.events.<match> made the
// recorder write into that match's stream; one aimed at
// $JS.API.STREAM.PURGE.MATCHREC reached JetStream. Every reply subject an
// attacker would name — the stream's subjects, JetStream's API (purge,
// delete, update, a consumer's delete), a KV bucket, the API's own
// subjects, the recorder's and the API's inboxes, the default inbox, and
// for a verb the viewer may not call the viewer's inbox — is tried by a
// viewer and by a client, on verbs that read and on one that records. The
// stream, its consumers and a KV bucket are untouched, the record has not
// moved, the bus copy is still equal, and the API still answers.
func TestRepliesOnlyInTheCallersInbox(t *testing.T) {
	n := serveWith(t, Config{})
	m := playSome(t, n, 3)
	viewer := attack(t, n, natsbus.RoleViewer)
	client := attack(t, n, natsbus.RoleClient)
	nc, err := n.ConnectAs(natsbus.RoleRecorder)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	replyAttacks(t, n, nc, viewer, client, m)
}

// replyAttacks runs the attacks of TestRepliesOnlyInTheCallersInbox
// against n; rec is a connection that may manage JetStream (to set up the
// victims and look at them).
func replyAttacks(t *testing.T, n *Node, rec *nats.Conn, viewer, client *attacker, m api.CreateResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	js, err := jetstream.New(rec)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	// Victims: a durable consumer (someone's feed) and a KV bucket.
	if _, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "victim"}); err != nil {
		t.Fatal(err)
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "victim"})
	if err != nil {
		t.Fatal(err)
	}
	state := func() string {
		t.Helper()
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(natsbus.StreamSubjects))
		if err != nil {
			t.Fatal(err)
		}
		kvs, err := kv.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := n.store.Head(ctx, m.Match)
		subjects, _ := json.Marshal(info.State.Subjects)
		return fmt.Sprintf("stream %d msgs, last %d, subjects %s, config %+v; kv %d values; head %d",
			info.State.Msgs, info.State.LastSeq, subjects, info.Config, kvs.Values(), head.Seq)
	}
	before := state()

	match := m.Match
	alice := m.Tokens[api.RolePlayer("alice")]
	declare, _ := json.Marshal(api.ExecuteRequest{Match: match, Token: alice, Command: &projector.Command{Type: projector.CmdNextTurn}})
	state1, _ := json.Marshal(api.StateRequest{Match: match})
	hostile := []string{
		natsbus.SubjectPrefix + match, natsbus.SubjectPrefix + "no-such-match-yet",
		"$JS.API.STREAM.PURGE." + natsbus.StreamName, "$JS.API.STREAM.DELETE." + natsbus.StreamName,
		"$JS.API.STREAM.UPDATE." + natsbus.StreamName, "$JS.API.STREAM.MSG.DELETE." + natsbus.StreamName,
		"$JS.API.CONSUMER.DELETE." + natsbus.StreamName + ".victim", "$JS.API.STREAM.DELETE.KV_victim",
		"$KV.victim.key", "$SYS.REQ.SERVER.PING",
		natsbus.APIPrefix + "declare", natsbus.CancelPrefix + "x",
		natsbus.InboxPrefix(natsbus.RoleRecorder) + ".x", natsbus.InboxPrefix(natsbus.RoleAPI) + ".x", "_INBOX.x",
		natsbus.InboxPrefix(natsbus.RoleClient), // the prefix itself, no token
	}
	type try struct {
		a          *attacker
		verb, body string
		replies    []string
	}
	tries := []try{
		{viewer, api.VerbPing, "", hostile},
		{viewer, api.VerbState, string(state1), hostile},
		{client, api.VerbPing, "", hostile},
		// A verb only the client may call, answered into the viewer's
		// inbox: another role's.
		{client, api.VerbDeclare, string(declare), append(hostile, natsbus.InboxPrefix(natsbus.RoleViewer)+".x")},
	}
	sent := 0
	for _, tr := range tries {
		for _, reply := range tr.replies {
			if err := tr.a.nc.PublishRequest(natsbus.APIPrefix+tr.verb, reply, []byte(tr.body)); err != nil {
				t.Fatalf("%s with reply %s: %v", tr.verb, reply, err)
			}
			sent++
		}
		if err := tr.a.nc.FlushTimeout(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// The API takes requests in order on one subscription: once a proper
	// call of each attacker is answered, every request before it has been
	// seen (and ignored).
	for _, a := range []*attacker{viewer, client} {
		c := &natsbus.Client{Conn: a.nc, Timeout: 10 * time.Second}
		var ping api.PingResult
		if err := c.Call(ctx, api.VerbPing, nil, &ping); err != nil {
			t.Fatalf("a proper ping after the attacks: %v", err)
		}
	}
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	if after := state(); after != before {
		t.Fatalf("%d requests with hostile reply subjects changed the bus or the record:\nbefore %s\nafter  %s", sent, before, after)
	}
	if _, err := stream.Consumer(ctx, "victim"); err != nil {
		t.Fatalf("the durable consumer is gone: %v", err)
	}
	var bc api.BusCheckResult
	if err := (&natsbus.Client{Conn: client.nc, Timeout: 10 * time.Second}).Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: match}, &bc); err != nil || !bc.Equal || bc.Flagged != "" {
		t.Fatalf("buscheck after the attacks: %+v %v", bc, err)
	}
	if d := n.Relay().AllDiffers(); len(d) != 0 {
		t.Fatalf("the relay flagged %v", d)
	}
}
