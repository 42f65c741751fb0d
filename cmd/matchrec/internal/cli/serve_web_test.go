package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
)

// At a terminal, serve first says where the pages are: the list, and for
// the newest live matches their live page, overlay and judge login (never
// a token); a match that ended is not among them.
func TestServePrintsTheURLs(t *testing.T) {
	dir := t.TempDir()
	ended := strings.TrimSpace(mustRun(t, dir, "play", example))
	mustRun(t, dir, "new", example, "--id", "friday")
	n, err := node.Open(context.Background(), node.Config{DataDir: dir, InProcess: true, HTTP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	a := &app{data: dir, stdout: io.Discard}
	var out bytes.Buffer
	a.writeURLs(context.Background(), &out, n)
	base := n.HTTPURL()
	for _, want := range []string{base + "/\n", base + "/matches/friday\n", base + "/matches/friday?overlay=full", base + "/matches/friday/judge\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve's addresses lack %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), ended) {
		t.Errorf("an ended match is listed as live:\n%s", out.String())
	}
	// Not at a terminal (a pipe, a file), nothing.
	var piped bytes.Buffer
	(&app{data: dir, stdout: &piped}).printURLs(context.Background(), n)
	if piped.Len() != 0 {
		t.Fatalf("printed to a pipe: %q", piped.String())
	}
}
