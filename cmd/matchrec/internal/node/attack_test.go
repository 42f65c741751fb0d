package node

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/natsbus"
)

// The attacker suite (issue 13): an attacker on the same network with
// nothing but a NATS client — the stock CLI's library — and whatever
// credentials they hold, against a serving node with a real embedded
// server, real bbolt files and the real relay. Each attack is refused by
// NATS itself, or detected by matchrec, and nothing the recorder did not
// write is recorded or delivered.

// serveWith opens a serving node with cfg's extras on a temp data dir.
func serveWith(t testing.TB, cfg Config) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.WriteServerFile = true
	n, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// attacker is a NATS connection that records the server's refusals,
// which arrive asynchronously (a permissions violation).
type attacker struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	errs chan error
}

// attack connects to n as role with the credentials the node wrote ("" =
// none: on an open server).
func attack(t testing.TB, n *Node, role natsbus.Role) *attacker {
	t.Helper()
	a := &attacker{errs: make(chan error, 100)}
	opts := append(clientLogin(n, role), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		a.errs <- err
	}))
	nc, err := nats.Connect(n.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	a.nc = nc
	a.js, _ = jetstream.New(nc, jetstream.WithDefaultTimeout(time.Second))
	return a
}

// refused waits for the server to refuse what, naming it.
func (a *attacker) refused(t *testing.T, what, subject string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case err := <-a.errs:
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), subject) {
				return
			}
			t.Logf("%s: another refusal meanwhile: %v", what, err)
		case <-deadline:
			t.Fatalf("%s: the server did not refuse it (no permissions violation for %q)", what, subject)
		}
	}
}

