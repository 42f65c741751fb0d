package projector

import (
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
)

// The state hash needs one encoding per state: no map msgpack would encode
// in random order, and no interface but the editions' Ext, may sit in an
// encoded field of State. (projector/editions walks Ext through every
// edition's own types.)
func TestStateEncodesCanonically(t *testing.T) {
	ext := map[reflect.Type][]reflect.Type{reflect.TypeOf((*Ext)(nil)).Elem(): nil}
	for _, bad := range events.NonCanonical("State", reflect.TypeOf(State{}), ext) {
		t.Errorf("%s: msgpack would not encode it one way only", bad)
	}
}
