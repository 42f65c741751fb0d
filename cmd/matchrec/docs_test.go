package main

// Every command and query the documentation shows runs as written.
//
//	go test ./cmd/matchrec -run TestDocs            # every document
//	go test ./cmd/matchrec -run TestDocs/README.md  # one
//
// The test reads README.md and docs/**/*.md, takes their fenced code
// blocks and runs them, each document against a fresh data directory
// where the examples are played and a few matches of every edition are
// generated (a real bbolt store; each command starts its recorder in
// process, as on a laptop):
//
//   - ```sh, ```bash, ```shell and ```console blocks are shell commands,
//     run by bash in order, in one shell per document (so a variable a
//     block exports is there for the next), in a scratch directory where
//     examples/ and tools/ are the repository's, with `matchrec` on the PATH. In a
//     block where some lines start with "$ ", only those are commands
//     (the others are what they print); otherwise every line is, but
//     comments. A line ending in "\" goes on on the next.
//   - ```sql blocks are queries: each statement (ended by ";") runs with
//     `matchrec sql` and must return at least one row.
//   - ```python blocks run with python3, when it is installed.
//   - Any other block (```text, ```json, ```yaml, ```go, or none) is shown,
//     not run; so is a block right after the comment
//     <!-- docs-test: skip (why) -->, for commands that need what a test
//     cannot give (a server left running, the nats CLI, minutes of
//     benchmarks).
//
// A command passes when it exits 0 and prints no "error:" line, and,
// where the document shows what it prints — the lines after a "$ " line,
// up to the next one (a line starting with "#" there is a comment) — when
// its output is exactly those lines, so a document can never show numbers
// the program does not give. In the lines shown:
//
//   - a line of only "…" stands for any number of lines (none included);
//   - "…" within a line stands for any text;
//   - hex digits right before a "…" ("5c1f…", "SHA-256 0c61994abb6b…")
//     stand for any hex digits: an abbreviated token, hash or key;
//   - <id> is a random match id (12 hex digits), <token> a token and
//     <hash> a hash (hex digits): what changes from run to run.
//
// A ```text block with "$ " lines is shown, never run: it needs the
// <!-- docs-test: skip (why) --> comment too, saying why it cannot run.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/cli"
)

// asCLI makes the test binary the matchrec command: the shell the test
// runs finds a `matchrec` script on its PATH that runs this binary with
// it set.
const asCLI = "MATCHREC_DOCS_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// block is one fenced code block of a document.
type block struct {
	lang string
	line int // of the opening fence
	text string
	skip string // why it is not run, from the marker comment
}

var skipMarker = regexp.MustCompile(`<!--\s*docs-test:\s*skip\b\s*(.*?)\s*-->`)

// blocks reads the fenced code blocks of a Markdown file.
func blocks(t *testing.T, path string) []block {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		out   []block
		cur   *block
		fence string
		skip  string
		body  strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			fence = trimmed[:strings.LastIndex(trimmed, "`")+1]
			info := strings.Fields(strings.TrimPrefix(trimmed, fence) + " ")
			cur = &block{line: n, skip: skip}
			if len(info) > 0 {
				cur.lang = info[0]
			}
			body.Reset()
		case cur != nil && trimmed == fence:
			cur.text = body.String()
			out = append(out, *cur)
			cur, skip = nil, ""
		case cur != nil:
			body.WriteString(l + "\n")
		case skipMarker.MatchString(l):
			skip = strings.Trim(skipMarker.FindStringSubmatch(l)[1], "() ")
			if skip == "" {
				skip = "marked"
			}
		case trimmed != "":
			skip = "" // the marker is for the block right after it
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a code block is never closed", path, cur.line)
	}
	return out
}

// command is one shell command of a block and what the block shows it
// printing (nil: nothing shown, nothing compared).
type command struct {
	text string
	want []string
}

// commands are the shell commands of a block (see the package comment).
func commands(text string) []string {
	var out []string
	for _, c := range commandsShown(text) {
		out = append(out, c.text)
	}
	return out
}

