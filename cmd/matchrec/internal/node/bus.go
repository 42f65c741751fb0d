package node

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/store/natsbus"
)

// startNATS starts the embedded server (closed by its own users unless
// Config.Insecure, with TLS when asked), or notes the external one.
func (n *Node) startNATS() error {
	cfg := n.cfg
	if cfg.NATSURL != "" {
		n.url = cfg.NATSURL
		return nil
	}
	eopts := natsbus.EmbeddedOptions{DontListen: cfg.InProcess, ServerName: "matchrec", Logger: cfg.Log}
	if !cfg.Insecure {
		auth, err := natsbus.OpenAuth(cfg.DataDir)
		if err != nil {
			return err
		}
		n.auth, eopts.Auth = auth, auth
	}
	if !cfg.InProcess {
		var err error
		if eopts.Host, eopts.Port, err = splitListen(cfg.Listen); err != nil {
			return err
		}
		if cfg.TLSCert != "" || cfg.TLSKey != "" {
			if eopts.TLS, err = natsbus.ServerTLS(cfg.TLSCert, cfg.TLSKey); err != nil {
				return err
			}
		}
	}
	emb, err := natsbus.StartEmbedded(filepath.Join(cfg.DataDir, NATSDir), eopts)
	if err != nil {
		return err
	}
	n.emb, n.url = emb, emb.ClientURL() // tls:// when the port takes TLS
	return nil
}

// Auth says how clients log in: "jwt" (the embedded server's own users,
// their credentials in the data directory), "none" (an open embedded
// server), "external" (a server matchrec does not run).
func (n *Node) Auth() string {
	switch {
	case n.emb == nil:
		return "external"
	case n.auth == nil:
		return "none"
	}
	return "jwt"
}

// CredsPath is the .creds file of role on the embedded server ("" when
// the server is open or external).
func (n *Node) CredsPath(role natsbus.Role) string {
	if n.auth == nil {
		return ""
	}
	return n.auth.CredsPath(role)
}

// serverInfo is what server.json tells other commands.
func (n *Node) serverInfo() ServerInfo {
	si := ServerInfo{NATSURL: n.url, HTTPURL: n.HTTPURL(), PID: os.Getpid(), DataDir: n.cfg.DataDir, Auth: n.Auth()}
	if n.auth != nil {
		si.ClientCreds = AbsDir(n.auth.CredsPath(natsbus.RoleClient))
		si.ViewerCreds = AbsDir(n.auth.CredsPath(natsbus.RoleViewer))
		si.InboxPrefix = natsbus.InboxPrefix(natsbus.RoleClient)
	}
	if n.cfg.TLSCert != "" {
		// A self-signed certificate is its own authority; one signed by a
		// CA verifies against itself as well.
		si.TLSCA = AbsDir(n.cfg.TLSCert)
	}
	return si
}

// privateDir creates dir with mode 0700, or narrows an existing one to it.
func privateDir(dir string, log zerolog.Logger) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if st.Mode().Perm()&^dirMode != 0 {
		if err := os.Chmod(dir, dirMode); err != nil {
			return fmt.Errorf("data directory %s is mode %v and cannot be made 0700: %w", dir, st.Mode().Perm(), err)
		}
		log.Info().Str("dir", dir).Str("was", st.Mode().Perm().String()).Msg("data directory made private (0700)")
	}
	return nil
}

// IsLoopback reports whether a HOST:PORT listen address is reachable from
// this machine only.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// connectAPI opens the API's connection (Node.apiNC) and says which reply
// subjects it answers on. On the embedded closed server the API is a user
// of its own (natsbus.RoleAPI): the server lets it publish into the
// callers' inboxes only, and the API answers a request only in the inbox
// of a role that may make it (natsbus.RoleReply). On an external server
// it logs in as Config.NATSAPIAuth's user when given, else it shares the
// recorder's connection; replies go to inbox subjects only
// (natsbus.InboxReply), as the server's users may have inboxes of their
// own. On an open server it shares the recorder's connection.
func (n *Node) connectAPI() (func(verb, reply string) bool, error) {
	opts := append(natsbus.ConnectOptions("matchrec-api", n.cfg.Log, n.cfg.Reconnect), nats.Timeout(5*time.Second))
	switch {
	case n.auth != nil:
		nc, err := n.emb.Connect(append(n.auth.ConnectOptions(natsbus.RoleAPI), opts...)...)
		if err != nil {
			return nil, err
		}
		n.apiNC = nc
		return natsbus.RoleReply, nil
	case n.emb == nil && n.cfg.NATSAPIAuth != nil:
		creds, err := n.cfg.NATSAPIAuth.Options()
		if err != nil {
			return nil, err
		}
		nc, err := nats.Connect(n.url, append(creds, opts...)...)
		if err != nil {
			return nil, err
		}
		n.apiNC = nc
		return natsbus.InboxReply, nil
	case n.emb == nil:
		n.log.Warn().Msg("the API is served on the recorder's own NATS user, which may publish on the stream: " +
			"only matchrec's check keeps its replies in inbox subjects; give the API a user of its own (serve --nats-api-*, docs/security.md)")
	}
	n.apiNC = n.nc
	return natsbus.InboxReply, nil
}
