package ed11e

import (
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

func TestEventsRoundTrip(t *testing.T) {
	ps := []events.Payload{
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
	v := projector.Vocabulary(Rules{})
	for _, p := range ps {
		b, err := events.EncodePayload(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.DecodePayload(p.EventType(), p.SchemaVersion(), b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s: round trip gives %+v, want %+v", p.EventType(), got, p)
		}
		if _, err := events.Core().DecodePayload(p.EventType(), p.SchemaVersion(), b); err == nil {
			t.Errorf("%s decodes without the 11e vocabulary", p.EventType())
		}
	}
}
