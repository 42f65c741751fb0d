package natsbus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Files OpenAuth keeps in its directory. Keys and credentials are secrets:
// mode 0600.
const (
	// KeysFile holds every seed: the operator's, the accounts', the users'.
	KeysFile = "nats-keys.json"
	// CredsSuffix ends a role's credentials file (<role>.creds): the
	// user's JWT and seed, as `nats --creds` reads them.
	CredsSuffix = ".creds"
)

// credsRoles are the roles whose .creds files are written for people and
// other programs; the recorder's own credentials never leave its process.
var credsRoles = []Role{RoleClient, RoleViewer}

// AccountName is the name of the account matchrec's users share on the
// embedded server (the stand-alone configuration uses it too).
const AccountName = "MATCHREC"

// Auth is the embedded server's authentication, all of it NATS' own
// decentralised JWT model: an operator, a system account, the MATCHREC
// account (JetStream enabled) and one user per Role, its permissions
// signed into its JWT (RolePermissions). Nothing else may connect.
type Auth struct {
	dir      string
	operator *jwt.OperatorClaims
	accounts map[string]string // public key → account JWT, for the resolver
	sysPub   string
	users    map[Role]userCreds
}

type userCreds struct {
	jwt  string
	seed []byte
}

// authKeys is KeysFile.
type authKeys struct {
	Operator string          `json:"operator"`
	System   string          `json:"system"`
	Account  string          `json:"account"`
	Users    map[Role]string `json:"users"`
}

// OpenAuth loads the keys in dir (creating them on first use), signs the
// accounts' and users' JWTs, and (re)writes the client and viewer .creds
// files when they are missing or no longer say what RolePermissions says.
func OpenAuth(dir string) (*Auth, error) {
	keys, err := loadKeys(filepath.Join(dir, KeysFile))
	if err != nil {
		return nil, err
	}
	kp := func(seed string) nkeys.KeyPair {
		k, _ := nkeys.FromSeed([]byte(seed)) // checked by loadKeys
		return k
	}
	op, sys, acc := kp(keys.Operator), kp(keys.System), kp(keys.Account)
	opPub, _ := op.PublicKey()
	sysPub, _ := sys.PublicKey()
	accPub, _ := acc.PublicKey()

	a := &Auth{dir: dir, sysPub: sysPub, accounts: map[string]string{}, users: map[Role]userCreds{}}
	oc := jwt.NewOperatorClaims(opPub)
	oc.Name = "matchrec"
	oc.SystemAccount = sysPub
	if _, err := oc.Encode(op); err != nil {
		return nil, fmt.Errorf("natsbus: sign the operator: %w", err)
	}
	a.operator = oc

	sc := jwt.NewAccountClaims(sysPub)
	sc.Name = "SYS"
	ac := jwt.NewAccountClaims(accPub)
	ac.Name = AccountName
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{
		MemoryStorage: jwt.NoLimit, DiskStorage: jwt.NoLimit, Streams: jwt.NoLimit, Consumer: MaxConsumers, MaxAckPending: MaxAckPending,
	}
	for _, c := range []*jwt.AccountClaims{sc, ac} {
		tok, err := c.Encode(op)
		if err != nil {
			return nil, fmt.Errorf("natsbus: sign account %s: %w", c.Name, err)
		}
		a.accounts[c.Subject] = tok
	}

	for _, r := range Roles {
		seed := []byte(keys.Users[r])
		pub, _ := kp(keys.Users[r]).PublicKey()
		uc := jwt.NewUserClaims(pub)
		uc.Name = string(r)
		uc.Permissions = RolePermissions(r).jwtPermissions()
		tok, err := uc.Encode(acc)
		if err != nil {
			return nil, fmt.Errorf("natsbus: sign user %s: %w", r, err)
		}
		a.users[r] = userCreds{jwt: tok, seed: seed}
	}
	for _, r := range credsRoles {
		if err := a.writeCreds(r); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// loadKeys reads path, or creates every key and writes path (0600).
func loadKeys(path string) (authKeys, error) {
	var k authKeys
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &k); err != nil {
			return k, fmt.Errorf("natsbus: %s: %w", path, err)
		}
		// A role added since the keys were made (the API's own user)
		// gets its key now; every other key stays.
		added := false
		for _, r := range Roles {
			if _, ok := k.Users[r]; ok {
				continue
			}
			if k.Users == nil {
				k.Users = map[Role]string{}
			}
			kp, err := nkeys.CreateUser()
			if err != nil {
				return k, fmt.Errorf("natsbus: create keys: %w", err)
			}
			seed, _ := kp.Seed()
			k.Users[r], added = string(seed), true
		}
		if err := k.check(path); err != nil {
			return k, err
		}
		if added {
			b, _ = json.MarshalIndent(k, "", "  ")
			if err := writeSecret(path, append(b, '\n')); err != nil {
				return k, err
			}
		}
		return k, nil
	case !errors.Is(err, fs.ErrNotExist):
		return k, fmt.Errorf("natsbus: %w", err)
	}
	var failed error
	seed := func(create func() (nkeys.KeyPair, error)) string {
		kp, err := create()
		if err != nil {
			failed = err
			return ""
		}
		s, _ := kp.Seed()
		return string(s)
	}
	k = authKeys{
		Operator: seed(nkeys.CreateOperator), System: seed(nkeys.CreateAccount), Account: seed(nkeys.CreateAccount),
		Users: map[Role]string{},
	}
	for _, r := range Roles {
		k.Users[r] = seed(nkeys.CreateUser)
	}
	if failed != nil {
		return k, fmt.Errorf("natsbus: create keys: %w", failed)
	}
	b, _ = json.MarshalIndent(k, "", "  ")
	if err := writeSecret(path, append(b, '\n')); err != nil {
		return k, err
	}
	return k, nil
}

