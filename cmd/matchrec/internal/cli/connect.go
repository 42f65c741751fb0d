package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// probeTimeout bounds how long a command tries a server.json server before
// deciding it is gone: a stale file (a crashed server) must not make every
// command slow.
const probeTimeout = time.Second

// recorderAPI is the recorder as a command sees it: an API client, whichever way
// the recorder runs.
type recorderAPI struct {
	client *natsbus.Client
	close  func()

	peersMu sync.Mutex
	cluster []string // ping's cluster: the recorders sharing one record
	asked   int      // pings asked for it
}

// maxPeerPings bounds the pings one connection asks for its cluster's
// list: a ping that failed or was answered while a recorder was away
// (restarting, its node hung) is asked again when a receipt names a
// recorder the list lacks.
const maxPeerPings = 3

// peers says whether the recorders keys are all of one cluster, as the
// recorder answering ping lists it (asked once per connection, again
// when the list lacks a key, up to maxPeerPings).
func (c *recorderAPI) peers(ctx context.Context, keys ...string) bool {
	c.peersMu.Lock()
	defer c.peersMu.Unlock()
	all := func() bool {
		for _, k := range keys {
			if !slices.Contains(c.cluster, k) {
				return false
			}
		}
		return len(keys) > 0
	}
	for !all() {
		if c.asked >= maxPeerPings {
			return false
		}
		c.asked++
		var ping api.PingResult
		if c.client.Call(ctx, api.VerbPing, nil, &ping) == nil {
			c.cluster = ping.Cluster
		}
	}
	return true
}

// connect finds the recorder for this invocation:
//
//  1. --server URL: that server, and nothing else;
//  2. <data>/server.json naming a server that answers ping;
//  3. a node started here, on the data directory, with an in-process NATS
//     server (no port opened), closed when the command ends.
//
// If the store is locked and no server answers, either the `serve` that
// server.json names is alive but does not answer (NATS down, a recorder
// stuck): "recorder unreachable"; or another process holds the directory
// without serving it: "locked".
func (a *app) connect(ctx context.Context) (*recorderAPI, error) {
	if a.server == "" {
		if err := a.checkDataDir(); err != nil {
			return nil, err
		}
	}
	si, sfErr := node.ReadServerFile(a.data)
	if a.server != "" {
		var sip *node.ServerInfo
		if sfErr == nil {
			sip = &si
		}
		c, err := a.dial(ctx, a.server, "", a.clientCredentials(sip))
		if err != nil {
			hint := ""
			if strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
				hint = " (log in with --nats-creds, --nats-nkey or --nats-user)"
			}
			return nil, unreachable("cannot reach a recorder at %s: %v%s", a.server, err, hint)
		}
		return c, nil
	}
	var dialErr error
	if sfErr == nil && si.NATSURL != "" {
		// The server must serve this directory: a stale server.json may
		// name a port another recorder, on other data, now listens on.
		c, err := a.dial(ctx, si.NATSURL, node.AbsDir(a.data), a.clientCredentials(&si))
		if err == nil {
			a.log.Debug().Str("url", si.NATSURL).Msg("using the running server")
			return c, nil
		}
		dialErr = err
		a.log.Debug().Err(err).Str("url", si.NATSURL).Msg("server.json names a server that does not answer; starting in-process")
	}
	n, err := node.Open(ctx, node.Config{DataDir: a.data, InProcess: true, Log: a.log})
	if err != nil {
		if errors.Is(err, node.ErrLocked) {
			if sfErr == nil && processAlive(si.PID) {
				return nil, unreachable("the recorder serving %s (pid %d, %s) is running but does not answer: %v; "+
					"is its NATS server up? (see its log)", abs(a.data), si.PID, si.NATSURL, dialErr)
			}
			hint := "no server.json"
			if sfErr == nil {
				hint = fmt.Sprintf("server.json names pid %d, which is gone", si.PID)
			} else if !errors.Is(sfErr, fs.ErrNotExist) {
				hint = fmt.Sprintf("server.json is unreadable: %v", sfErr)
			}
			return nil, &cliError{exit: ExitUsage, code: projector.CodeLocked, msg: fmt.Sprintf(
				"the data directory %s is in use by another matchrec process (%s); stop it, wait for it to finish, or pass --server URL",
				abs(a.data), hint)}
		}
		return nil, unavailable("cannot start a recorder on %s: %v", abs(a.data), err)
	}
	nc, err := n.Connect(nats.Name("matchrec-cli"))
	if err != nil {
		_ = n.Close()
		return nil, unavailable("connect to the in-process recorder: %v", err)
	}
	return &recorderAPI{
		client: a.newClient(nc),
		close: func() {
			nc.Close()
			if err := n.Close(); err != nil {
				a.log.Warn().Err(err).Msg("closing the in-process recorder")
			}
		},
	}, nil
}

