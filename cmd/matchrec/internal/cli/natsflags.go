package cli

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/store/natsbus"
)

// natsFlags are how a command logs in to a NATS server it does not run:
// `--server URL` for every command, `serve --nats URL` for the recorder
// itself. Without them a command on the data directory of a running
// `serve` uses the client credentials server.json names.
type natsFlags struct {
	creds, nkey, user, password string
	ca, cert, key               string
	inboxPrefix                 string
}

// passwordEnv holds the password instead of --nats-password, which other
// users of the machine can read in the process list.
const passwordEnv = "MATCHREC_NATS_PASSWORD"

func (f *natsFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&f.creds, "nats-creds", "", "NATS credentials file (user JWT and seed), as 'nats --creds' reads")
	pf.StringVar(&f.nkey, "nats-nkey", "", "NATS nkey seed file, as 'nats --nkey' reads")
	pf.StringVar(&f.user, "nats-user", "", "NATS user name (password in $"+passwordEnv+" or --nats-password)")
	pf.StringVar(&f.password, "nats-password", "", "NATS password (prefer $"+passwordEnv+": flags show in the process list)")
	pf.StringVar(&f.ca, "nats-ca", "", "CA certificate (PEM) that verifies the NATS server's TLS certificate")
	pf.StringVar(&f.cert, "nats-cert", "", "client certificate (PEM) for a NATS server that verifies clients")
	pf.StringVar(&f.key, "nats-key", "", "key of --nats-cert")
	pf.StringVar(&f.inboxPrefix, "nats-inbox-prefix", "", "reply subject prefix the server lets this user subscribe to (default "+natsbus.InboxPrefix(natsbus.RoleClient)+" for commands)")
}

// given reports whether any login flag was set.
func (f *natsFlags) given() bool {
	return f.creds != "" || f.nkey != "" || f.user != "" || f.ca != "" || f.cert != "" || f.inboxPrefix != ""
}

// credentials are the flags as natsbus.Credentials, for role's inbox.
func (f *natsFlags) credentials(role natsbus.Role) natsbus.Credentials {
	pw := f.password
	if pw == "" {
		pw = os.Getenv(passwordEnv)
	}
	c := natsbus.Credentials{
		CredsFile: f.creds, NkeyFile: f.nkey, User: f.user, Password: pw,
		CAFile: f.ca, CertFile: f.cert, KeyFile: f.key, InboxPrefix: f.inboxPrefix,
	}
	if c.InboxPrefix == "" {
		c.InboxPrefix = natsbus.InboxPrefix(role)
	}
	return c
}

// clientCredentials are what a command logs in with: the flags when
// given, else what server.json says (si may be nil), else nothing but the
// client's inbox prefix.
func (a *app) clientCredentials(si *node.ServerInfo) natsbus.Credentials {
	if !a.natsAuth.given() && si != nil && si.Auth != "" {
		return si.ClientCredentials()
	}
	return a.natsAuth.credentials(natsbus.RoleClient)
}

// apiLogin is how `serve --nats` logs its API in as a user of its own
// (docs/security.md: the api user, which may publish only into the
// callers' inboxes). TLS comes from the recorder's own flags.
type apiLogin struct{ creds, nkey, user string }

// apiPasswordEnv holds the API user's password.
const apiPasswordEnv = "MATCHREC_NATS_API_PASSWORD"

func (f *apiLogin) register(pf *pflag.FlagSet) {
	pf.StringVar(&f.creds, "nats-api-creds", "", "with --nats: credentials file of the API's own user (docs/security.md)")
	pf.StringVar(&f.nkey, "nats-api-nkey", "", "with --nats: nkey seed file of the API's own user")
	pf.StringVar(&f.user, "nats-api-user", "", "with --nats: the API's own user name (password in $"+apiPasswordEnv+")")
}

func (f *apiLogin) given() bool { return f.creds != "" || f.nkey != "" || f.user != "" }

// credentials are the API user's, with the TLS of the recorder's flags;
// nil when none was given.
func (f *apiLogin) credentials(rec natsFlags) *natsbus.Credentials {
	if !f.given() {
		return nil
	}
	c := rec.credentials(natsbus.RoleAPI)
	c.CredsFile, c.NkeyFile, c.User, c.Password = f.creds, f.nkey, f.user, ""
	if f.user != "" {
		c.Password = os.Getenv(apiPasswordEnv)
	}
	c.InboxPrefix = natsbus.InboxPrefix(natsbus.RoleAPI)
	return &c
}
