package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/projector"
)

func (a *app) serveCmd() *cobra.Command {
	var listen, natsURL, httpAddr string
	var delay time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the recorder: store, NATS, relay, API and web pages, until interrupted",
		Long: `serve runs the recorder on the data directory until SIGINT or SIGTERM:
the bbolt store (<data>/events.db), an embedded NATS server with JetStream
(<data>/nats) listening on --nats-listen, the relay that publishes every
recorded event on matchrec.events.<match>, and the request/reply API on
matchrec.api.<verb>.

While it runs, <data>/server.json tells other matchrec commands on the same
data directory where to find it; it is removed on exit.

With --nats URL the recorder uses an existing NATS server (JetStream
enabled) instead of starting one.

It also serves the matches to browsers on --http (default
127.0.0.1:8080; "off" for none): a match list, a live board with replay,
and an overlay for streaming software (/matches/ID?overlay=1), beside a
JSON API (docs/http.md). Everything is built in; the pages load nothing
from the network. --delay holds every event back from the public pages
until its recording time plus the delay, so players cannot watch the
stream for hidden information; the judge's view
(/matches/ID#judge=JUDGE_TOKEN) has no delay.`,
		Example: `  matchrec serve
  matchrec --data /var/lib/matchrec serve --nats-listen 0.0.0.0:4222
  matchrec serve --nats nats://nats.example:4222
  matchrec serve --http 0.0.0.0:8080 --delay 30s   # a delayed broadcast

  # from another terminal, with the stock NATS CLI:
  nats req matchrec.api.matches ''
  nats sub 'matchrec.events.>'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if delay < 0 {
				return usageErr(fmt.Errorf("--delay %s: a delay cannot be negative", delay))
			}
			if httpAddr == "off" {
				httpAddr = ""
			}
			n, err := node.Open(ctx, node.Config{
				DataDir: a.data, NATSURL: natsURL, Listen: listen, WriteServerFile: true, Log: a.log,
				HTTP: httpAddr, Delay: delay,
			})
			if err != nil {
				if errors.Is(err, node.ErrLocked) {
					return &cliError{exit: ExitUsage, code: projector.CodeLocked, msg: fmt.Sprintf(
						"the data directory %s is in use by another matchrec process", abs(a.data))}
				}
				return unavailable("cannot start: %v", err)
			}
			a.log.Info().Str("nats", n.URL()).Str("http", n.HTTPURL()).Dur("delay", delay).Str("data", abs(a.data)).
				Msg("matchrec serving; stop with Ctrl-C")
			if a.json {
				_ = a.printJSON(map[string]string{"nats_url": n.URL(), "http_url": n.HTTPURL(), "data": abs(a.data)})
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
	cmd.Flags().StringVar(&natsURL, "nats", "", "use this NATS server (JetStream enabled) instead of the embedded one")
	cmd.Flags().StringVar(&httpAddr, "http", web.DefaultAddr, `HOST:PORT of the web pages and HTTP API ("off": none; port 0: any free port)`)
	cmd.Flags().DurationVar(&delay, "delay", 0, "broadcast delay of the public web pages, e.g. 30s (the judge's view has none)")
	return cmd
}
