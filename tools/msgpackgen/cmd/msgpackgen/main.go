// Command msgpackgen writes the msgpack decoders of the event payloads of
// the package in the current directory (tools/msgpackgen): for x.go, the
// decoders of its types in x_gen.go. events/ runs it with `go generate
// ./events/...`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/matchrec/matchrec/tools/msgpackgen"
)

func main() {
	flag.Parse()
	files, err := msgpackgen.Generate(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, b := range files {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