// playSome records a match's first steps through the API as a client.
func playSome(t *testing.T, n *Node, steps int) api.CreateResult {
	t.Helper()
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	m, _ := play(t, remote(t, n), sc, steps)
	if err := n.Relay().Drained(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

// forgery is an event the recorder never wrote: correctly numbered and
// chained after the match's head, as the attacker built one.
func forgery(t *testing.T, n *Node, match string) events.Event {
	t.Helper()
	h, err := n.store.Head(context.Background(), match)
	if err != nil {
		t.Fatal(err)
	}
	e := events.Event{
		Match: match, Seq: h.Seq + 1, PrevHash: h.Hash, Time: time.Now().UnixNano(),
		Type: events.TypeTurnStarted, Version: 1, Actor: events.Actor{Kind: events.ActorPlayer, ID: "bob"},
		Payload: []byte{0x80},
	}
	e.Hash = events.ComputeHash(e)
	return e
}

func streamMsgs(t *testing.T, n *Node) uint64 {
	t.Helper()
	nc, err := n.ConnectAs(natsbus.RoleRecorder)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	s, err := js.Stream(context.Background(), natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

func TestAttackWithoutCredentialsIsRefused(t *testing.T) {
	n := serveWith(t, Config{})
	if nc, err := nats.Connect(n.URL()); err == nil {
		nc.Close()
		t.Fatal("connected without credentials")
	} else if !strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
		t.Fatalf("without credentials: %v", err)
	}
	// Another recorder's client credentials: another operator, refused.
	other := serveWith(t, Config{})
	if nc, err := nats.Connect(n.URL(), nats.UserCredentials(other.CredsPath(natsbus.RoleClient))); err == nil {
		nc.Close()
		t.Fatal("connected with another recorder's credentials")
	}
	// The files are private.
	for _, f := range []string{n.CredsPath(natsbus.RoleClient), n.CredsPath(natsbus.RoleViewer),
		filepath.Join(n.cfg.DataDir, natsbus.KeysFile), filepath.Join(n.cfg.DataDir, identity.File),
		filepath.Join(n.cfg.DataDir, StoreFile), filepath.Join(n.cfg.DataDir, ServerFile)} {
		st, err := os.Stat(f)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, st.Mode().Perm(), err)
		}
	}
	if st, err := os.Stat(n.cfg.DataDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("data directory mode %v (%v), want 0700", st.Mode().Perm(), err)
	}
}

// Sniffing requests (with their tokens) and replies (with new tokens),
// and answering in the recorder's place.
func TestAttackSniffingAndImpersonationAreRefused(t *testing.T) {
	n := serveWith(t, Config{})
	client := attack(t, n, natsbus.RoleClient)
	viewer := attack(t, n, natsbus.RoleViewer)

	var subs []*nats.Subscription
	for _, s := range []struct {
		a       *attacker
		who     string
		subject string
	}{
		{client, "client", "matchrec.api.>"},
		{client, "client", "_INBOX.>"},
		{client, "client", "_INBOX_recorder.>"},
		{client, "client", "_INBOX_viewer.>"},
		{viewer, "viewer", "matchrec.api.>"},
		{viewer, "viewer", "_INBOX_client.>"},
		{viewer, "viewer", ">"},
	} {
		sub, err := s.a.nc.SubscribeSync(s.subject)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
		s.a.refused(t, s.who+" subscribes to "+s.subject, s.subject)
	}
	// Joining the API's queue group to answer in the recorder's place.
	var answered int
	if _, err := client.nc.QueueSubscribe(natsbus.APIPrefix+">", natsbus.APIQueue, func(m *nats.Msg) {
		answered++
		_ = m.Respond([]byte(`{"ok":true,"result":{"service":"matchrec","pid":1}}`))
	}); err != nil {
		t.Fatal(err)
	}
	client.refused(t, "client joins the matchrec queue group", natsbus.APIPrefix+">")

	// Real traffic: a match is created (its reply carries every token) and
	// pinged 40 times; the recorder answers every call, nobody else sees
	// any of it.
	c := remote(t, n)
	m := playSome(t, n, 1)
	for i := 0; i < 40; i++ {
		var ping api.PingResult
		if err := c.Call(context.Background(), api.VerbPing, nil, &ping); err != nil || ping.PID != os.Getpid() {
			t.Fatalf("ping %d answered by %+v (%v)", i, ping, err)
		}
	}
	for i, sub := range subs {
		if msg, err := sub.NextMsg(50 * time.Millisecond); err == nil {
			t.Fatalf("subscription %d received %s: %s", i, msg.Subject, msg.Data)
		}
	}
	if answered != 0 {
		t.Fatalf("the rogue queue member got %d requests", answered)
	}
	if len(m.Tokens) == 0 {
		t.Fatal("the match has no tokens")
	}
}

// Forging events, rewriting the stream, acting as the recorder.
func TestAttackForgeryAndRewritingAreRefused(t *testing.T) {
	n := serveWith(t, Config{})
	m := playSome(t, n, 2)
	before := streamMsgs(t, n)
	head, _ := n.store.Head(context.Background(), m.Match)
	client := attack(t, n, natsbus.RoleClient)
	viewer := attack(t, n, natsbus.RoleViewer)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	subj := natsbus.SubjectPrefix + m.Match
	forged, err := natsbus.NewMsg(forgery(t, n, m.Match), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*attacker{client, viewer} {
		if err := a.nc.PublishMsg(forged); err != nil {
			t.Fatal(err)
		}
		a.refused(t, "publish a forged event", subj)
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		_, err := a.js.PublishMsg(pctx, forged)
		pcancel()
		if err == nil {
			t.Fatal("a JetStream publish of a forged event was acknowledged")
		}
	}

	s, err := client.js.Stream(ctx, natsbus.StreamName)
	if err != nil {
		t.Fatalf("a client may read the stream's info: %v", err)
	}
	cfg := natsbus.StreamConfig()
	cfg.DenyPurge = false
	// Each try has a second: a refused request is never answered.
	for _, try := range []struct {
		what, subject string
		do            func(ctx context.Context) error
	}{
		{"delete the stream", "$JS.API.STREAM.DELETE.", func(ctx context.Context) error { return client.js.DeleteStream(ctx, natsbus.StreamName) }},
		{"purge the stream", "$JS.API.STREAM.PURGE.", func(ctx context.Context) error { return s.Purge(ctx) }},
		{"purge a match", "$JS.API.STREAM.PURGE.", func(ctx context.Context) error { return s.Purge(ctx, jetstream.WithPurgeSubject(subj)) }},
		{"delete a message", "$JS.API.STREAM.MSG.DELETE.", func(ctx context.Context) error { return s.DeleteMsg(ctx, 1) }},
		{"erase a message", "$JS.API.STREAM.MSG.DELETE.", func(ctx context.Context) error { return s.SecureDeleteMsg(ctx, 1) }},
		{"lift DenyPurge", "$JS.API.STREAM.UPDATE.", func(ctx context.Context) error { _, err := client.js.UpdateStream(ctx, cfg); return err }},
		{"create a stream", "$JS.API.STREAM.CREATE.", func(ctx context.Context) error {
			_, err := client.js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}})
			return err
		}},
		{"create a durable (old API)", "$JS.API.CONSUMER.DURABLE.CREATE.", func(ctx context.Context) error {
			_, err := client.nc.RequestWithContext(ctx, "$JS.API.CONSUMER.DURABLE.CREATE."+natsbus.StreamName+".evil", []byte(`{"stream_name":"MATCHREC","config":{"durable_name":"evil"}}`))
			return err
		}},
		{"viewer deletes the stream", "$JS.API.STREAM.DELETE.", func(ctx context.Context) error { return viewer.js.DeleteStream(ctx, natsbus.StreamName) }},
	} {
		a := client
		if strings.HasPrefix(try.what, "viewer") {
			a = viewer
		}
		tctx, tcancel := context.WithTimeout(context.Background(), time.Second)
		err := try.do(tctx)
		tcancel()
		if err == nil {
			t.Errorf("%s: allowed", try.what)
			continue
		}
		a.refused(t, try.what, try.subject)
	}
	if after := streamMsgs(t, n); after != before {
		t.Fatalf("the stream held %d messages, now %d", before, after)
	}
	if h, _ := n.store.Head(context.Background(), m.Match); h != head {
		t.Fatalf("the record moved from %+v to %+v", head, h)
	}
}

