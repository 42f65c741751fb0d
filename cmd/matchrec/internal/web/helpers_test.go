package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const examplesDir = "../../../../examples"

// rig is a serving node, as `matchrec serve --http` runs one: a real bbolt
// store in a temp dir, embedded NATS listening on a free port, the relay,
// and the web server on a free port; plus an API client of its own.
type rig struct {
	t    testing.TB
	n    *node.Node
	api  *natsbus.Client
	base string
	hc   *http.Client
}

func newRig(t testing.TB, delay time.Duration) *rig {
	t.Helper()
	return newRigWith(t, node.Config{DataDir: t.TempDir(), Delay: delay})
}

// newRigWith is newRig on cfg (its DataDir set), listening on free ports.
func newRigWith(t testing.TB, cfg node.Config) *rig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg.Listen, cfg.HTTP = "127.0.0.1:0", "127.0.0.1:0"
	n, err := node.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Error(err)
		}
	})
	nc, err := n.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if n.HTTPURL() == "" {
		t.Fatal("the node serves no HTTP")
	}
	return &rig{t: t, n: n, api: &natsbus.Client{Conn: nc, Timeout: 10 * time.Second}, base: n.HTTPURL(),
		// Every request of a test is bounded: a hang is a failure, not a
		// stuck test run.
		hc: &http.Client{Timeout: 10 * time.Second}}
}

func readScript(t testing.TB, name string) *script.Script {
	t.Helper()
	sc, err := script.Read(filepath.Join(examplesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// match is a created match and its tokens.
type match struct {
	id     string
	tokens map[string]string
	sc     *script.Script
	next   int // the next script step to play
}

func (r *rig) create(sc *script.Script) *match {
	r.t.Helper()
	var res api.CreateResult
	if err := r.api.Call(context.Background(), api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &res); err != nil {
		r.t.Fatal(err)
	}
	return &match{id: res.Match, tokens: res.Tokens, sc: sc}
}

func (m *match) judge() string { return m.tokens[api.RoleJudge] }

// step plays the match's next accepted script step through the NATS API
// (steps that the script expects refused are skipped: they record
// nothing) and returns what the recorder acknowledged.
func (r *rig) step(m *match) api.Result {
	r.t.Helper()
	for m.next < len(m.sc.Steps) && m.sc.Steps[m.next].ExpectRefusal != "" {
		m.next++
	}
	if m.next >= len(m.sc.Steps) {
		r.t.Fatal("the script has no more steps")
	}
	st := m.sc.Steps[m.next]
	m.next++
	role := api.RolePlayer(st.As)
	if st.As == script.RoleJudge {
		role = api.RoleJudge
	}
	verb := api.VerbDeclare
	if st.Cmd.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	if st.Cmd.Type == projector.CmdRoll && st.Cmd.Digital {
		r.seedAll(m)
	}
	var res api.Result
	cmd := st.Cmd
	if err := r.api.Call(context.Background(), verb, api.ExecuteRequest{Match: m.id, Token: m.tokens[role], Command: &cmd}, &res); err != nil {
		r.t.Fatalf("%s: %v", st.Where(m.next-1), err)
	}
	return res
}

// seedAll commits and reveals every player's dice seed the match waits
// for before a digital roll (scheme 2), as a player's CLI does.
func (r *rig) seedAll(m *match) {
	r.t.Helper()
	for round := 0; round < 8; round++ {
		st := r.state(m.id, 0)
		due := false
		for _, pl := range st.Players {
			if c, ok := st.SeedCommand(pl.ID, []byte("web test secret of "+pl.ID)); ok {
				r.command(m, api.RolePlayer(pl.ID), c)
				due = true
				break // the state moved on: look again
			}
		}
		if !due {
			return
		}
	}
}

// playTo plays steps until the match's head is at least seq.
func (r *rig) playTo(m *match, seq uint64) uint64 {
	r.t.Helper()
	head := uint64(2)
	for head < seq {
		res := r.step(m)
		head = res.Events[len(res.Events)-1].Seq
	}
	return head
}

// state asks the recorder (NATS API) for the state after event at (0: now).
func (r *rig) state(id string, at uint64) *projector.State {
	r.t.Helper()
	var st projector.State
	if err := r.api.Call(context.Background(), api.VerbState, api.StateRequest{Match: id, At: at}, &st); err != nil {
		r.t.Fatal(err)
	}
	return &st
}

// get does a GET with optional headers and decodes a JSON answer into v
// (unless nil); it returns the status and the raw body.
func (r *rig) get(path string, hdr http.Header, v any) (int, []byte) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.base+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			r.t.Fatalf("GET %s: %v\n%s", path, err, b)
		}
	}
	return resp.StatusCode, b
}

