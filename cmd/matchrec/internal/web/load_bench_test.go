package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
)

// BenchmarkViewers is the load test (`make loadtest`): N viewers
// (MATCHREC_LOAD_VIEWERS, default 500) watch a long match
// (MATCHREC_LOAD_EVENTS, default 10,000 events) while a player records
// commands through the API (MATCHREC_LOAD_COMMANDS, default 200, at
// MATCHREC_LOAD_RATE a second, default 10). Each viewer does what a page
// does: it reads the board (/state) and follows the stream from the event
// after it, reconnecting with Last-Event-ID as EventSource does when the
// server drops it. The same commands are recorded first with no viewer.
//
// It reports the events viewers missed (expected minus received, after
// the last one had time to arrive), event → viewer latency (from the
// API's acknowledgement to the frame read, p50 and p99), the players'
// command latency with and without viewers (p50, p99, and their p99
// ratio), how often viewers were dropped, and the server process's peak
// RSS. The viewers run in a process of their own (as browsers do), on
// the same machine: they share its CPUs with the server.
func BenchmarkViewers(b *testing.B) {
	viewers := envInt("MATCHREC_LOAD_VIEWERS", 500)
	events := envInt("MATCHREC_LOAD_EVENTS", 10_000)
	commands := envInt("MATCHREC_LOAD_COMMANDS", 200)
	rate := envInt("MATCHREC_LOAD_RATE", 10)

	dir := b.TempDir()
	l := writeLong(b, dir, "load", events)
	r := newRigWith(b, node.Config{DataDir: dir})
	// Warm up: the recorder's first command folds the match, the first
	// seek keeps its snapshots.
	for range 5 {
		r.playOn(l)
	}
	if code, body := r.get("/api/matches/load/state", nil, nil); code != http.StatusOK {
		b.Fatalf("state: %d %s", code, body)
	}

	record := func(acks *sync.Map) []time.Duration {
		var lat []time.Duration
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for range commands {
			<-tick.C
			res, took := r.playOn(l)
			now := time.Now()
			if acks != nil {
				for _, e := range res.Events {
					acks.Store(e.Seq, now)
				}
			}
			lat = append(lat, took)
		}
		return lat
	}
	for b.Loop() {
		alone := record(nil)

		// The viewers arrive, as pages do: the board, then the stream. They
		// run in a process of their own, as browsers do.
		watchers, err := startViewers(r.base+"/api/matches/load", viewers)
		if err != nil {
			b.Fatal(err)
		}
		for start := time.Now(); r.n.WebStats().Viewers < viewers; time.Sleep(50 * time.Millisecond) {
			if time.Since(start) > 2*time.Minute {
				b.Fatalf("only %d of %d viewers connected", r.n.WebStats().Viewers, viewers)
			}
		}
		first := l.state.Seq + 1
		acks := &sync.Map{}
		watched := record(acks)
		last := l.state.Seq
		vs, err := watchers.stop(last)
		if err != nil {
			b.Fatal(err)
		}

		var missed, dropped int
		var delivery []time.Duration
		for _, v := range vs {
			got := map[uint64]int64{}
			for _, sa := range v.Got {
				got[sa[0]] = int64(sa[1])
			}
			for seq := max(first, v.From); seq <= last; seq++ {
				at, ok := got[seq]
				if !ok {
					missed++
					continue
				}
				if ack, ok := acks.Load(seq); ok {
					delivery = append(delivery, max(0, time.Unix(0, at).Sub(ack.(time.Time))))
				}
			}
			dropped += v.Reconnects
		}
		p := func(d []time.Duration, q float64) float64 {
			s := slices.Clone(d)
			slices.Sort(s)
			return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
		}
		rss, hwm := memory()
		b.ReportMetric(float64(viewers), "viewers")
		b.ReportMetric(float64(last-first+1), "events-watched")
		b.ReportMetric(float64(missed), "missed")
		b.ReportMetric(float64(dropped), "reconnects")
		b.ReportMetric(p(delivery, .5), "deliver-p50-ms")
		b.ReportMetric(p(delivery, .99), "deliver-p99-ms")
		b.ReportMetric(p(alone, .5), "cmd-p50-alone-ms")
		b.ReportMetric(p(alone, .99), "cmd-p99-alone-ms")
		b.ReportMetric(p(watched, .5), "cmd-p50-watched-ms")
		b.ReportMetric(p(watched, .99), "cmd-p99-watched-ms")
		b.ReportMetric(p(watched, .99)/p(alone, .99), "cmd-p99-ratio")
		b.ReportMetric(float64(hwm)/1024, "peak-rss-MiB")
		b.Logf("%d viewers, %d events watched (%d-event match): %d missed, %d reconnects; event → viewer p50 %.1f ms, p99 %.1f ms; "+
			"commands p50/p99 %.1f/%.1f ms alone, %.1f/%.1f ms watched; RSS %d MiB (peak %d MiB), %d goroutines",
			viewers, last-first+1, events, missed, dropped, p(delivery, .5), p(delivery, .99),
			p(alone, .5), p(alone, .99), p(watched, .5), p(watched, .99), rss/1024, hwm/1024, runtime.NumGoroutine())
	}
}

