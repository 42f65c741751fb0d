package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const example = "../../../../examples/3e-boltguns-vs-boyz.yaml"

var matchID = regexp.MustCompile(`^[0-9a-f]{12}\n$`)

// TestMain keeps the key files and receipts the tests make out of the
// user's home and out of the source tree.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "matchrec-keys-")
	if err != nil {
		panic(err)
	}
	os.Setenv("MATCHREC_KEYS", filepath.Join(dir, "keys"))
	os.Setenv("MATCHREC_RECEIPTS", filepath.Join(dir, "receipts"))
	if args := os.Getenv(witnessProcessEnv); args != "" {
		// This test binary, started again as a witness: a second process.
		os.Exit(runWitnessProcess(args))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the CLI in-process on data directory dir ("" for none: the
// command then names its server itself).
func run(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// The in-process recorder's goroutines log to stderr while the command
	// prints: both must be safe for concurrent writers.
	var out, errb syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if dir != "" {
		// Each data directory has its participants' receipts beside it.
		args = append([]string{"--data", dir, "--receipts", dir + ".receipts"}, args...)
	}
	code = Run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, out, errs := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("matchrec %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

func TestPlayExampleThenLogAndState(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, dir, "play", example)
	if !matchID.MatchString(out) {
		t.Fatalf("play printed %q, want a match id", out)
	}
	id := strings.TrimSpace(out)

	log := mustRun(t, dir, "log", id)
	for _, want := range []string{
		"» Turn 1 — Tactical Squad fires 9 boltguns and a heavy bolter (12 shots) at Ork Boyz: 8 hits on 3+, 5 wounds on 4+/3+, 1 save on 6+ — 4 models removed (Ork Boy ×4)",
		"Alice rolls 9 D6 to hit (boltgun), needing 3+: 6 5 3 3 2 1 4 5 2 — 6 successes [manual]",
		"[digital]",
		"The match ends: Alice wins",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	var s projector.State
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "state", id)), &s); err != nil {
		t.Fatalf("state --json: %v", err)
	}
	if s.Match != id || !s.Ended || s.Winner != "alice" || s.Unit("nobz") == nil || len(s.Unit("nobz").AliveModels()) != 3 {
		t.Fatalf("unexpected final state: match %s ended %v winner %q", s.Match, s.Ended, s.Winner)
	}
	var early projector.State
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "state", id, "--at", "5")), &early); err != nil || early.Seq != 5 {
		t.Fatalf("state --at 5: seq %d, %v", early.Seq, err)
	}
	text := mustRun(t, dir, "state", id)
	if !strings.Contains(text, "ended: Alice won") || !strings.Contains(text, "Nob Mob (nobz)") {
		t.Errorf("state text:\n%s", text)
	}

	// log --json: one object per line, every field there.
	lines := strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "log", id)), "\n")
	if uint64(len(lines)) != s.Seq {
		t.Fatalf("%d JSON lines for %d events", len(lines), s.Seq)
	}
	for _, l := range lines {
		var e map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log --json line %q: %v", l, err)
		}
		for _, k := range []string{"seq", "type", "time", "actor", "payload", "hash", "text"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("log --json line lacks %q: %s", k, l)
			}
		}
	}

	if ms := listMatches(t, dir); len(ms) != 1 || ms[0].ID != id || ms[0].Edition != "3e" {
		t.Fatalf("matches: %+v", ms)
	}
}

func TestHelpForEveryCommand(t *testing.T) {
	dir := t.TempDir()
	a := &app{}
	for _, c := range a.root().Commands() {
		t.Run(c.Name(), func(t *testing.T) {
			out := mustRun(t, dir, c.Name(), "--help")
			if !strings.Contains(out, "Usage:") || !strings.Contains(out, "Examples:") || !strings.Contains(out, "matchrec "+c.Name()) {
				t.Errorf("help of %s lacks usage or examples:\n%s", c.Name(), out)
			}
		})
	}
	if out := mustRun(t, dir, "--help"); !strings.Contains(out, "play") {
		t.Errorf("root help:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, node.StoreFile)); !os.IsNotExist(err) {
		t.Error("asking for help opened the store")
	}
}

func TestTruncatedScriptRecordsNothing(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside a flow list of dice: the rest of the file is lost.
	cut := bytes.Index(b, []byte("values: [6, 5, 3"))
	path := filepath.Join(t.TempDir(), "cut.yaml")
	if err := os.WriteFile(path, b[:cut+12], 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, dir, "play", path)
	if code != ExitUsage || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit %d and no output", code, out, ExitUsage)
	}
	if !strings.HasPrefix(errs, "error: bad_script: ") || !strings.Contains(errs, "cut.yaml") || !strings.Contains(errs, "line") {
		t.Errorf("unclear error: %s", errs)
	}
	if got := listMatches(t, dir); len(got) != 0 {
		t.Errorf("a match was recorded: %+v", got)
	}
	// --json errors are JSON too.
	code, _, errs = run(t, dir, "--json", "play", path)
	var e struct {
		Error struct{ Code, Message string }
	}
	if code != ExitUsage || json.Unmarshal([]byte(errs), &e) != nil || e.Error.Code != "bad_script" {
		t.Errorf("--json error: exit %d, %s", code, errs)
	}
}

