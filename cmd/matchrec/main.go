// Command matchrec records Warhammer 40,000 matches as verifiable event
// logs. See README.md and `matchrec --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/cli"
)

func main() {
	// SIGINT/SIGTERM cancel the context: serve shuts down in order, and a
	// command in flight stops waiting. A second signal kills as usual,
	// because stop() restores the default handling once the first arrives.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
