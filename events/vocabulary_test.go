package events

import (
	"errors"
	"strings"
	"testing"
)

// Families are written by different people at once: a type name claimed by
// two families would decode as whichever comes first. The core's names
// are unique, and every one makes a payload of its own name.
func TestCoreVocabularyChecks(t *testing.T) {
	if err := Core().Check(); err != nil {
		t.Fatal(err)
	}
}

// An edition's family that names a core type is caught by Check; one that
// lists a name it cannot make, or makes another type, too.
func TestCheckFindsFlawedFamilies(t *testing.T) {
	clash := Family{Name: "9e", Types: []Type{TypeDiceRolled},
		New: func(t Type) Payload {
			if t == TypeDiceRolled {
				return &DiceRolled{}
			}
			return nil
		}}
	cases := map[string]struct {
		f    Family
		want string
	}{
		"clash":   {clash, `"dice.rolled" of family 9e is already a type of family core`},
		"no make": {Family{Name: "9e", Types: []Type{"x.y"}, New: func(Type) Payload { return nil }}, "makes no payload"},
		"other":   {Family{Name: "9e", Types: []Type{"x.y"}, New: func(Type) Payload { return &TurnStarted{} }}, "makes a turn.started payload"},
	}
	for name, c := range cases {
		err := Core().With(c.f).Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want %q", name, err, c.want)
		}
	}
}

// With adds to a copy: the core vocabulary never learns an edition's types.
func TestWithLeavesTheCoreAlone(t *testing.T) {
	f := Family{Name: "9e", Types: []Type{"nine.declared"}, New: func(t Type) Payload {
		if t == "nine.declared" {
			return &TurnStarted{}
		}
		return nil
	}}
	v := Core().With(f)
	if len(v.Types()) != len(Core().Types())+1 {
		t.Fatalf("With: %d types, core %d", len(v.Types()), len(Core().Types()))
	}
	if _, err := Core().NewPayload("nine.declared"); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("core decodes an edition's type: %v", err)
	}
	if _, err := v.NewPayload("nine.declared"); err != nil {
		t.Fatal(err)
	}
}
