package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/natsbus"
)

// consumers counts the consumers of the event stream.
func consumers(t *testing.T, r *rig) int {
	t.Helper()
	js, err := jetstream.New(r.api.Conn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), natsbus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Consumers
}

func waitStats(t *testing.T, r *rig, want web.Stats) {
	t.Helper()
	for start := time.Now(); r.n.WebStats() != want; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("web stats %+v, want %+v", r.n.WebStats(), want)
		}
	}
}

// However many viewers watch a match, the server follows it on the bus
// once (one hub, one consumer), every viewer gets every event, and the
// hub closes a while after the last viewer leaves.
func TestOneSubscriptionPerMatch(t *testing.T) {
	r := newRigWith(t, node.Config{DataDir: t.TempDir(), WebTuning: web.Tuning{Linger: 300 * time.Millisecond}})
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 10)
	base := consumers(t, r)
	const n = 25
	var cs []*sseClient
	for range n {
		c, code, b := r.openSSE(fmt.Sprintf("/api/matches/%s/stream?from=%d", m.id, head+1), nil)
		if c == nil {
			t.Fatalf("stream: %d %s", code, b)
		}
		cs = append(cs, c)
	}
	waitStats(t, r, web.Stats{Hubs: 1, Viewers: n})
	if got := consumers(t, r); got != base+1 {
		t.Fatalf("%d viewers of one match: %d consumers on the stream, want %d", n, got, base+1)
	}
	res := r.step(m)
	for i, c := range cs {
		for _, e := range res.Events {
			if msg := c.next(10 * time.Second); msg.data.Event.Seq != e.Seq {
				t.Fatalf("viewer %d got event %d, want %d", i, msg.data.Event.Seq, e.Seq)
			}
		}
	}
	for _, c := range cs {
		c.close()
	}
	waitStats(t, r, web.Stats{})
}

// A viewer that stops reading is dropped rather than held: the server
// closes its stream once it falls further behind than the hub's ring, and
// the viewer resumes from its last id (Last-Event-ID), getting every event
// it missed once, from the store.
func TestSlowViewerDroppedAndResumes(t *testing.T) {
	dir := t.TempDir()
	l := writeLong(t, dir, "long", 2000)
	r := newRigWith(t, node.Config{DataDir: dir, WebTuning: web.Tuning{Ring: 16, WriteTimeout: 500 * time.Millisecond, SendBuffer: 4096}})
	from := l.state.Seq + 1

	// A viewer with a tiny receive window that reads nothing.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(r.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/matches/%s/stream?from=%d HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n", l.id, from)
	waitStats(t, r, web.Stats{Hubs: 1, Viewers: 1})

	// A steady viewer beside it misses nothing.
	steady, code, b := r.openSSE(fmt.Sprintf("/api/matches/%s/stream?from=%d", l.id, from), nil)
	if steady == nil {
		t.Fatalf("stream: %d %s", code, b)
	}
	// It takes each command's events before the next command is sent:
	// a steady viewer is one the server is never a ring behind, however
	// slowly this machine schedules the test's reader (the ring is 16
	// events; played at full speed, a loaded machine let the steady
	// viewer fall that far behind and be dropped too).
	var head uint64
	next := from
	for range 300 {
		res, _ := r.playOn(l)
		head = res.Events[len(res.Events)-1].Seq
		for ; next <= head; next++ {
			if msg := steady.next(10 * time.Second); msg.data.Event.Seq != next {
				t.Fatalf("the steady viewer got event %d, want %d", msg.data.Event.Seq, next)
			}
		}
		head = res.Events[len(res.Events)-1].Seq
	}
	// The slow one was dropped: its stream ends before the head.
	waitStats(t, r, web.Stats{Hubs: 1, Viewers: 1})
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body) // ends: the server closed it
	last := uint64(0)
	for _, line := range strings.Split(string(body), "\n") {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			last, _ = strconv.ParseUint(id, 10, 64)
		}
	}
	if last >= head {
		t.Fatalf("the slow viewer got everything (to %d): it was never dropped", last)
	}
	t.Logf("the slow viewer was dropped after event %d of %d", last, head)

	// It comes back with its last id and gets the rest, each once.
	back, code, b := r.openSSE(fmt.Sprintf("/api/matches/%s/stream", l.id), http.Header{"Last-Event-Id": {fmt.Sprint(max(last, from-1))}})
	if back == nil {
		t.Fatalf("resume: %d %s", code, b)
	}
	for seq := max(last, from-1) + 1; seq <= head; seq++ {
		if msg := back.next(10 * time.Second); msg.data.Event.Seq != seq {
			t.Fatalf("resumed: event %d, want %d", msg.data.Event.Seq, seq)
		}
	}
	if msg, quiet := back.quiet(300 * time.Millisecond); !quiet {
		t.Fatalf("a stray message after the catch-up: %+v", msg)
	}
}

// When the bus copy of a match differs from the record — here an event
// forged onto the stream ahead of the recorder — viewers are told the
// feed is paused and get nothing the recorder did not write, not the
// forgery, not the events after it.
func TestBusCopyDiffersPausesTheFeed(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 10)
	c, code, b := r.openSSE(fmt.Sprintf("/api/matches/%s/stream?from=%d", m.id, head+1), nil)
	if c == nil {
		t.Fatalf("stream: %d %s", code, b)
	}
	waitStats(t, r, web.Stats{Hubs: 1, Viewers: 1})
	forgeNext(t, r, m.id)
	msg := nextAny(t, c)
	if msg.event != "feed-status" || !strings.Contains(msg.raw, `"state":"paused"`) || !strings.Contains(msg.raw, "the bus copy differs from the record") {
		t.Fatalf("after a forgery the stream sent %+v", msg)
	}
	// The recorder's own next events: the bus copy is still wrong where
	// they follow it, so they are not shown either.
	r.step(m)
	r.step(m)
	for start := time.Now(); time.Since(start) < time.Second; {
		m, quiet := c.quiet(200 * time.Millisecond)
		if quiet {
			continue
		}
		if m.event == "" {
			t.Fatalf("a paused feed sent event %d", m.data.Event.Seq)
		}
	}
	// The store has the truth: a new page reads it from there.
	var st web.StateResponse
	if code, b := r.get("/api/matches/"+m.id+"/state", nil, &st); code != 200 || st.State.Seq <= head {
		t.Fatalf("state after the forgery: %d %s", code, b)
	}
}

// forgeNext publishes, ahead of the recorder, a well-formed event that
// chains from the match's head but was never recorded.
func forgeNext(t *testing.T, r *rig, id string) {
	t.Helper()
	st := r.state(id, 0)
	e, err := events.New(id, st.Seq+1, st.Head, time.Now().UnixNano(), events.Actor{Kind: events.ActorPlayer, ID: "bob"},
		events.TurnStarted{Turn: 9, Player: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := natsbus.NewMsg(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Only the recorder's account may publish events (the locked bus): the
	// forger here has its credentials, the worst case.
	nc, err := r.n.ConnectAs(natsbus.RoleRecorder)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
}

// nextAny is the next message of any kind, with its raw data.
type anyMsg struct{ event, raw string }

func nextAny(t *testing.T, c *sseClient) anyMsg {
	t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			t.Fatal("the stream ended")
		}
		return anyMsg{event: m.event, raw: m.raw}
	case <-time.After(10 * time.Second):
		t.Fatal("no message in 10s")
	}
	return anyMsg{}
}
