package projector

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
)

// A setup or command past a limit is refused, naming the field and the
// limit; one at the limit is not.
func TestLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	setups := map[string]func(p *events.MatchCreated){
		"match name of 201 bytes":  func(p *events.MatchCreated) { p.Name = long(MaxNameLen + 1) },
		"player name of 201 bytes": func(p *events.MatchCreated) { p.Players[0].Name = long(MaxNameLen + 1) },
		"unit name of 201 bytes":   func(p *events.MatchCreated) { p.Units[0].Name = long(MaxNameLen + 1) },
		"model id of 65 bytes":     func(p *events.MatchCreated) { p.Units[0].Models[0].ID = long(MaxIDLen + 1) },
		"keyword of 65 bytes":      func(p *events.MatchCreated) { p.Units[0].Keywords = []string{long(MaxIDLen + 1)} },
		"2001 models": func(p *events.MatchCreated) {
			for i := 0; i < MaxModels; i++ {
				p.Units[0].Models = append(p.Units[0].Models, events.ModelSpec{ID: "m" + strings.Repeat("y", i%50) + string(rune('a'+i%26)), T: 4, W: 1})
			}
		},
	}
	for name, edit := range setups {
		p := goodSetup()
		edit(&p)
		if _, err := create(plainRules{}, New("m1"), system, &p); !isRefusal(err, CodeBadRequest, "the limit is") {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := goodSetup()
	p.Name, p.Units[0].Models[0].ID = long(MaxNameLen), long(MaxIDLen)
	p.Units[0].Models[0].Weapons = nil
	if _, err := create(plainRules{}, New("m1"), system, &p); err != nil {
		t.Fatalf("a setup at the limits: %v", err)
	}

	s := New("m1")
	out, _ := create(plainRules{}, s, system, func() *events.MatchCreated { p := goodSetup(); return &p }())
	e, _ := events.New("m1", 1, events.Hash{}, 0, system, out[0])
	if err := ApplyDecoded(plainRules{}, s, &e, out[0]); err != nil {
		t.Fatal(err)
	}
	alice := events.Actor{Kind: events.ActorPlayer, ID: "alice"}
	commands := map[string]Command{
		"reason of 2001 bytes": {Type: CmdDispute, Event: 1, Reason: long(MaxTextLen + 1)},
		"1001 dice":            {Type: CmdRoll, Values: make([]int, MaxList+1)},
		"unit id of 65 bytes":  {Type: CmdShoot, Unit: long(MaxIDLen + 1), Target: "u"},
	}
	for name, c := range commands {
		if _, err := Decide(plainRules{}, s, alice, c); !isRefusal(err, CodeBadCommand, "the limit is") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decide(plainRules{}, s, alice, Command{Type: CmdEnd, Reason: long(MaxTextLen)}); err != nil {
		t.Fatalf("a reason at the limit: %v", err)
	}
}
