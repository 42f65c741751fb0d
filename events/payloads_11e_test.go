package events

import (
	"reflect"
	"testing"
)

// Families are written by different people at once: a type name claimed by
// two families would decode as whichever comes first. Names must be unique.
func TestEventTypeNamesAreUnique(t *testing.T) {
	seen := map[Type]bool{}
	for _, name := range KnownTypes() {
		if seen[name] {
			t.Errorf("event type %q is defined twice", name)
		}
		seen[name] = true
	}
}

func TestPayloads11eRoundTrip(t *testing.T) {
	ps := []Payload{
		&ShootingPhaseStep{Step: StepShoot},
		&AdvanceDeclared{Unit: "u"},
		&ActionStarted{Unit: "u", Action: "cleanse"},
		&AttackAllocated{Model: "m"},
		&RerollChosen{Seq: 7, Indices: []int{0, 3}, Source: "re-roll hit rolls of 1"},
		&RerollDeclined{Seq: 9},
	}
	if len(ps) != len(ed11eTypes()) {
		t.Fatalf("test covers %d of %d 11e types", len(ps), len(ed11eTypes()))
	}
	for _, p := range ps {
		b, err := EncodePayload(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodePayload(p.EventType(), p.SchemaVersion(), b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s: round trip gives %+v, want %+v", p.EventType(), got, p)
		}
	}
}