// dial connects to a NATS server and checks that a matchrec recorder
// answers there (serving dataDir, unless that is "").
func (a *app) dial(ctx context.Context, url, dataDir string, creds natsbus.Credentials) (*recorderAPI, error) {
	opts, err := creds.Options()
	if err != nil {
		return nil, err
	}
	opts = append(natsbus.ConnectOptions("matchrec-cli", a.log, natsbus.Reconnect{}), append(opts, nats.Timeout(probeTimeout))...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, err
	}
	c := a.newClient(nc)
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var ping api.PingResult
	if err := c.Call(pctx, api.VerbPing, nil, &ping); err != nil {
		nc.Close()
		return nil, err
	}
	if dataDir != "" && ping.DataDir != dataDir {
		nc.Close()
		return nil, fmt.Errorf("the recorder at %s serves %s, not %s", url, ping.DataDir, dataDir)
	}
	return &recorderAPI{client: c, close: nc.Close}, nil
}

// newClient is an API client on nc that passes the recorder's notes (the
// bus is behind the record) on to stderr, once per command. It sends the
// commands in msgpack (natsbus.Client.Msgpack): no JSON on their path.
func (a *app) newClient(nc *nats.Conn) *natsbus.Client {
	var once sync.Once
	return &natsbus.Client{Conn: nc, Msgpack: true, OnNote: func(_, note string) {
		once.Do(func() { fmt.Fprintf(a.stderr, "note: %s\n", note) })
	}, Heads: &natsbus.Heads{Load: a.receiptStore().lastSeq}}
}

// processAlive reports whether pid names a running process (one of
// another user counts).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// call makes one API call. API errors come back as *api.Error (exit
// code 1, the recorder's code); transport failures as "recorder
// unreachable".
func (c *recorderAPI) call(ctx context.Context, verb string, req, resp any) error {
	err := c.client.Call(ctx, verb, req, resp)
	if ae := apiError(err); ae != nil {
		return c.suggestMatch(ctx, ae)
	}
	if err == nil {
		return nil
	}
	return unreachable("%s: %v", verb, err)
}

// suggestPages bounds how many pages of the match index a "did you mean"
// reads.
const suggestPages = 10

// suggestMatch adds a "did you mean" to a not_found error about a match id
// that is a typo away from a recorded one.
func (c *recorderAPI) suggestMatch(ctx context.Context, ae *api.Error) error {
	_, quoted, ok := strings.Cut(ae.Message, store.ErrNotFound.Error()+": ")
	id, err := strconv.Unquote(quoted)
	if ae.Code != projector.CodeNotFound || !ok || err != nil {
		return ae
	}
	// The most recently played matches, a few pages of the index at most:
	// a typo is of a match one is playing or has just played.
	var ids []string
	q := api.MatchesRequest{Limit: store.MaxMatchLimit}
	for range suggestPages {
		var page api.MatchesResult
		if c.client.Call(ctx, api.VerbMatches, q, &page) != nil {
			return ae
		}
		for _, m := range page.Matches {
			ids = append(ids, m.ID)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	if best := projector.Suggest(id, ids); best != "" {
		return &api.Error{Code: ae.Code, Message: fmt.Sprintf("%s (did you mean %q?)", ae.Message, best)}
	}
	return ae
}

func apiError(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

func unavailable(format string, args ...any) error {
	return &cliError{exit: ExitUsage, code: projector.CodeUnavailable, msg: fmt.Sprintf(format, args...)}
}

// unreachable is unavailable, saying first that the recorder cannot be
// reached (as opposed to a recorder that cannot start).
func unreachable(format string, args ...any) error {
	return unavailable("recorder unreachable: "+format, args...)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// withAPI runs fn with a connected API and closes it after.
func (a *app) withAPI(ctx context.Context, fn func(*recorderAPI) error) error {
	c, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	return fn(c)
}