// A viewer may watch and read, never act.
func TestAttackViewerCannotAct(t *testing.T) {
	n := serveWith(t, Config{})
	m := playSome(t, n, 1)
	viewer := attack(t, n, natsbus.RoleViewer)
	c := &natsbus.Client{Conn: viewer.nc, Timeout: time.Second}
	ctx := context.Background()
	var st projector.State
	if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: m.Match}, &st); err != nil {
		t.Fatalf("a viewer reads the state: %v", err)
	}
	head, _ := n.store.Head(ctx, m.Match)
	for _, verb := range []string{api.VerbDeclare, api.VerbRoll, api.VerbCreate, api.VerbBranch, api.VerbSQL} {
		err := c.Call(ctx, verb, api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer("alice")],
			Command: &projector.Command{Type: projector.CmdNextTurn}}, nil)
		if err == nil {
			t.Fatalf("a viewer called %s", verb)
		}
		viewer.refused(t, "viewer calls "+verb, natsbus.APIPrefix+verb)
	}
	if h, _ := n.store.Head(ctx, m.Match); h != head {
		t.Fatalf("a viewer moved the match from %+v to %+v", head, h)
	}
	// Following works, and only the recorder's events come through.
	sub := startFollowing(t, viewer.js, m.Match, &natsbus.SignatureCheck{Key: n.Identity()})
	sub.wantSeqs(t, 1, head.Seq)
}

// following collects what Subscribe delivers.
type following struct {
	got  chan events.Event
	done chan error
}

func startFollowing(t *testing.T, js jetstream.JetStream, match string, check natsbus.Check) *following {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &following{got: make(chan events.Event, 1000), done: make(chan error, 1)}
	go func() {
		f.done <- natsbus.Subscribe(ctx, js, match, store.Head{}, check, func(e events.Event) error {
			f.got <- e
			return nil
		})
	}()
	return f
}

