package natsbus

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
)

// Reconnect is how a connection waits between reconnect attempts: the
// wait doubles from Wait to MaxWait, each jittered by up to ±25% so many
// clients of one server do not come back in lockstep. There is no limit on
// attempts: an outage of any length ends when the server is back.
type Reconnect struct {
	Wait, MaxWait time.Duration // defaults 250ms and 5s
	// Ping is how often the client pings its server (default
	// DefaultPing); DefaultMaxPings unanswered pings in a row mark the
	// connection stale, and it reconnects to another server.
	Ping time.Duration
}

// A silent server — hung, stopped with SIGSTOP, cut off by a network
// that drops packets without a reset — keeps its TCP connections open,
// so only the client can notice it: by its pings going unanswered, and
// by writes that cannot be flushed. nats.go's defaults (a ping every 2
// minutes, two outstanding; a flush timeout of a minute) would freeze
// every request on that server for minutes; these notice it within a few
// seconds, and the connection moves to another node of the cluster.
const (
	DefaultPing     = time.Second
	DefaultMaxPings = 3
	// FlushTimeout bounds a write to the server's socket.
	FlushTimeout = 2 * time.Second
)

// ConnectOptions are the options every matchrec connection uses: a name,
// reconnecting forever with backoff (nats.go's default gives up after 60
// attempts, about two minutes, and leaves the connection closed for good),
// and each change of state logged. Callers add credentials, and
// RetryOnFailedConnect where a server down at start is not an error.
func ConnectOptions(name string, log zerolog.Logger, rc Reconnect) []nats.Option {
	if rc.Wait <= 0 {
		rc.Wait = 250 * time.Millisecond
	}
	if rc.MaxWait < rc.Wait {
		rc.MaxWait = max(5*time.Second, rc.Wait)
	}
	if rc.Ping <= 0 {
		rc.Ping = DefaultPing
	}
	log = log.With().Str("component", "nats").Str("conn", name).Logger()
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.PingInterval(rc.Ping),
		nats.MaxPingsOutstanding(DefaultMaxPings),
		nats.FlusherTimeout(FlushTimeout),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			d := rc.Wait
			for i := 1; i < attempts && d < rc.MaxWait; i++ {
				d *= 2
			}
			d = min(d, rc.MaxWait)
			return d + time.Duration((rand.Float64()-0.5)*0.5*float64(d))
		}),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if err == nil || nc.IsClosed() {
				return // closed on purpose (the ClosedHandler says so)
			}
			log.Warn().Err(err).Msg("disconnected from NATS; reconnecting")
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info().Str("url", nc.ConnectedUrlRedacted()).Msg("reconnected to NATS")
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := nc.LastError(); err != nil {
				log.Warn().Err(err).Msg("NATS connection closed")
				return
			}
			log.Debug().Msg("NATS connection closed")
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			ev := log.Warn().Err(err)
			if sub != nil {
				ev = ev.Str("subject", sub.Subject)
			}
			ev.Msg("NATS error")
		}),
	}
}

// Credentials say how to log in to a NATS server that matchrec does not
// run (`serve --nats`, `--server`): at most one of CredsFile (a user JWT
// and its seed, as `nats --creds` reads), NkeyFile (an nkey seed, as
// `nats --nkey` reads) and User/Password; optionally TLS; and the inbox
// prefix the server's permissions give this user.
type Credentials struct {
	CredsFile      string
	NkeyFile       string
	User, Password string
	// CAFile verifies the server's certificate (default: the system's
	// roots, when the URL is tls:// or the server requires TLS);
	// CertFile and KeyFile are this client's certificate, for servers
	// that verify clients.
	CAFile, CertFile, KeyFile string
	InboxPrefix               string
}

// ErrCredentials: a Credentials combination that cannot work.
var ErrCredentials = errors.New("bad NATS credentials")

// Options turns c into connection options.
func (c Credentials) Options() ([]nats.Option, error) {
	n := 0
	for _, set := range []bool{c.CredsFile != "", c.NkeyFile != "", c.User != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, fmt.Errorf("%w: give one of a creds file, an nkey file or a user", ErrCredentials)
	}
	if c.Password != "" && c.User == "" {
		return nil, fmt.Errorf("%w: a password needs a user", ErrCredentials)
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return nil, fmt.Errorf("%w: a client certificate needs its key, and a key its certificate", ErrCredentials)
	}
	var opts []nats.Option
	switch {
	case c.CredsFile != "":
		if _, err := os.Stat(c.CredsFile); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCredentials, err)
		}
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	case c.NkeyFile != "":
		o, err := nats.NkeyOptionFromSeed(c.NkeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCredentials, c.NkeyFile, err)
		}
		opts = append(opts, o)
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.CAFile != "" || c.CertFile != "" {
		cfg, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Secure(cfg))
	}
	if c.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(c.InboxPrefix))
	}
	return opts, nil
}

func (c Credentials) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCredentials, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrCredentials, c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCredentials, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// ServerTLS loads a certificate and key for the embedded server's client
// port (`serve --tls-cert/--tls-key`).
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("natsbus: TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
