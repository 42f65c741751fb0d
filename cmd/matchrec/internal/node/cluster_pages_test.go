package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// Read-your-writes on the pages (docs/http.md): a command recorded
// through one cluster recorder, then a page's request to another
// recorder's web server with ?after=N (the event the reader saw
// recorded) is answered with that event or a later one; a copy that
// cannot get there in time answers 503 unavailable, never an older
// match. A malformed floor is a bad request.
func TestClusterPagesReadYourWrites(t *testing.T) {
	c := startNATSCluster(t)
	a := clusterRecorder(t, c, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: c.URLs(), Cluster: true, NoSync: true, Log: zerolog.Nop(), HTTP: "127.0.0.1:0",
		NATSAuth: natsbus.Credentials{User: "recorder", Password: c.Pw.Recorder, InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })

	sc := readScript(t, examplesDir+"/3e-boltguns-vs-boyz.yaml")
	m, err := a.Recorder().Create(ctx, api.CreateRequest{MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 20 * time.Second}
	get := func(after string) (int, http.Header, []byte) {
		t.Helper()
		resp, err := hc.Get(fmt.Sprintf("%s/api/matches/%s/state?after=%s", b.HTTPURL(), m.Match, after))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, body
	}
	for _, st := range sc.Steps[:8] {
		res, err := a.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer(st.As)], st.Cmd)
		if _, refused := projector.AsRefusal(err); err != nil && !refused {
			t.Fatal(err)
		}
		if len(res.Events) == 0 {
			continue
		}
		// Asked at once after each write, of the other recorder, as a
		// client does: a 503 is asked again (on a loaded machine the
		// copy may take longer than the 3 s the recorder waits).
		head := res.Events[len(res.Events)-1].Seq
		code, _, body := get(fmt.Sprint(head))
		for try := 0; code == http.StatusServiceUnavailable && try < 5; try++ {
			code, _, body = get(fmt.Sprint(head))
		}
		var sr struct {
			Head uint64 `json:"head"`
		}
		if code != http.StatusOK || json.Unmarshal(body, &sr) != nil || sr.Head < head {
			t.Fatalf("state after event %d, asked of the other recorder: %d %s", head, code, body)
		}
	}
	code, hdr, body := get("1000000")
	var e struct {
		Error struct{ Code projector.Code } `json:"error"`
	}
	if code != http.StatusServiceUnavailable || json.Unmarshal(body, &e) != nil || e.Error.Code != projector.CodeUnavailable || hdr.Get("Retry-After") == "" {
		t.Fatalf("a floor the copy never reaches: %d %s (Retry-After %q), want 503 unavailable", code, body, hdr.Get("Retry-After"))
	}
	if code, _, body := get("x"); code != http.StatusBadRequest {
		t.Fatalf("after=x: %d %s, want 400", code, body)
	}
}
