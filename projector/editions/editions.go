// Package editions names every edition this build knows. It is the one
// place that maps an edition id to its rules.
package editions

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed11e"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/ed6e"
)

// IDs lists the known edition ids.
func IDs() []string { return []string{ed3e.Edition, ed6e.Edition, ed11e.Edition} }

// Lookup returns the rules of an edition.
func Lookup(id string) (projector.Rules, error) {
	switch id {
	case ed3e.Edition:
		return ed3e.Rules{}, nil
	case ed6e.Edition:
		return ed6e.Rules{}, nil
	case ed11e.Edition:
		return ed11e.Rules{}, nil
	}
	return nil, fmt.Errorf("unknown edition %q (known: %v)", id, IDs())
}