// check verifies every seed is there and of its kind, so OpenAuth can use
// them without further checks.
func (k authKeys) check(path string) error {
	want := []struct {
		what, seed string
		prefix     nkeys.PrefixByte
	}{{"operator", k.Operator, nkeys.PrefixByteOperator}, {"system", k.System, nkeys.PrefixByteAccount}, {"account", k.Account, nkeys.PrefixByteAccount}}
	for _, r := range Roles {
		want = append(want, struct {
			what, seed string
			prefix     nkeys.PrefixByte
		}{"user " + string(r), k.Users[r], nkeys.PrefixByteUser})
	}
	for _, w := range want {
		kp, err := nkeys.FromSeed([]byte(w.seed))
		if err != nil {
			return fmt.Errorf("natsbus: %s: %s seed: %w", path, w.what, err)
		}
		pub, _ := kp.PublicKey()
		if !nkeys.IsValidPublicKey(pub) || nkeys.Prefix(pub) != w.prefix {
			return fmt.Errorf("natsbus: %s: %s seed is the wrong kind of key", path, w.what)
		}
	}
	return nil
}

// CredsPath is the .creds file of role r (client or viewer).
func (a *Auth) CredsPath(r Role) string { return filepath.Join(a.dir, string(r)+CredsSuffix) }

// writeCreds writes r's .creds file unless it already holds r's key and
// the same permissions (a JWT's issue time changes at every signing; a
// file rewritten at every start would only confuse people copying it).
func (a *Auth) writeCreds(r Role) error {
	path := a.CredsPath(r)
	u := a.users[r]
	if b, err := os.ReadFile(path); err == nil {
		if tok, err := jwt.ParseDecoratedJWT(b); err == nil {
			old, err1 := jwt.DecodeUserClaims(tok)
			cur, err2 := jwt.DecodeUserClaims(u.jwt)
			if err1 == nil && err2 == nil && old.Subject == cur.Subject && old.Issuer == cur.Issuer &&
				reflect.DeepEqual(old.Permissions, cur.Permissions) {
				return os.Chmod(path, secretMode)
			}
		}
	}
	b, err := jwt.FormatUserConfig(u.jwt, u.seed)
	if err != nil {
		return fmt.Errorf("natsbus: %s: %w", path, err)
	}
	return writeSecret(path, b)
}

// ConnectOptions authenticate a connection as r and give it r's inbox
// prefix.
func (a *Auth) ConnectOptions(r Role) []nats.Option {
	u := a.users[r]
	return []nats.Option{nats.UserJWTAndSeed(u.jwt, string(u.seed)), nats.CustomInboxPrefix(InboxPrefix(r))}
}

// configure puts the operator and accounts into a server's options.
func (a *Auth) configure(o *server.Options) error {
	res := &server.MemAccResolver{}
	for pub, tok := range a.accounts {
		if err := res.Store(pub, tok); err != nil {
			return err
		}
	}
	o.TrustedOperators = []*jwt.OperatorClaims{a.operator}
	o.AccountResolver = res
	o.SystemAccount = a.sysPub
	return nil
}

// secretMode is the mode of every key and credentials file.
const secretMode fs.FileMode = 0o600

// writeSecret writes a file atomically (temp file and rename) with mode
// 0600, so a reader never sees half a key and nobody else ever can.
func writeSecret(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("natsbus: write %s: %w", path, err)
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), secretMode) // CreateTemp's 0600, whatever the umask did
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("natsbus: write %s: %w", path, err)
	}
	return nil
}