// commandsShown are the shell commands of a block, each with the output
// the block shows for it.
func commandsShown(text string) []command {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	prompted := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "$ ") })
	var out []command
	var cont string
	shown := false // the lines after a "$ " line are its output
	for _, l := range lines {
		if cont != "" {
			cont += "\n" + l
			if !strings.HasSuffix(l, "\\") {
				out, cont = append(out, command{text: cont}), ""
			}
			continue
		}
		switch {
		case prompted && !strings.HasPrefix(l, "$ "):
			if s := strings.TrimSpace(l); shown && len(out) > 0 && !strings.HasPrefix(s, "#") {
				c := &out[len(out)-1]
				c.want = append(c.want, strings.TrimRight(l, " \t"))
			}
			continue
		case prompted:
			l = strings.TrimPrefix(l, "$ ")
		}
		shown = false
		if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cont = l
			continue
		}
		out = append(out, command{text: l})
		shown = prompted
	}
	for i := range out {
		w := out[i].want
		for len(w) > 0 && w[len(w)-1] == "" {
			w = w[:len(w)-1]
		}
		out[i].want = w
	}
	return out
}

// placeholders are what the shown output may stand for where the real one
// changes from run to run (the package comment).
var placeholders = strings.NewReplacer(
	"<id>", "[0-9a-f]{12}",
	"<token>", "[0-9a-f]+",
	"<hash>", "[0-9a-f]+",
)

var hexTail = regexp.MustCompile(`[0-9a-f]+$`)

