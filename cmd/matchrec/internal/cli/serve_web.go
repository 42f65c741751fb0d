package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// webFlags are serve's flags for the web pages besides --http and --delay.
type webFlags struct {
	cors, tlsCert, tlsKey string
}

func (f *webFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.cors, "http-cors", "", "the one other origin (e.g. https://overlay.example) allowed to read the HTTP API from a browser; default none")
	fs.StringVar(&f.tlsCert, "http-tls-cert", "", "serve the web pages over HTTPS with this certificate (PEM; with --http-tls-key)")
	fs.StringVar(&f.tlsKey, "http-tls-key", "", "the key of --http-tls-cert (PEM)")
}

func (f *webFlags) check() error {
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return fmt.Errorf("--http-tls-cert and --http-tls-key go together")
	}
	return nil
}

// apply sets f's choices in a node's configuration.
func (f *webFlags) apply(cfg *node.Config) {
	cfg.HTTPCORS, cfg.HTTPTLSCert, cfg.HTTPTLSKey = f.cors, f.tlsCert, f.tlsKey
}

// printURLs tells a person at a terminal where the pages are — the list,
// and for the live matches the newest of them, their live page, overlay
// and judge login — before the logs start. Programs get none of it
// (--json prints the URLs as JSON instead).
func (a *app) printURLs(ctx context.Context, n *node.Node) {
	out, ok := a.stdout.(*os.File)
	if !ok || !isatty.IsTerminal(out.Fd()) || a.json || n.HTTPURL() == "" {
		return
	}
	a.writeURLs(ctx, out, n)
}

// writeURLs writes the addresses printURLs prints.
func (a *app) writeURLs(ctx context.Context, out io.Writer, n *node.Node) {
	base := n.HTTPURL()
	fmt.Fprintf(out, "matchrec serves %s\n  matches:      %s/\n", abs(a.data), base)
	page, err := n.Recorder().ListMatches(ctx, api.MatchesRequest{Status: store.StatusLive, Limit: 3})
	ids := []string{"MATCH"}
	if err == nil && len(page.Matches) > 0 {
		ids = ids[:0]
		for _, m := range page.Matches {
			ids = append(ids, m.ID)
		}
	}
	for _, id := range ids {
		fmt.Fprintf(out, "  live page:    %s/matches/%s\n", base, id)
		fmt.Fprintf(out, "  OBS overlay:  %s/matches/%s?overlay=full   (also bar, cards; any 16:9 size)\n", base, id)
		fmt.Fprintf(out, "  judge login:  %s/matches/%s/judge\n", base, id)
	}
	fmt.Fprintf(out, "  NATS:         %s\n\n", n.URL())
}
