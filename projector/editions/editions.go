// Package editions names every edition this build knows. It is the one
// place an edition is registered (the projector package doc says what an
// edition implements): its rules, events, narration, state, chooser and
// the rest are methods and abilities of the value listed here.
package editions

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed11e"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/ed6e"
)

// all lists the editions, one line each, in the order IDs gives them.
func all() []projector.Rules {
	return []projector.Rules{
		ed3e.Rules{},
		ed6e.Rules{},
		ed11e.Rules{},
	}
}

// IDs lists the known edition ids.
func IDs() []string {
	var out []string
	for _, r := range all() {
		out = append(out, r.Edition())
	}
	return out
}

// Lookup returns the rules of an edition.
func Lookup(id string) (projector.Rules, error) {
	for _, r := range all() {
		if r.Edition() == id {
			return r, nil
		}
	}
	return nil, fmt.Errorf("unknown edition %q (known: %v)", id, IDs())
}