// The viewers of the load test run in a child process (this test binary
// again, running TestLoadViewers): like browsers, they do not share the
// server's Go scheduler, only the machine's CPUs.

// viewerReport is what a viewer saw: the first event it expected, each
// event's arrival (seq, Unix ns) and how often it was dropped.
type viewerReport struct {
	From       uint64      `json:"from"`
	Got        [][2]uint64 `json:"got"`
	Reconnects int         `json:"reconnects"`
}

type viewerProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   bytes.Buffer
}

// startViewers starts n viewers of the match API api in a child process.
func startViewers(api string, n int) (*viewerProcess, error) {
	p := &viewerProcess{cmd: exec.Command(os.Args[0], "-test.run", "^TestLoadViewers$", "-test.v=false")}
	p.cmd.Env = append(os.Environ(), "MATCHREC_LOAD_CHILD="+api, fmt.Sprintf("MATCHREC_LOAD_VIEWERS=%d", n))
	p.cmd.Stdout, p.cmd.Stderr = &p.out, os.Stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	return p, p.cmd.Start()
}

// stop tells the viewers the last event to wait for (they give it up to
// 30 s) and reads their reports.
func (p *viewerProcess) stop(last uint64) ([]viewerReport, error) {
	fmt.Fprintln(p.stdin, last)
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		return nil, fmt.Errorf("the viewers' process: %w", err)
	}
	var vs []viewerReport
	i := bytes.Index(p.out.Bytes(), []byte("VIEWERS "))
	if i < 0 {
		return nil, fmt.Errorf("the viewers' process reported nothing: %s", p.out.String())
	}
	line, _, _ := bytes.Cut(p.out.Bytes()[i+8:], []byte("\n"))
	return vs, json.Unmarshal(line, &vs)
}

// TestLoadViewers is the viewers' process of BenchmarkViewers; it skips
// unless that benchmark started it.
func TestLoadViewers(t *testing.T) {
	api := os.Getenv("MATCHREC_LOAD_CHILD")
	if api == "" {
		t.Skip("the viewers' side of BenchmarkViewers (make loadtest)")
	}
	n := envInt("MATCHREC_LOAD_VIEWERS", 500)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}}
	ctx, cancel := context.WithCancel(context.Background())
	vs := make([]*loadViewer, n)
	var wg sync.WaitGroup
	for i := range vs {
		vs[i] = &loadViewer{}
		wg.Go(func() { vs[i].watch(ctx, hc, api) })
	}
	var last uint64
	if _, err := fmt.Fscan(os.Stdin, &last); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(50 * time.Millisecond) {
		done := 0
		for _, v := range vs {
			if v.last.Load() >= last {
				done++
			}
		}
		if done == n {
			break
		}
	}
	cancel()
	wg.Wait()
	out := make([]viewerReport, n)
	for i, v := range vs {
		out[i] = viewerReport{From: v.from, Got: v.got, Reconnects: v.reconnects}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("VIEWERS %s\n", b)
}

// loadViewer is one page's stream: it reads the board's sequence, then
// follows the stream, noting when each event's frame arrived.
type loadViewer struct {
	from       uint64 // the first event it expects
	got        [][2]uint64
	reconnects int
	last       atomic.Uint64
}

func (v *loadViewer) watch(ctx context.Context, hc *http.Client, api string) {
	var st web.StateResponse
	if err := getJSONCtx(ctx, hc, api+"/state", &st); err != nil {
		return
	}
	v.from = st.State.Seq + 1
	v.last.Store(st.State.Seq)
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/stream?from=%d", api, v.from), nil)
		if last := v.last.Load(); last >= v.from {
			req.Header.Set("Last-Event-ID", strconv.FormatUint(last, 10))
		}
		resp, err := hc.Do(req)
		if err == nil {
			rd := bufio.NewReaderSize(resp.Body, 64<<10)
			for {
				line, err := rd.ReadSlice('\n')
				if err != nil && err != bufio.ErrBufferFull {
					break
				}
				// Only the id lines are read; the rest is skipped unread,
				// as cheaply as a client can.
				if id, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
					seq, _ := strconv.ParseUint(string(bytes.TrimSpace(id)), 10, 64)
					v.got = append(v.got, [2]uint64{seq, uint64(time.Now().UnixNano())})
					v.last.Store(seq)
				}
			}
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			return
		}
		v.reconnects++
		select { // EventSource's retry, as the server sets it
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

func getJSONCtx(ctx context.Context, hc *http.Client, url string, v any) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// memory is the process's resident set and its peak, in KiB.
func memory() (rss, hwm int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = n
		case "VmHWM:":
			hwm = n
		}
	}
	return rss, hwm
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
