package editions

import (
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// Every edition's event types decode as themselves beside the core ones:
// no name clashes with a core type or another family's.
func TestEditionVocabulariesCheck(t *testing.T) {
	for _, id := range IDs() {
		r, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Edition() != id {
			t.Errorf("edition %s is looked up as %s", id, r.Edition())
		}
		if err := projector.Vocabulary(r).Check(); err != nil {
			t.Errorf("edition %s: %v", id, err)
		}
	}
}
