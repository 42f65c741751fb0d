package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkLogLongMatch: `matchrec log` of a 100,000-event match, through
// an in-process recorder (the CLI's default), output discarded. Reports
// seconds per log.
func BenchmarkLogLongMatch(b *testing.B) {
	dir := longData(b)
	for _, args := range [][]string{{"log", longMatchID}, {"--json", "log", longMatchID}} {
		b.Run(strings.Join(args, "-"), func(b *testing.B) {
			for b.Loop() {
				t0 := time.Now()
				code := Run(context.Background(), append([]string{"--data", dir}, args...), strings.NewReader(""), io.Discard, io.Discard)
				if code != 0 {
					b.Fatalf("exit %d", code)
				}
				b.ReportMetric(time.Since(t0).Seconds(), "s/log")
			}
		})
	}
}