// A step made with the wrong side's token is refused and play stops there
// with the step named. The rehearsal in memory catches it first, so nothing
// is recorded; with --keep-partial the steps before it are, and only them.
func TestWrongRoleStepIsRefused(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	// The refused step comes after a few good ones: turn 1 and a phase.
	bad := bytes.Replace(b, []byte("  - {as: alice, cmd: {type: phase, phase: shooting}"), []byte("  - {as: bob, cmd: {type: phase, phase: shooting}"), 1)
	path := filepath.Join(t.TempDir(), "wrong.yaml")
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, dir, "play", path)
	if code != ExitRefused || !strings.Contains(errs, "error: not_your_turn: step 2 (line") || !strings.Contains(errs, "phase as bob:") ||
		!strings.Contains(errs, "nothing recorded") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := listMatches(t, dir); len(got) != 0 {
		t.Fatalf("a refused play left a match behind: %+v", got)
	}

	code, _, errs = run(t, dir, "play", path, "--keep-partial")
	if code != ExitRefused || !strings.Contains(errs, "error: not_your_turn: step 2 (line") {
		t.Fatalf("--keep-partial: exit %d: %s", code, errs)
	}
	// The match exists (its id is in the message) with its creation and
	// step 1: one event more than a match created from the same setup.
	ms := listMatches(t, dir)
	if len(ms) != 1 {
		t.Fatalf("matches: %+v", ms)
	}
	if !strings.Contains(errs, ms[0].ID) {
		t.Errorf("the error does not name match %s: %s", ms[0].ID, errs)
	}
	var created api.CreateResult
	if err := json.Unmarshal([]byte(mustRun(t, t.TempDir(), "--json", "new", example)), &created); err != nil {
		t.Fatal(err)
	}
	if ms[0].Head != created.Seq+1 {
		t.Fatalf("the partial match has %d events; creation and step 1 make %d", ms[0].Head, created.Seq+1)
	}
}

func TestUnknownMatchIsNotFound(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"log", "nosuchmatch"}, {"state", "nosuchmatch"}} {
		code, _, errs := run(t, dir, args...)
		if code != ExitRefused || !strings.HasPrefix(errs, "error: not_found: ") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"frobnicate"},
		{"play"},
		{"play", "a", "b"},
		{"play", filepath.Join(dir, "missing.yaml")},
		{"log"},
		{"state", "m1", "--at", "soon"},
		{"--log-level", "loud", "matches"},
		{"roll", "m1", "--token", "t"},
		{"roll", "m1", "--token", "t", "--values", "1,2", "--digital"},
		{"declare", "m1", "--token", "t"},
		{"declare", "m1", "--token", "t", "--command", `{"type":"shoot","tagret":"x"}`},
		{"declare", "m1", "--token", "t", "--type", "shoot", "--weapon", "nonsense"},
		{"declare", "m1", "--type", "next-turn"},
		{"new"},
		{"version", "extra"},
	} {
		code, _, errs := run(t, dir, args...)
		if code != ExitUsage || !strings.HasPrefix(errs, "error: ") {
			t.Errorf("%v: exit %d, want %d; stderr %q", args, code, ExitUsage, errs)
		}
	}
}

