package node

import (
	"context"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/store/natsbus"
)

// startWeb starts the web pages and HTTP API (package web) when
// Config.HTTP is set. It runs beside the NATS API, on the same recorder,
// and follows matches on the same bus.
func (n *Node) startWeb(ctx context.Context) error {
	if n.cfg.HTTP == "" {
		return nil
	}
	// The pages only watch: they follow the bus as a viewer.
	connect := func(opts ...nats.Option) (*nats.Conn, error) { return n.ConnectAs(natsbus.RoleViewer, opts...) }
	s, err := web.Start(ctx, web.Config{
		Addr: n.cfg.HTTP, Delay: n.cfg.Delay, Recorder: n.rec, Connect: connect, Log: n.cfg.Log,
		CORS: n.cfg.HTTPCORS, TLSCert: n.cfg.HTTPTLSCert, TLSKey: n.cfg.HTTPTLSKey, Tuning: n.cfg.WebTuning,
		Checkpoint: n.cosigned,
	})
	if err != nil {
		return err
	}
	n.web = s
	return nil
}

// stopWeb ends the web server's streams and stops it.
func (n *Node) stopWeb() {
	if n.web == nil {
		return
	}
	if err := n.web.Close(); err != nil {
		n.log.Warn().Err(err).Msg("stopping the web server")
	}
}

// WebStats counts the web server's open hubs and streams (zero without
// Config.HTTP).
func (n *Node) WebStats() web.Stats {
	if n.web == nil {
		return web.Stats{}
	}
	return n.web.Stats()
}

// HTTPURL is the base URL of the web pages ("" without Config.HTTP).
func (n *Node) HTTPURL() string {
	if n.web == nil {
		return ""
	}
	return n.web.URL()
}