// linePattern is the regular expression a shown line stands for.
func linePattern(shown string) *regexp.Regexp {
	parts := strings.Split(shown, "…")
	var b strings.Builder
	b.WriteString("^")
	for i, part := range parts {
		if i > 0 {
			b.WriteString(".*?")
		}
		if loc := hexTail.FindStringIndex(part); loc != nil && i < len(parts)-1 {
			// Hex digits right before an ellipsis are an abbreviation.
			b.WriteString(placeholders.Replace(regexp.QuoteMeta(part[:loc[0]])) + "[0-9a-f]+")
			continue
		}
		b.WriteString(placeholders.Replace(regexp.QuoteMeta(part)))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// matchOutput reports whether got (a command's stdout, as lines) is what
// want shows of it: line by line, a line of only "…" taking any number of
// lines. It returns -1 when it is, else the first shown line (0-based)
// that cannot match.
func matchOutput(want, got []string) int {
	pats := make([]*regexp.Regexp, len(want)) // nil: a line of only "…"
	for i, w := range want {
		if strings.TrimSpace(w) != "…" {
			pats[i] = linePattern(w)
		}
	}
	// reach[g]: the shown lines so far can match the first g lines of got.
	reach := make([]bool, len(got)+1)
	reach[0] = true
	for i, p := range pats {
		next := make([]bool, len(got)+1)
		any := false
		for g := 0; g <= len(got); g++ {
			switch {
			case p == nil:
				next[g] = reach[g] || (g > 0 && next[g-1])
			default:
				next[g] = g > 0 && reach[g-1] && p.MatchString(got[g-1])
			}
			any = any || next[g]
		}
		if !any {
			return i
		}
		reach = next
	}
	if !reach[len(got)] {
		return len(want) // more lines printed than shown
	}
	return -1
}

// outputLines are a command's stdout as lines, each without trailing
// blanks, with no blank lines at the end.
func outputLines(out string) []string {
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// statements splits a block of SQL at the ";" that end lines.
func statements(text string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(text, "\n") {
		cur.WriteString(l + "\n")
		if strings.HasSuffix(strings.TrimSpace(l), ";") {
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, strings.TrimSuffix(s, ";"))
			}
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" && !onlyComments(s) {
		out = append(out, s)
	}
	return out
}

func onlyComments(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}

// documents lists README.md and every docs/ page, README first.
func documents(t *testing.T, root string) []string {
	docs := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// runs reports whether a block is run at all.
func runs(b block) bool {
	switch b.lang {
	case "sh", "bash", "shell", "console", "sql", "python":
		return b.skip == ""
	}
	return false
}

// sandbox is where a document's commands run: a data directory prepared
// as the package comment says, a scratch working directory, and the
// matchrec command on the PATH.
type sandbox struct {
	root, dir, data, bin string
	env                  []string
}

// newSandbox prepares a sandbox, or copies from's (nil: plays the examples
// and generates the matches itself).
func newSandbox(t *testing.T, root string, from *sandbox) *sandbox {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb := &sandbox{root: root, dir: t.TempDir(), data: t.TempDir(), bin: t.TempDir()}
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asCLI, self)
	if err := os.WriteFile(filepath.Join(sb.bin, "matchrec"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"examples", "tools"} { // what the documents name by path
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(sb.dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	sb.env = append(os.Environ(), "PATH="+sb.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MATCHREC_DATA="+sb.data, "HOME="+sb.dir, "MATCHREC_TOKEN=")
	if from == nil {
		examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
		for _, ex := range examples {
			sb.must(t, "matchrec", "play", ex)
		}
		for _, ed := range []string{"3e", "6e", "11e"} {
			sb.must(t, "matchrec", "generate", "--edition", ed, "--matches", "8", "--seed", "424242")
		}
		return sb
	}
	// A copy of from's data directory and home (keys, receipts): the same
	// matches for a fraction of the cost of playing them again.
	for _, d := range [][2]string{{from.data, sb.data}, {from.dir, sb.dir}} {
		if out, err := exec.Command("cp", "-a", "--no-clobber", d[0]+"/.", d[1]).CombinedOutput(); err != nil {
			t.Fatalf("copying the prepared sandbox: %v\n%s", err, out)
		}
	}
	return sb
}

// cmd runs in a process group of its own, so that whatever a document
// starts in the background (a `matchrec serve &`) dies with it: killGroup
// after it returns, and on the context's end.
func (sb *sandbox) cmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir, c.Env = sb.dir, sb.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return killGroup(c) }
	c.WaitDelay = 10 * time.Second
	return c
}

// killGroup kills c's process group: c and everything it started.
func killGroup(c *exec.Cmd) error {
	if c.Process == nil {
		return nil
	}
	return syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
}

// bounded is a context for a step of the docs test that ends a little
// before the test binary's own deadline (go test -timeout), so a hung
// command fails with its document named, however slowly a loaded machine
// runs the rest: a fixed bound of minutes killed a document's shell on a
// busy 2-core machine while it was still working (issue 22).
func bounded(t *testing.T) (context.Context, context.CancelFunc) {
	if d, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), d.Add(-30*time.Second))
	}
	return context.WithTimeout(context.Background(), time.Hour)
}

func (sb *sandbox) must(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := bounded(t)
	defer cancel()
	var stderr bytes.Buffer
	c := sb.cmd(ctx, filepath.Join(sb.bin, name), args...)
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("setting up: %s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// shell runs cmds in one bash, each with its own output files, and
// returns for each its exit status and what it printed on stderr and
// stdout.
func (sb *sandbox) shell(t *testing.T, cmds []string) (codes []int, stderrs, stdouts []string) {
	t.Helper()
	out := t.TempDir()
	var script strings.Builder
	script.WriteString("set -o pipefail\n")
	for i, c := range cmds {
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q </dev/null\necho $? >%q\n", c,
			filepath.Join(out, fmt.Sprint(i, ".out")), filepath.Join(out, fmt.Sprint(i, ".err")), filepath.Join(out, fmt.Sprint(i, ".rc")))
	}
	ctx, cancel := bounded(t)
	defer cancel()
	c := sb.cmd(ctx, "bash", "-c", script.String())
	b, err := c.CombinedOutput()
	_ = killGroup(c) // what the document left running in the background
	if err != nil {
		t.Fatalf("the shell stopped: %v\n%s", err, b)
	}
	for i := range cmds {
		rc, err := os.ReadFile(filepath.Join(out, fmt.Sprint(i, ".rc")))
		if err != nil {
			t.Fatalf("command %d did not finish: %v", i, err)
		}
		code := -1
		fmt.Sscan(string(rc), &code)
		errb, _ := os.ReadFile(filepath.Join(out, fmt.Sprint(i, ".err")))
		outb, _ := os.ReadFile(filepath.Join(out, fmt.Sprint(i, ".out")))
		codes, stderrs, stdouts = append(codes, code), append(stderrs, string(errb)), append(stdouts, string(outb))
	}
	return codes, stderrs, stdouts
}

var errorLine = regexp.MustCompile(`(?m)^(error: |\{"error":|panic: )`)

func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("the README's commands use jq: install it (apt-get install jq; .ci/run does)")
	}
	prepared := newSandbox(t, root, nil) // played once, copied for each document
	for _, doc := range documents(t, root) {
		rel, _ := filepath.Rel(root, doc)
		bs := blocks(t, doc)
		if !slices.ContainsFunc(bs, runs) {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			t.Parallel() // each document has its own copy of the sandbox
			sb := newSandbox(t, root, prepared)
			var cmds []command
			var where []string
			flush := func() {
				if len(cmds) == 0 {
					return
				}
				texts := make([]string, len(cmds))
				for i, c := range cmds {
					texts[i] = c.text
				}
				codes, stderrs, stdouts := sb.shell(t, texts)
				for i, c := range cmds {
					if codes[i] != 0 || errorLine.MatchString(stderrs[i]) {
						t.Errorf("%s: %s\n  exit %d\n%s\n  (a block not meant to run here gets <!-- docs-test: skip (why) --> above it)", where[i], c.text, codes[i], indent(stderrs[i]))
						continue
					}
					if c.want == nil {
						continue
					}
					if bad := matchOutput(c.want, outputLines(stdouts[i])); bad >= 0 {
						line := "(the end: it prints more than the document shows)"
						if bad < len(c.want) {
							line = c.want[bad]
						}
						t.Errorf("%s: %s\n  prints what the document does not show, from the shown line\n    %s\n  the document shows:\n%s\n  it prints:\n%s", where[i], c.text, line, indent(strings.Join(c.want, "\n")), indent(stdouts[i]))
					}
				}
				cmds, where = nil, nil
			}
			for _, b := range bs {
				at := fmt.Sprintf("%s:%d", rel, b.line)
				switch {
				case b.lang == "text" && b.skip == "" && slices.ContainsFunc(strings.Split(b.text, "\n"), func(l string) bool { return strings.HasPrefix(l, "$ ") }):
					t.Errorf("%s: a text block of \"$ \" commands is never run, so what it shows is never checked: make it a sh block, or say why it cannot run with <!-- docs-test: skip (why) -->", at)
				case b.skip != "":
					t.Logf("%s: not run (%s)", at, b.skip)
				case b.lang == "sql":
					flush()
					for _, q := range statements(b.text) {
						sb.query(t, at, q)
					}
				case b.lang == "python":
					if _, err := exec.LookPath("python3"); err != nil {
						t.Logf("%s: not run (no python3)", at)
						continue
					}
					flush()
					c := sb.cmd(context.Background(), "python3", "-")
					c.Stdin = strings.NewReader(b.text)
					if out, err := c.CombinedOutput(); err != nil {
						t.Errorf("%s: python: %v\n%s", at, err, indent(string(out)))
					}
				case runs(b):
					for _, c := range commandsShown(b.text) {
						cmds, where = append(cmds, c), append(where, at)
					}
				}
			}
			flush()
		})
	}
}