// new prints the tokens; declare and roll (manual and digital) use them;
// a refusal exits 1 with its code.
func TestNewDeclareRoll(t *testing.T) {
	dir := t.TempDir()
	var created api.CreateResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "new", example, "--id", "duel-1")), &created); err != nil {
		t.Fatal(err)
	}
	alice, bob := created.Tokens["player:alice"], created.Tokens["player:bob"]
	if created.Match != "duel-1" || alice == "" || bob == "" || created.Tokens["judge"] == "" {
		t.Fatalf("new: %+v", created)
	}
	mustRun(t, dir, "declare", "duel-1", "--token", alice, "--type", "next-turn")
	mustRun(t, dir, "declare", "duel-1", "--token", alice, "--command", `{"type":"phase","phase":"shooting"}`)

	code, _, errs := run(t, dir, "declare", "duel-1", "--token", bob, "--type", "shoot", "--unit", "boyz", "--target", "tac")
	if code != ExitRefused || !strings.HasPrefix(errs, "error: not_your_turn: ") {
		t.Fatalf("bob out of turn: exit %d, %s", code, errs)
	}
	out := mustRun(t, dir, "declare", "duel-1", "--token", alice, "--type", "shoot", "--unit", "tac", "--target", "boyz", "--weapon", "tac-sgt=boltgun")
	if !strings.Contains(out, "Tactical Squad shoots at Ork Boyz") || !strings.Contains(out, "next: Alice rolls 9 D6 to hit (boltgun), needing 3+") {
		t.Fatalf("declare output:\n%s", out)
	}
	code, _, errs = run(t, dir, "roll", "duel-1", "--token", alice, "--values", "1,2,3,4,5,6,7,1,2")
	if code != ExitRefused || !strings.HasPrefix(errs, "error: bad_dice: ") {
		t.Fatalf("a 7: exit %d, %s", code, errs)
	}
	out = mustRun(t, dir, "roll", "duel-1", "--token", alice, "--values", "1,2,3,4,5,6,1,2,3")
	if !strings.Contains(out, "Alice rolls 9 D6 to hit (boltgun), needing 3+: 1 2 3 4 5 6 1 2 3 — 5 successes [manual]") {
		t.Fatalf("manual roll output:\n%s", out)
	}
	out = mustRun(t, dir, "roll", "duel-1", "--token", alice, "--digital")
	if !regexp.MustCompile(`Alice rolls 3 D6 to hit \(heavy bolter\), needing 3\+: [1-6] [1-6] [1-6] — \d success(es)? \[digital\]`).MatchString(out) {
		t.Fatalf("digital roll output:\n%s", out)
	}
	t.Setenv("MATCHREC_TOKEN", created.Tokens["judge"])
	mustRun(t, dir, "declare", "duel-1", "--type", "end", "--reason", "test over")
	code, _, errs = run(t, dir, "declare", "duel-1", "--token", alice, "--type", "next-turn")
	if code != ExitRefused || !strings.HasPrefix(errs, "error: match_ended: ") {
		t.Fatalf("after the end: exit %d, %s", code, errs)
	}
}

