package cli

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/witness"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/natsbus"
)

func (a *app) serveCmd() *cobra.Command {
	var listen, natsURL, httpAddr, tlsCert, tlsKey string
	var delay time.Duration
	var insecure, cluster, migrate, inOrder bool
	var venue string
	var venues []string
	var replicas int
	var wf webFlags
	var witnesses []string
	var api apiLogin
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the recorder: store, NATS, relay, API and web pages, until interrupted",
		Long: `serve runs the recorder on the data directory until SIGINT or SIGTERM:
the bbolt store (<data>/events.db), an embedded NATS server with JetStream
(<data>/nats) listening on --nats-listen, the relay that publishes every
recorded event on matchrec.events.<match>, and the request/reply API on
matchrec.api.<verb>.

The embedded server is closed: only its own users connect, each with what
its role may do (docs/security.md). Their credentials are made on first
start in the data directory (mode 0600): <data>/client.creds for the CLI,
scripts and 'nats' CLI users (API requests, reading events; never
publishing events or touching the stream), <data>/viewer.creds for
watching only. A client must use its own reply subjects:

  nats --creds <data>/client.creds --inbox-prefix _INBOX_client req matchrec.api.matches ''

--insecure-no-auth opens the server to anyone, for anything (forging
events, deleting the stream): experiments only. --tls-cert and --tls-key
make the port take TLS only; listening beyond this machine without them
sends the credentials' signatures and every request in clear, and serve
warns.

Every recorded event is an entry of the recorder's transparency log
(docs/transparency.md), signed into a checkpoint once per commit and served
under /tlog/ on the web server (C2SP tlog-tiles); with --witness URL=KEY
each new checkpoint is sent to a witness ('matchrec witness', another
party's process) and served with its cosignature.

While it runs, <data>/server.json tells other matchrec commands on the same
data directory where to find it, and with which credentials; it is removed
on exit.

With --nats URL the recorder uses an existing NATS server (JetStream
enabled) instead of starting one, logging in with --nats-creds,
--nats-nkey or --nats-user (TLS: --nats-ca, --nats-cert, --nats-key); its
API logs in as a user of its own with --nats-api-creds, --nats-api-nkey
or --nats-api-user (password in $MATCHREC_NATS_API_PASSWORD), which may
publish only into the callers' inboxes; the server's configuration for
matchrec is in docs/security.md.

With --nats URL[,URL...] --cluster the recorder is one of a cluster's
(docs/cluster.md): any number of recorders share the NATS cluster's
MATCHREC stream, which is then the truth (created with --replicas
replicas, default 3; an existing stream with fewer is scaled up). A
command may reach any recorder; each appends through JetStream with the
match's expected last sequence, so two recorders can never fork a match,
and acknowledges only once a quorum and its own store have the events.
Every recorder keeps a full copy of every match, so reads are local.
--migrate moves a single-machine data directory's matches into the
cluster first (its store is published whole, then the stream is handed to
the cluster). A single-machine recorder refuses a cluster's stream, a
cluster recorder a single one's, and a second single-machine recorder
another's: nobody splits a match's truth.

It also serves the matches to browsers on --http (default
127.0.0.1:8080; "off" for none): a match list, a live board with replay,
and an overlay for streaming software (/matches/ID?overlay=full, bar or
cards), beside a JSON API (docs/http.md). Everything is built in; the
pages load nothing from the network. --delay holds every event back from
the public pages until its recording time plus the delay, so players
cannot watch the stream for hidden information; the judge logs in on
/matches/ID/judge (a form: the token never goes in an address) and
watches without the delay. --http-cors lets one other origin read the
API; --http-tls-cert/--http-tls-key serve HTTPS. At a terminal, serve
first prints the pages' addresses.`,
		Example: `  matchrec serve
  matchrec --data /var/lib/matchrec serve --nats-listen 0.0.0.0:4222 --tls-cert nats.crt --tls-key nats.key
  matchrec serve --nats nats://nats.example:4222 --nats-creds recorder.creds
  matchrec serve --cluster --nats nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-creds recorder.creds
  matchrec serve --venue north --nats nats://127.0.0.1:4222 --nats-user recorder
  matchrec serve --cluster --venues north,south --nats nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-user recorder
  matchrec serve --http 0.0.0.0:8080 --delay 30s   # a delayed broadcast
  matchrec serve --http-cors https://overlay.example

  # from another terminal, with the stock NATS CLI:
  nats --creds matchrec-data/client.creds --inbox-prefix _INBOX_client req matchrec.api.matches ''
  nats --creds matchrec-data/viewer.creds sub 'matchrec.events.>'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if delay < 0 {
				return usageErr(fmt.Errorf("--delay %s: a delay cannot be negative", delay))
			}
			if (tlsCert == "") != (tlsKey == "") {
				return usageErr(errors.New("--tls-cert and --tls-key go together"))
			}
			if natsURL != "" && (insecure || tlsCert != "") {
				return usageErr(errors.New("--insecure-no-auth and --tls-cert are for the embedded server; with --nats the server's own configuration decides"))
			}
			if (cluster || migrate || replicas != 0) && natsURL == "" {
				return usageErr(errors.New("--cluster, --migrate and --replicas need the cluster's servers: --nats URL[,URL...]"))
			}
			if (migrate || replicas != 0) && !cluster {
				return usageErr(errors.New("--migrate and --replicas go with --cluster"))
			}
			if venue != "" && natsURL == "" {
				return usageErr(errors.New("--venue needs the venue's leaf node: --nats URL"))
			}
			if len(venues) > 0 && !cluster {
				return usageErr(errors.New("--venues is a hub's: it goes with --cluster"))
			}
			for _, v := range append([]string{venue}, venues...) {
				if err := natsbus.CheckVenue(v); v != "" && err != nil {
					return usageErr(err)
				}
			}
			if replicas < 0 || replicas > 5 {
				return usageErr(fmt.Errorf("--replicas %d: JetStream keeps 1 to 5", replicas))
			}
			if httpAddr == "off" {
				httpAddr = ""
			}
			if err := wf.check(); err != nil {
				return usageErr(err)
			}
			if natsURL == "" {
				a.warnOpen(listen, insecure, tlsCert != "")
			}
			cfg := node.Config{
				DataDir: a.data, NATSURL: natsURL, NATSAuth: a.natsAuth.credentials(natsbus.RoleRecorder),
				Listen: listen, Insecure: insecure, TLSCert: tlsCert, TLSKey: tlsKey,
				WriteServerFile: true, Log: a.log, HTTP: httpAddr, Delay: delay,
				Cluster: cluster, Replicas: replicas, Migrate: migrate, NATSInOrder: inOrder,
				Venue: venue, Venues: venues,
				NATSAPIAuth: api.credentials(a.natsAuth),
			}
			if natsURL == "" && api.given() {
				return usageErr(errors.New("--nats-api-creds, --nats-api-nkey and --nats-api-user are for a server matchrec does not run (--nats)"))
			}
			wf.apply(&cfg)
			for _, w := range witnesses {
				ep, err := witness.ParseEndpoint(w)
				if err != nil {
					return usageErr(fmt.Errorf("--witness: %w", err))
				}
				cfg.Witnesses = append(cfg.Witnesses, ep)
			}
			n, err := node.Open(ctx, cfg)
			if err != nil {
				if errors.Is(err, node.ErrLocked) {
					return &cliError{exit: ExitUsage, code: projector.CodeLocked, msg: fmt.Sprintf(
						"the data directory %s is in use by another matchrec process", abs(a.data))}
				}
				return unavailable("cannot start: %v", err)
			}
			a.printURLs(ctx, n)
			a.log.Info().Str("nats", n.URL()).Str("http", n.HTTPURL()).Dur("delay", delay).Str("data", abs(a.data)).
				Str("auth", n.Auth()).Str("identity", hex.EncodeToString(n.Identity())).Msg("matchrec serving; stop with Ctrl-C")
			client := n.CredsPath(natsbus.RoleClient)
			if client != "" && !a.json {
				fmt.Fprintf(a.stderr, "clients log in with %s, viewers with %s:\n  nats --server %s --creds %s --inbox-prefix %s req matchrec.api.matches ''\n",
					client, n.CredsPath(natsbus.RoleViewer), n.URL(), client, natsbus.InboxPrefix(natsbus.RoleClient))
			}
			if a.json {
				_ = a.printJSON(map[string]string{
					"nats_url": n.URL(), "http_url": n.HTTPURL(), "data": abs(a.data), "auth": n.Auth(),
					"client_creds": client, "viewer_creds": n.CredsPath(natsbus.RoleViewer), "identity": hex.EncodeToString(n.Identity()),
				})
			}
			<-ctx.Done()
			a.log.Info().Msg("stopping")
			if err := n.Close(); err != nil {
				return unavailable("shutdown: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "nats-listen", node.DefaultListen, "HOST:PORT the embedded NATS server listens on (port 0: any free port)")
	cmd.Flags().StringVar(&natsURL, "nats", "", "use this NATS server (JetStream enabled; URL[,URL...]) instead of the embedded one; log in with --nats-creds/--nats-nkey/--nats-user")
	cmd.Flags().BoolVar(&cluster, "cluster", false, "be one of a cluster's recorders on --nats (docs/cluster.md)")
	cmd.Flags().StringVar(&venue, "venue", "", "record for venue NAME on its leaf node (--nats): match ids NAME-..., the venue's JetStream domain (docs/cluster.md, \"Venues\")")
	cmd.Flags().StringSliceVar(&venues, "venues", nil, "with --cluster, a league's hub: archive these venues' streams (NAME,...) and serve their matches read-only")
	cmd.Flags().BoolVar(&inOrder, "nats-in-order", false, "try the --nats servers in the order given (give each recorder its own node first) instead of a random order")
	cmd.Flags().IntVar(&replicas, "replicas", 0, "replicas of the cluster's stream and buckets (default 3)")
	cmd.Flags().BoolVar(&migrate, "migrate", false, "with --cluster: move this data directory's single-machine matches into the cluster first")
	cmd.Flags().BoolVar(&insecure, "insecure-no-auth", false, "DANGER: no users, no permissions: anyone who reaches the port may forge events or delete the stream")
	cmd.Flags().StringVar(&tlsCert, "tls-cert", "", "TLS certificate (PEM) of the embedded server's port (with --tls-key)")
	cmd.Flags().StringVar(&tlsKey, "tls-key", "", "TLS key (PEM) of --tls-cert")
	cmd.Flags().StringVar(&httpAddr, "http", web.DefaultAddr, `HOST:PORT of the web pages and HTTP API ("off": none; port 0: any free port)`)
	cmd.Flags().DurationVar(&delay, "delay", 0, "broadcast delay of the public web pages, e.g. 30s (the judge's view has none)")
	wf.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&witnesses, "witness", nil, "a witness that co-signs the transparency log's checkpoints: URL=KEY (its verifier key, as 'matchrec witness' prints it); repeatable")
	api.register(cmd.Flags())
	return cmd
}

// warnOpen warns loudly about an embedded server others can abuse.
func (a *app) warnOpen(listen string, insecure, tls bool) {
	if insecure {
		a.log.Warn().Str("listen", listen).Msg("--insecure-no-auth: the NATS server has NO users and NO permissions: " +
			"anyone who reaches it can forge events, answer API requests in the recorder's place, read every token and delete the stream")
		fmt.Fprintln(a.stderr, "WARNING: --insecure-no-auth: anyone who reaches "+listen+" can forge events, steal tokens and delete the stream")
	}
	if !tls && !node.IsLoopback(listen) {
		a.log.Warn().Str("listen", listen).Msg("NATS listens beyond this machine without TLS: API requests, their tokens and the replies cross the network in clear; use --tls-cert/--tls-key")
		fmt.Fprintln(a.stderr, "WARNING: "+listen+" is reachable from the network without TLS: tokens cross it in clear (use --tls-cert/--tls-key)")
	}
}
