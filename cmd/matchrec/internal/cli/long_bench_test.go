package cli

import (
	"context"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLogLongMatch: `matchrec log` of a 100,000-event match, through
// an in-process recorder (the CLI's default), output discarded. Reports
// seconds per log, wall clock and CPU (the recorder and the client both:
// one process), the latter steadier on a shared machine.
func BenchmarkLogLongMatch(b *testing.B) {
	dir := longData(b)
	for _, args := range [][]string{{"log", longMatchID}, {"--json", "log", longMatchID}} {
		b.Run(strings.Join(args, "-"), func(b *testing.B) {
			for b.Loop() {
				t0, c0 := time.Now(), cpuTime()
				code := Run(context.Background(), append([]string{"--data", dir}, args...), strings.NewReader(""), io.Discard, io.Discard)
				if code != 0 {
					b.Fatalf("exit %d", code)
				}
				b.ReportMetric(time.Since(t0).Seconds(), "s/log")
				b.ReportMetric((cpuTime() - c0).Seconds(), "cpu-s/log")
			}
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