// A data directory held by another process that does not serve it is
// reported as such, quickly.
func TestLockedDataDir(t *testing.T) {
	dir := t.TempDir()
	n, err := node.Open(context.Background(), node.Config{DataDir: dir, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	code, _, errs := run(t, dir, "matches")
	if code != ExitUsage || !strings.Contains(errs, "error: locked: ") || !strings.Contains(errs, "in use by another matchrec process") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// A stale server.json (its server gone) does not stop commands.
func TestStaleServerFile(t *testing.T) {
	dir := t.TempDir()
	stale := `{"nats_url":"nats://127.0.0.1:1","pid":1}`
	if err := os.WriteFile(filepath.Join(dir, node.ServerFile), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, dir, "matches"); !strings.Contains(out, "no matches") {
		t.Fatalf("matches: %q", out)
	}
}

// serve runs until its context ends; meanwhile other commands on the same
// data directory reach it through server.json (the store is locked, so
// they could not have opened it themselves), and it cleans up on exit.
func TestServeThenCommandsUseIt(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, dir)
	si := srv.info
	if !strings.HasPrefix(si.NATSURL, "nats://127.0.0.1:") || si.PID != os.Getpid() {
		t.Fatalf("server.json: %+v", si)
	}
	id := strings.TrimSpace(mustRun(t, dir, "play", example))
	if out := mustRun(t, dir, "--server", si.NATSURL, "matches"); !strings.Contains(out, id) {
		t.Fatalf("--server matches:\n%s", out)
	}
	// From elsewhere, with the client credentials the server wrote.
	if out := mustRun(t, t.TempDir(), "--server", si.NATSURL, "--nats-creds", si.ClientCreds, "log", id); !strings.Contains(out, "The match ends") {
		t.Fatalf("--server log:\n%s", out)
	}

	srv.stop()
	select {
	case <-srv.exited:
		if srv.code != 0 {
			t.Fatalf("serve exited %d: %s", srv.code, srv.serr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := os.Stat(filepath.Join(dir, node.ServerFile)); !os.IsNotExist(err) {
		t.Fatalf("server.json left behind: %v", err)
	}
	// With the server gone, the same directory opens in-process.
	if out := mustRun(t, dir, "matches"); !strings.Contains(out, id) {
		t.Fatalf("matches after serve:\n%s", out)
	}
	code, _, errs := run(t, dir, "--server", si.NATSURL, "matches")
	if code != ExitUsage || !strings.Contains(errs, "error: unavailable: ") {
		t.Fatalf("--server of a stopped server: exit %d, %s", code, errs)
	}
}

// served is a `matchrec serve` running in the test (startServe).
type served struct {
	info   node.ServerInfo
	stop   func()        // what SIGTERM does
	exited chan struct{} // closed when serve has returned, with code
	code   int
	serr   *bytes.Buffer // its log (warnings)
}

// startServe runs `serve` on dir (any free ports) until stop or the end of
// the test, and waits for its server.json.
func startServe(t *testing.T, dir string, flags ...string) *served {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	s := &served{stop: stop, exited: make(chan struct{}), serr: &bytes.Buffer{}}
	args := append([]string{"--data", dir, "--log-level", "warn", "serve", "--nats-listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}, flags...)
	go func() {
		defer close(s.exited)
		s.code = Run(ctx, args, strings.NewReader(""), &bytes.Buffer{}, s.serr)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		if s.info, err = node.ReadServerFile(dir); err == nil {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited %d: %s", s.code, s.serr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve never wrote server.json")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server.json that names a live recorder of another data directory is
// not trusted: commands must never read or write someone else's matches.
func TestServerFileOfAnotherDataDir(t *testing.T) {
	served, mine := t.TempDir(), t.TempDir()
	n, err := node.Open(context.Background(), node.Config{DataDir: served, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	other := mustRun(t, "", "--server", n.URL(), "--nats-creds", n.CredsPath(natsbus.RoleClient), "play", example)
	si := `{"nats_url":"` + n.URL() + `","pid":1}`
	if err := os.WriteFile(filepath.Join(mine, node.ServerFile), []byte(si), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, mine, "matches"); strings.Contains(out, strings.TrimSpace(other)) {
		t.Fatalf("matches of %s shows %s's match:\n%s", mine, served, out)
	}
}

// expect_refusal is a claim about the rules: a step that is accepted, or
// refused for another reason, fails the play.
func TestExpectRefusalMustHold(t *testing.T) {
	b, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to, code string
	}{
		{"accepted", "  - {as: alice, cmd: {type: next-turn}}\n", "  - {as: alice, cmd: {type: next-turn}, expect_refusal: not_your_turn}\n", "not_refused"},
		{"another code", "expect_refusal: heavy_after_moving", "expect_refusal: out_of_range", "wrong_refusal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, bytes.Replace(b, []byte(c.from), []byte(c.to), 1), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, errs := run(t, t.TempDir(), "play", path)
			if code != ExitRefused || !strings.HasPrefix(errs, "error: "+c.code+": step ") {
				t.Fatalf("exit %d: %s", code, errs)
			}
		})
	}
}

// repair-bus on a match whose bus copy is the record's has nothing to do
// and says so; on an unknown match it fails with not_found (the repair
// itself is cmd/matchrec/internal/node's TestRepairBusRepairsOneMatch).
func TestRepairBusCommand(t *testing.T) {
	dir := t.TempDir()
	id := strings.TrimSpace(mustRun(t, dir, "play", example))
	if out := mustRun(t, dir, "repair-bus", id); !strings.Contains(out, "is the record's: nothing to repair") {
		t.Fatalf("repair-bus: %q", out)
	}
	if code, _, errs := run(t, dir, "repair-bus", "no-such-match"); code != 1 || !strings.Contains(errs, "not_found") {
		t.Fatalf("repair-bus of an unknown match: exit %d, %s", code, errs)
	}
}
