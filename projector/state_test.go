package projector

import (
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
)

// The state hash needs one encoding per state: no map msgpack would encode
// in random order, and no interface, may sit in an encoded field of State.
func TestStateEncodesCanonically(t *testing.T) {
	for _, bad := range events.NonCanonical("State", reflect.TypeOf(State{})) {
		t.Errorf("%s: msgpack would not encode it one way only", bad)
	}
}
