package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// progress draws a one-line progress bar on stderr for long work. It stays
// silent for the first second (short work needs no bar), when stderr is
// not a terminal (logs and CI want no carriage returns), and with --json.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	start   time.Time
	last    time.Time
	on      bool
	drawn   bool
	enabled bool
}

// newProgress returns a bar labelled label; it draws only on a terminal.
func (a *app) newProgress(label string) *progress {
	p := &progress{w: a.stderr, label: label, start: time.Now()}
	if f, ok := a.stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) && !a.json {
		p.enabled = true
	}
	return p
}

// Update reports done of total (total 0: unknown).
func (p *progress) Update(done, total int) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	if total <= 0 {
		fmt.Fprintf(p.w, "\r%s: %d", p.label, done)
		return
	}
	const width = 30
	n := width * done / total
	eta := ""
	if done > 0 && done < total {
		left := time.Duration(float64(now.Sub(p.start)) * float64(total-done) / float64(done))
		eta = fmt.Sprintf(" ~%s left", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d%s ", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), done, total, eta)
}

// Done clears the bar if one was drawn.
func (p *progress) Done() {
	if p == nil || !p.drawn {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", len(p.label)+60))
}