// wantSeqs receives events from..to, in order.
func (f *following) wantSeqs(t *testing.T, from, to uint64) []events.Event {
	t.Helper()
	var out []events.Event
	for seq := from; seq <= to; seq++ {
		select {
		case e := <-f.got:
			if e.Seq != seq {
				t.Fatalf("got event %d, want %d", e.Seq, seq)
			}
			out = append(out, e)
		case err := <-f.done:
			t.Fatalf("the feed stopped before event %d: %v", seq, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d never came", seq)
		}
	}
	return out
}

// stopped waits for the feed to stop with ErrBusDiffers, having delivered
// nothing more.
func (f *following) stopped(t *testing.T, what string) error {
	t.Helper()
	select {
	case e := <-f.got:
		t.Fatalf("%s: delivered event %d (%s)", what, e.Seq, e.Hash)
	case err := <-f.done:
		if !errors.Is(err, natsbus.ErrBusDiffers) {
			t.Fatalf("%s: the feed stopped with %v, want ErrBusDiffers", what, err)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the feed neither stopped nor delivered", what)
	}
	return nil
}

// On a bus without permissions (--insecure-no-auth) anyone can publish
// ahead of the recorder, as the attacker did: a correctly chained
// event 3 with Nats-Msg-Id <match>:3. The relay's expected-sequence
// publish of the real event is refused, loudly: the match is flagged and
// counted, its bus copy no longer fed; no follower — in process, outside
// it, or the web page — delivers the forgery; buscheck names the event;
// the record holds only the recorder's events.
func TestForgeryAheadOfTheRecorderIsDetectedAndNeverShown(t *testing.T) {
	n := serveWith(t, Config{Insecure: true, HTTP: "127.0.0.1:0"})
	m := playSome(t, n, 1)
	head, _ := n.store.Head(context.Background(), m.Match)
	attackerConn := attack(t, n, "")

	// Followers, all caught up at the head before the forgery arrives.
	inJS, _ := jetstream.New(attackerConn.nc) // any connection will do for reading
	inside := startFollowing(t, inJS, m.Match, natsbus.RecordCheck{Store: n.store})
	outside := startFollowing(t, inJS, m.Match, &natsbus.SignatureCheck{Key: n.Identity()})
	inside.wantSeqs(t, 1, head.Seq)
	outside.wantSeqs(t, 1, head.Seq)
	sse := openStream(t, n, m.Match)

	fake := forgery(t, n, m.Match)
	msg, err := natsbus.NewMsg(fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg.Header.Set(jetstream.MsgIDHeader, m.Match+":"+strconv.FormatUint(fake.Seq, 10))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := attackerConn.js.PublishMsg(ctx, msg); err != nil {
		t.Fatalf("publish on an open bus: %v", err)
	}

	// The real next event.
	c := remote(t, n)
	var res api.Result
	if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer("alice")],
		Command: &projector.Command{Type: projector.CmdPhase, Phase: "shooting"}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	d, ok := n.Relay().Differs(m.Match)
	if !ok || !d.Forged || d.Seq != fake.Seq {
		t.Fatalf("the relay's finding: %+v %v; want the forgery at event %d", d, ok, fake.Seq)
	}
	if s := n.Relay().Stats(); s.Refused == 0 || s.Differs == 0 || s.Withheld == 0 {
		t.Errorf("relay stats %+v: want the refusal, the finding and the withheld event counted", s)
	}
	inside.stopped(t, "in-process follower")
	err = outside.stopped(t, "follower outside the recorder")
	if !errors.Is(err, natsbus.ErrNotRecorders) {
		t.Errorf("outside: %v, want ErrNotRecorders", err)
	}
	// The web's hub pauses the match's feed (event: feed-status, state
	// paused) and shows nothing of the forgery.
	body := sse.read(t, "feed paused: the bus copy differs from the record")
	if strings.Contains(body, fake.Hash.String()) || strings.Contains(body, `"seq":`+strconv.FormatUint(fake.Seq, 10)) {
		t.Fatalf("the web stream showed the forgery:\n%s", body)
	}

	var bc api.BusCheckResult
	if err := c.Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: m.Match}, &bc); err != nil {
		t.Fatal(err)
	}
	if bc.Equal || bc.FirstDiffers != fake.Seq || bc.Flagged == "" {
		t.Fatalf("buscheck: %+v", bc)
	}
	rec, err := natsbus.RecordedEvent(ctx, n.store, m.Match, fake.Seq)
	if err != nil || rec.Hash == fake.Hash {
		t.Fatalf("the record's event %d: %+v %v", fake.Seq, rec, err)
	}
}