func bearer(tok string) http.Header {
	return http.Header{"Authorization": {"Bearer " + tok}}
}

// sseMsg is one message of an event stream.
type sseMsg struct {
	id, event string
	data      web.StreamMessage
	raw       string    // the data as sent
	at        time.Time // when the client read it
}

// sseClient reads an event stream in the background, message by message.
type sseClient struct {
	t      testing.TB
	cancel context.CancelFunc
	msgs   chan sseMsg
	done   chan error
}

// openSSE connects to path; status is the answer's status, and on a
// non-200 the body is returned instead of a client.
func (r *rig) openSSE(path string, hdr http.Header) (*sseClient, int, []byte) {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "text/event-stream")
	// No client timeout: a stream is one long answer; cancel ends it.
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		r.t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, b
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		cancel()
		r.t.Fatalf("GET %s: Content-Type %q", path, ct)
	}
	c := &sseClient{t: r.t, cancel: cancel, msgs: make(chan sseMsg, 1<<16), done: make(chan error, 1)}
	go c.read(resp.Body)
	r.t.Cleanup(c.close)
	return c, http.StatusOK, nil
}

func (c *sseClient) read(body io.ReadCloser) {
	defer body.Close()
	defer close(c.msgs)
	rd := bufio.NewReader(body)
	var m sseMsg
	var data strings.Builder
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			c.done <- err
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if data.Len() > 0 {
				m.at, m.raw = time.Now(), data.String()
				if m.event == "" {
					if err := json.Unmarshal([]byte(data.String()), &m.data); err != nil {
						c.done <- err
						return
					}
				}
				c.msgs <- m
			}
			m, data = sseMsg{}, strings.Builder{}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry:"):
		case strings.HasPrefix(line, "id: "):
			m.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			m.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			data.WriteString(line[6:])
		}
	}
}

// next returns the next message, or fails the test after timeout.
func (c *sseClient) next(timeout time.Duration) sseMsg {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatalf("the stream ended: %v", <-c.done)
		}
		if m.event != "" {
			c.t.Fatalf("stream sent %q: %+v", m.event, m)
		}
		return m
	case <-time.After(timeout):
		c.t.Fatalf("no stream message in %s", timeout)
	}
	return sseMsg{}
}

// quiet reports whether no message arrives within d.
func (c *sseClient) quiet(d time.Duration) (sseMsg, bool) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return sseMsg{}, true
		}
		return m, false
	case <-time.After(d):
		return sseMsg{}, true
	}
}

func (c *sseClient) close() {
	c.cancel()
	for range c.msgs { // wait for the reader to stop
	}
}

// command records c as role (api.RoleJudge or api.RolePlayer(id)) through
// the NATS API.
func (r *rig) command(m *match, role string, c projector.Command) api.Result {
	r.t.Helper()
	verb := api.VerbDeclare
	if c.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	var res api.Result
	if err := r.api.Call(context.Background(), verb, api.ExecuteRequest{Match: m.id, Token: m.tokens[role], Command: &c}, &res); err != nil {
		r.t.Fatalf("%s as %s: %v", c.Type, role, err)
	}
	return res
}
