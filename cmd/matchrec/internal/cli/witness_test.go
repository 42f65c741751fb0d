package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/witness"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store/identity"
)

// witnessProcessEnv, set, makes the test binary a witness process: its
// value is the witness's directory and the log key it witnesses.
const witnessProcessEnv = "MATCHREC_TEST_WITNESS"

func runWitnessProcess(args string) int {
	dir, key, _ := strings.Cut(args, "\n")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return Run(ctx, []string{"--json", "--log-level", "warn", "witness", "--dir", dir, "--listen", "127.0.0.1:0", "--log", key, "--name", "club-witness"}, strings.NewReader(""), os.Stdout, os.Stderr)
}

// witnessProc is a `matchrec witness` in a process of its own.
type witnessProc struct {
	cmd      *exec.Cmd
	url, key string
}

func startWitness(t *testing.T, dir, logKey string) *witnessProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), witnessProcessEnv+"="+dir+"\n"+logKey)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serr bytes.Buffer
	cmd.Stderr = &serr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &witnessProc{cmd: cmd}
	t.Cleanup(func() { w.stop(t) })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var b strings.Builder
		for sc.Scan() { // the JSON object printed at start, over several lines
			b.WriteString(sc.Text())
			if sc.Text() == "}" {
				lines <- b.String()
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case l := <-lines:
		var v struct{ URL, Key string }
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.URL == "" {
			t.Fatalf("the witness printed %q: %v", l, err)
		}
		w.url, w.key = v.URL, v.Key
	case <-time.After(30 * time.Second):
		t.Fatalf("the witness did not start: %s", serr.String())
	}
	return w
}

func (w *witnessProc) stop(t *testing.T) {
	if w.cmd.ProcessState != nil {
		return
	}
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
		t.Error("the witness did not stop on SIGTERM")
	}
}

// A witness in a process of its own co-signs the recorder's checkpoints,
// which /tlog/checkpoint then serves with its cosignature; the log's
// entries are served as C2SP tiles that hash to the checkpoint's root;
// after a restart the witness still knows what it co-signed, and it
// refuses a checkpoint that does not extend it (another history), one not
// signed by the log, and one of a log it does not witness — each with the
// protocol's status, co-signing nothing.
func TestWitnessInASecondProcess(t *testing.T) {
	dir := t.TempDir()
	id, err := identity.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	logKey, _ := headlog.VerifierKey(id.PublicKey())
	wdir := t.TempDir()
	w := startWitness(t, wdir, logKey)
	srv := startServe(t, dir, "--witness", w.url+"="+w.key)
	mustRun(t, dir, "play", example)
	cv, err := witness.NewCosignatureVerifier(w.key)
	if err != nil {
		t.Fatal(err)
	}
	rv, _ := headlog.Verifier(id.PublicKey())
	want := mustCheckpoint(t, dir, id.PublicKey()).Size
	var cosigned []byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		cosigned = httpGet(t, srv.info.HTTPURL+"/tlog/checkpoint")
		n, err := note.Open(cosigned, note.VerifierList(rv, cv))
		if err == nil && len(n.Sigs) == 2 {
			if cp, _ := headlog.Open(cosigned, id.PublicKey(), cv); cp.Size >= want && len(cp.Cosigned) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint of %d entries co-signed by the witness: %s", want, cosigned)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cp, _ := headlog.Open(cosigned, id.PublicKey(), cv)
	// The tiles: the entry bundle of the first tile hashes to the root.
	width := min(cp.Size, torchwood.TileWidth)
	bundle := httpGet(t, srv.info.HTTPURL+"/tlog/"+torchwood.TilePath(tlog.Tile{H: torchwood.TileHeight, L: -1, N: 0, W: int(width)}))
	var tree headlog.MemTree
	for rest := bundle; len(rest) > 0; {
		e, r, err := torchwood.ReadTileEntry(rest)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := headlog.ParseEntry(e); err != nil {
			t.Fatal(err)
		}
		_, _ = tree.Append(e)
		rest = r
	}
	if cp.Size <= torchwood.TileWidth {
		if root, _ := tlog.TreeHash(tree.Size(), &tree); root != cp.Hash || tree.Size() != cp.Size {
			t.Fatalf("the served entries (%d) do not hash to the checkpoint's root", tree.Size())
		}
	}
	srv.stop()
	<-srv.exited

	// The witness restarts: it still knows the tree it co-signed.
	w.stop(t)
	w = startWitness(t, wdir, logKey)
	k, _ := auth.ReadKey(filepath.Join(dir, identity.File))
	signer, _ := headlog.NewSigner(ed25519.PrivateKey(k.Private))
	other, _ := headlog.Sign(signer, cp.Size+3, tlog.Hash{9})
	post := func(body []byte) (int, string) {
		resp, err := http.Post(w.url+"/add-checkpoint", "text/plain", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(witness.Request(0, nil, other.Note)); code != http.StatusConflict || strings.TrimSpace(body) != itoa(uint64(cp.Size)) {
		t.Fatalf("old 0 after a restart: %d %q, want 409 naming %d", code, body, cp.Size)
	}
	if code, body := post(witness.Request(cp.Size, []tlog.Hash{{1}, {2}}, other.Note)); code != http.StatusUnprocessableEntity {
		t.Fatalf("another history: %d %q, want 422", code, body)
	}
	forged := bytes.Replace(other.Note, []byte("\n"+itoa(uint64(other.Size))+"\n"), []byte("\n"+itoa(uint64(other.Size+1))+"\n"), 1)
	if code, body := post(witness.Request(cp.Size, nil, forged)); code != http.StatusForbidden {
		t.Fatalf("a forged checkpoint: %d %q, want 403", code, body)
	}
	foreign, _ := auth.GenerateKey("", "")
	fs, _ := headlog.NewSigner(foreign.Private)
	fc, _ := headlog.Sign(fs, 4, tlog.Hash{1})
	if code, body := post(witness.Request(0, nil, fc.Note)); code != http.StatusNotFound {
		t.Fatalf("a log it does not witness: %d %q, want 404", code, body)
	}
	if code, body := post([]byte("nonsense")); code != http.StatusBadRequest {
		t.Fatalf("a malformed request: %d %q, want 400", code, body)
	}
}

func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", url, resp.Status, b)
	}
	return b
}

// mustCheckpoint is the checkpoint this CLI kept of the data
// directory's recorder (beside its receipts).
func mustCheckpoint(t *testing.T, dir string, pub ed25519.PublicKey) headlog.Checkpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir+".receipts", auth.PublicHex(pub)+".checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := headlog.Open(b, pub)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}