// Republishing a genuine old message after the duplicate window: refused
// outright on a closed bus; on an open one it lands, followers skip it, and
// the relay notes it and carries on after it.
func TestRepublishAfterTheDuplicateWindow(t *testing.T) {
	for _, insecure := range []bool{false, true} {
		name := "closed"
		if insecure {
			name = "open"
		}
		t.Run(name, func(t *testing.T) {
			n := serveWith(t, Config{Insecure: insecure})
			m := playSome(t, n, 1)
			rec, err := natsbus.RecordedEvent(context.Background(), n.store, m.Match, 2)
			if err != nil {
				t.Fatal(err)
			}
			old, err := natsbus.NewMsg(rec, n.id) // a perfect copy, signature and all
			if err != nil {
				t.Fatal(err)
			}
			a := attack(t, n, natsbus.RoleClient)
			outside := startFollowing(t, a.js, m.Match, &natsbus.SignatureCheck{Key: n.Identity()})
			head, _ := n.store.Head(context.Background(), m.Match)
			outside.wantSeqs(t, 1, head.Seq)
			time.Sleep(natsbus.DuplicateWindow + 200*time.Millisecond)
			before := streamMsgs(t, n)
			if err := a.nc.PublishMsg(old); err != nil {
				t.Fatal(err)
			}
			if !insecure {
				a.refused(t, "republish an old event", natsbus.SubjectPrefix+m.Match)
				if streamMsgs(t, n) != before {
					t.Fatal("the copy was stored")
				}
			}
			_ = a.nc.Flush()
			ctx := context.Background()
			if err := remote(t, n).Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer("alice")],
				Command: &projector.Command{Type: projector.CmdPhase, Phase: "shooting"}}, nil); err != nil {
				t.Fatal(err)
			}
			if err := n.Relay().Drained(ctx); err != nil {
				t.Fatal(err)
			}
			// The follower gets the real next event once, nothing else.
			next := outside.wantSeqs(t, head.Seq+1, head.Seq+1)
			if want, _ := natsbus.RecordedEvent(ctx, n.store, m.Match, head.Seq+1); next[0].Hash != want.Hash {
				t.Fatal("the follower got something else than the record's next event")
			}
			d, flagged := n.Relay().Differs(m.Match)
			if insecure != flagged || d.Forged {
				t.Fatalf("relay finding %+v %v", d, flagged)
			}
		})
	}
}

// sseStream is an open /api/matches/ID/stream response.
type sseStream struct {
	lines chan string
}

func openStream(t *testing.T, n *Node, match string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.HTTPURL()+"/api/matches/"+match+"/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %s", resp.Status)
	}
	s := &sseStream{lines: make(chan string, 1000)}
	go func() {
		defer resp.Body.Close()
		defer close(s.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return s
}

// read returns what the stream sent until a line containing until.
func (s *sseStream) read(t *testing.T, until string) string {
	t.Helper()
	var b strings.Builder
	timeout := time.After(15 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("the stream ended before %q:\n%s", until, b.String())
			}
			b.WriteString(l + "\n")
			if strings.Contains(l, until) {
				return b.String()
			}
		case <-timeout:
			t.Fatalf("no %q on the stream:\n%s", until, b.String())
		}
	}
}
