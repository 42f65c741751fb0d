// Command decodegen writes the msgpack decoders of the event payloads of
// the package in the current directory (tools/decodegen). events/ runs it
// with `go generate ./events/...`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/matchrec/matchrec/tools/decodegen"
)

func main() {
	out := flag.String("o", "payloads_decode_gen.go", "the file to write, in the current directory")
	flag.Parse()
	b, err := decodegen.Generate(".", *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
