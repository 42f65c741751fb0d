package node

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const securityDoc = "../../../../docs/security.md"

// docConfig is the ```conf block of docs/security.md, as people copy it.
func docConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```conf\n")
	conf, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("%s has no ```conf block", securityDoc)
	}
	return conf
}

// standalone starts a nats-server from opts (the nats-server module, in
// process, listening on TCP as a separate server would) and stops it at
// cleanup.
func standalone(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	opts.NoSigs, opts.NoLog = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}

// docServer starts a nats-server configured by docs/security.md's block:
// parsed by server.ProcessConfigFile, with only the port (free) and the
// store directory (a temp dir) changed.
func docServer(t *testing.T) (*server.Server, *server.Options, map[natsbus.Role]string) {
	t.Helper()
	pw := map[natsbus.Role]string{}
	for _, r := range natsbus.Roles {
		pw[r] = "pw-" + string(r) + "-" + t.Name()
		t.Setenv("MATCHREC_"+strings.ToUpper(string(r))+"_PASSWORD", pw[r])
	}
	path := filepath.Join(t.TempDir(), "nats-server.conf")
	if err := os.WriteFile(path, []byte(docConfig(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("docs/security.md's configuration does not parse: %v", err)
	}
	opts.Port, opts.StoreDir = -1, t.TempDir()
	return standalone(t, opts), opts, pw
}

// docAPILogin is the API's own user of docs/security.md's configuration.
func docAPILogin(pw map[natsbus.Role]string) *natsbus.Credentials {
	return &natsbus.Credentials{User: string(natsbus.RoleAPI), Password: pw[natsbus.RoleAPI], InboxPrefix: natsbus.InboxPrefix(natsbus.RoleAPI)}
}

// The configuration grants each role exactly RolePermissions.
func TestDocConfigGrantsTheRolesPermissions(t *testing.T) {
	_, opts, _ := docServer(t)
	found := 0
	for _, u := range opts.Users {
		p := natsbus.RolePermissions(natsbus.Role(u.Username))
		if !p.Equal(u.Permissions) {
			t.Errorf("user %s: the configuration's permissions are not RolePermissions(%s):\n%+v\n%+v", u.Username, u.Username, u.Permissions, p)
		}
		if u.Account == nil || u.Account.Name != natsbus.AccountName {
			t.Errorf("user %s is not in account %s", u.Username, natsbus.AccountName)
		}
		found++
	}
	if found != len(natsbus.Roles) {
		t.Fatalf("%d users in the configuration, want %d", found, len(natsbus.Roles))
	}
}

// The recorder works on a stand-alone server configured from the docs;
// the client plays and follows; nobody can forge, rewrite or sniff.
func TestDocConfigRecorderWorksAndAttacksFail(t *testing.T) {
	srv, _, pw := docServer(t)
	url := srv.ClientURL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: url,
		NATSAuth:    natsbus.Credentials{User: "recorder", Password: pw[natsbus.RoleRecorder], InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)},
		NATSAPIAuth: docAPILogin(pw)})
	if err != nil {
		t.Fatalf("the recorder on the documented server: %v", err)
	}
	defer n.Close()

	login := func(r natsbus.Role) *attacker {
		a := &attacker{errs: make(chan error, 100)}
		nc, err := nats.Connect(url, nats.UserInfo(string(r), pw[r]), nats.CustomInboxPrefix(natsbus.InboxPrefix(r)),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { a.errs <- err }))
		if err != nil {
			t.Fatalf("log in as %s: %v", r, err)
		}
		t.Cleanup(nc.Close)
		a.nc = nc
		a.js, _ = jetstream.New(nc)
		return a
	}
	client, viewer := login(natsbus.RoleClient), login(natsbus.RoleViewer)
	c := &natsbus.Client{Conn: client.nc, Timeout: 10 * time.Second}
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	m, _ := play(t, c, sc, 3)
	if err := n.Relay().Drained(ctx); err != nil {
		t.Fatal(err)
	}
	head, _ := n.store.Head(ctx, m.Match)

	// The viewer follows with the key it asks the recorder for.
	vc := &natsbus.Client{Conn: viewer.nc, Timeout: 5 * time.Second}
	var ping api.PingResult
	if err := vc.Call(ctx, api.VerbPing, nil, &ping); err != nil {
		t.Fatal(err)
	}
	key, err := auth.ParsePublicKey(ping.Recorder)
	if err != nil || !key.Equal(n.Identity()) {
		t.Fatalf("the recorder's key %q: %v", ping.Recorder, err)
	}
	startFollowing(t, viewer.js, m.Match, &natsbus.SignatureCheck{Key: key}).wantSeqs(t, 1, head.Seq)

	// Without credentials: refused.
	if nc, err := nats.Connect(url); err == nil {
		nc.Close()
		t.Fatal("connected to the documented server without credentials")
	}
	// Sniffing, forging, rewriting, acting as a viewer: refused.
	if _, err := client.nc.SubscribeSync("matchrec.api.>"); err != nil {
		t.Fatal(err)
	}
	client.refused(t, "client sniffs requests", "matchrec.api.>")
	if _, err := client.nc.QueueSubscribe("matchrec.api.>", natsbus.APIQueue, func(*nats.Msg) {}); err != nil {
		t.Fatal(err)
	}
	client.refused(t, "client joins the queue group", "matchrec.api.>")
	if _, err := viewer.nc.SubscribeSync("_INBOX_client.>"); err != nil {
		t.Fatal(err)
	}
	viewer.refused(t, "viewer sniffs the client's replies", "_INBOX_client.>")
	forged, _ := natsbus.NewMsg(forgery(t, n, m.Match), nil)
	_ = client.nc.PublishMsg(forged)
	client.refused(t, "client forges an event", natsbus.SubjectPrefix+m.Match)
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	if err := client.js.DeleteStream(dctx, natsbus.StreamName); err == nil {
		t.Fatal("the client deleted the stream")
	}
	dcancel()
	client.refused(t, "client deletes the stream", "$JS.API.STREAM.DELETE.")
	vc.Timeout = time.Second // a refused request is never answered
	if err := vc.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: m.Tokens[api.RolePlayer("alice")],
		Command: &projector.Command{Type: projector.CmdNextTurn}}, nil); err == nil {
		t.Fatal("the viewer declared")
	}
	viewer.refused(t, "viewer declares", "matchrec.api.declare")

	if h, _ := n.store.Head(ctx, m.Match); h != head {
		t.Fatalf("the record moved from %+v to %+v", head, h)
	}
	var bc api.BusCheckResult
	if err := c.Call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: m.Match}, &bc); err != nil || !bc.Equal {
		t.Fatalf("buscheck: %+v %v", bc, err)
	}
	// Answers aimed anywhere but an inbox: refused by matchrec, and by
	// the server for the API user (issue 22).
	replyAttacks(t, n, login(natsbus.RoleRecorder).nc, viewer, client, m)
}