// query runs one documented SQL statement; it must return rows.
func (sb *sandbox) query(t *testing.T, at, q string) {
	t.Helper()
	var stderr bytes.Buffer
	c := sb.cmd(context.Background(), filepath.Join(sb.bin, "matchrec"), "--json", "sql", "--", q) // "--": the query may start with a comment
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Errorf("%s: %s\n  %v\n%s", at, q, err, indent(stderr.String()))
		return
	}
	var rows []map[string]any // sql --json prints an array of objects
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Errorf("%s: %s: reading the result: %v", at, q, err)
		return
	}
	if len(rows) == 0 {
		t.Errorf("%s: %s\n  returns no rows on the generated matches", at, q)
	}
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "  (nothing on stderr)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// The block reader and the command splitter themselves.
func TestDocsReader(t *testing.T) {
	md := filepath.Join(t.TempDir(), "x.md")
	text := "intro\n\n```sh\n$ matchrec play a.yaml --id x\nx\n$ matchrec log x \\\n    --from 2\n```\n\n" +
		"<!-- docs-test: skip (needs a server) -->\n```sh\nmatchrec serve\n```\n\n" +
		"<!-- docs-test: skip -->\n\ntext between\n\n```sh\n# a comment\nmatchrec matches\n```\n\n" +
		"```sql\n-- first\nSELECT 1;\n\n-- second\nSELECT 2\nFROM t;\n```\n\n```\nplain output\n```\n"
	if err := os.WriteFile(md, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	bs := blocks(t, md)
	if len(bs) != 5 {
		t.Fatalf("%d blocks: %+v", len(bs), bs)
	}
	if got := commands(bs[0].text); !slices.Equal(got, []string{"matchrec play a.yaml --id x", "matchrec log x \\\n    --from 2"}) {
		t.Errorf("prompted commands: %q", got)
	}
	if bs[1].skip != "needs a server" || runs(bs[1]) {
		t.Errorf("marked block: %+v", bs[1])
	}
	if bs[2].skip != "" || !slices.Equal(commands(bs[2].text), []string{"matchrec matches"}) {
		t.Errorf("a marker far from its block must not skip it: %+v %q", bs[2], commands(bs[2].text))
	}
	if got := statements(bs[3].text); !slices.Equal(got, []string{"-- first\nSELECT 1", "-- second\nSELECT 2\nFROM t"}) {
		t.Errorf("statements: %q", got)
	}
	if runs(bs[4]) {
		t.Errorf("a block with no language ran")
	}
}

// A document that starts something in the background (a server) leaves
// nothing running once its shell is done.
func TestDocsShellKillsWhatItStarted(t *testing.T) {
	sb := &sandbox{dir: t.TempDir(), env: os.Environ()}
	pidFile := filepath.Join(sb.dir, "pid")
	codes, _, _ := sb.shell(t, []string{"sleep 300 & echo $! >" + pidFile})
	if len(codes) != 1 || codes[0] != 0 {
		t.Fatalf("exit codes %v", codes)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		// A killed child stays a zombie until its parent reaps it; bash's
		// children are reparented to init, which does.
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d, started in the background by a document, still runs", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// What a document shows a command printing is compared with what it
// prints: a wrong event number fails, the elisions and placeholders of the
// package comment stand for what changes from run to run.
func TestDocsOutputIsCompared(t *testing.T) {
	cs := commandsShown("$ matchrec play x.yaml --id b\nb\n$ matchrec log b   # the log\n    1  Match created\n   …\n   # a comment\n$ matchrec state b\n$ matchrec new x.yaml\n\n")
	if len(cs) != 4 || !slices.Equal(cs[0].want, []string{"b"}) || !slices.Equal(cs[1].want, []string{"    1  Match created", "   …"}) || cs[2].want != nil || cs[3].want != nil {
		t.Fatalf("commands and the output shown: %+v", cs)
	}
	log := []string{"    6  Alice rolls 3 D6 to hit: 4 1 6 — 2 successes [manual]", "    7  Bob commits to a dice seed for epoch 0 (SHA-256 0c61994abb6b…)", "    8  Bob chooses casualties: boy-1, boy-2, boy-3"}
	for _, c := range []struct {
		name string
		want []string
		bad  int
	}{
		{"as printed", log, -1},
		{"a wrong event number", []string{"    7  Alice rolls 3 D6 to hit: 4 1 6 — 2 successes [manual]", "…"}, 0},
		{"wrong dice", []string{"    6  Alice rolls 3 D6 to hit: 5 1 6 — 2 successes [manual]", "…"}, 0},
		{"an elided line", []string{"…", "    8  Bob chooses casualties: boy-1, …"}, -1},
		{"an abbreviated hash", []string{"…", "    7  Bob commits to a dice seed for epoch 0 (SHA-256 ffff…)", "…"}, -1},
		{"a hash where the digits differ in length", []string{"…", "    7  Bob commits to a dice seed for epoch 0 (SHA-256 1…)", "…"}, -1},
		{"less printed than shown", append(slices.Clone(log), "    9  the end"), 3},
		{"more printed than shown", log[:2], 2},
		{"no lines where some are printed", []string{"…", "    9  Bob chooses casualties: …"}, 1},
	} {
		if got := matchOutput(c.want, log); got != c.bad {
			t.Errorf("%s: first unmatched shown line %d, want %d", c.name, got, c.bad)
		}
	}
	if matchOutput([]string{"match <id>", "token judge <token>"}, []string{"match 3fa9c2e1b7d0", "token judge d4a2bb"}) != -1 ||
		matchOutput([]string{"match <id>"}, []string{"match friday"}) != 0 {
		t.Error("placeholders")
	}
}
