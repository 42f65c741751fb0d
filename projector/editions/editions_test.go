package editions

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/script"
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

// Every edition's parts of the state encode one way: NonCanonical walks
// State.Ext and Attack.Ext through the types each edition makes.
func TestEditionStatesEncodeCanonically(t *testing.T) {
	extType := reflect.TypeOf((*projector.Ext)(nil)).Elem()
	for _, id := range IDs() {
		r, _ := Lookup(id)
		var concrete []reflect.Type
		if x, ok := r.(projector.Extension); ok {
			concrete = append(concrete, reflect.TypeOf(x.NewStateExt()))
			if a := x.NewAttackExt(); a != nil {
				concrete = append(concrete, reflect.TypeOf(a))
			}
		}
		impls := map[reflect.Type][]reflect.Type{extType: concrete}
		for _, bad := range events.NonCanonical("State", reflect.TypeOf(projector.State{}), impls) {
			t.Errorf("%s: %s: msgpack would not encode it one way only", id, bad)
		}
	}
}

// Every state of every example, at every event, comes back from its
// encoding (a snapshot) as the same state, the edition's parts in the
// edition's own types, and folds on from there as the full fold does.
func TestStatesDecodeAsTheyWereEncoded(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	seen := map[string]bool{}
	for _, path := range paths {
		sc, err := script.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Lookup(sc.Match.Edition)
		if err != nil {
			t.Fatal(err)
		}
		seen[r.Edition()] = true
		g := projtest.PlayScript(t, r, path)
		s := projector.New("m1")
		for i, e := range g.Events {
			if err := projector.Apply(r, s, e); err != nil {
				t.Fatal(err)
			}
			b, err := s.Encode()
			if err != nil {
				t.Fatal(err)
			}
			back, err := projector.DecodeState(b, r)
			if err != nil {
				t.Fatalf("%s event %d: %v", path, e.Seq, err)
			}
			want, _ := s.Hash()
			if got, _ := back.Hash(); got != want {
				t.Fatalf("%s event %d: the decoded state hashes %s, the encoded one %s", path, e.Seq, got, want)
			}
			if x, ok := r.(projector.Extension); ok {
				if reflect.TypeOf(back.Ext) != reflect.TypeOf(x.NewStateExt()) {
					t.Fatalf("%s event %d: Ext decoded as %T", path, e.Seq, back.Ext)
				}
			}
			if i+1 < len(g.Events) {
				// The decoded state folds the next event as the original does.
				next, orig := back.Clone(), s.Clone()
				if err := projector.Apply(r, next, g.Events[i+1]); err != nil {
					t.Fatalf("%s event %d from a decoded state: %v", path, e.Seq+1, err)
				}
				_ = projector.Apply(r, orig, g.Events[i+1])
				h1, _ := next.Hash()
				h2, _ := orig.Hash()
				if h1 != h2 {
					t.Fatalf("%s event %d folds differently from a decoded state", path, e.Seq+1)
				}
			}
		}
	}
	for _, id := range IDs() {
		if !seen[id] {
			t.Errorf("no example of edition %s", id)
		}
	}
}

// A state read back from JSON, by a program that does not know the
// edition, keeps the edition's part as it came and writes it back the same.
func TestStatesReadFromJSONWriteBackTheSame(t *testing.T) {
	for _, path := range []string{"6e-grot-wood-assault.yaml", "11e-shooting-types.yaml"} {
		path = filepath.Join("..", "..", "examples", path)
		sc, err := script.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := Lookup(sc.Match.Edition)
		g := projtest.PlayScript(t, r, path)
		for _, s := range []*projector.State{g.State, g.Refold()} {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back projector.State
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if _, ok := back.Ext.(projector.RawExt); !ok || back.LastAttack == nil {
				t.Fatalf("%s: Ext read as %T", path, back.Ext)
			}
			if _, ok := back.LastAttack.Ext.(projector.RawExt); !ok {
				t.Fatalf("%s: LastAttack.Ext read as %T", path, back.LastAttack.Ext)
			}
			again, _ := json.Marshal(back.Clone())
			if string(again) != string(b) {
				t.Fatalf("%s: JSON changed on the way back:\n%s\n%s", path, b, again)
			}
		}
	}
}

// A script's setup is read as strictly as its format (round 3: `type:
// artillery` and an ARTILLERY keyword were accepted silently): every
// edition refuses, at creation, a weapon type or keyword it does not
// read, naming the words it does; and plays every example, whose words it
// reads, as they are.
func TestEveryEditionRefusesWordsItDoesNotRead(t *testing.T) {
	for _, c := range []struct {
		edition, typ, keyword, want string
	}{
		{"3e", "artillery", "", `type "artillery" is not a weapon type 3e reads (rapid-fire, assault, heavy, pistol)`},
		{"3e", "", "BLAST", `keyword "BLAST": 3e reads no weapon keywords`},
		{"6e", "", "ARTILLERY", `keyword "ARTILLERY" is not a weapon keyword 6e reads (TEMPLATE, BLAST, LARGE BLAST, LARGE-BLAST, PINNING, NO-BS, MASTER-CRAFTED)`},
		{"6e", "artilery", "", `(did you mean "artillery"?)`},
		{"11e", "heavy", "", `type "heavy": 11e weapons have no type (their keywords say what they are)`},
		{"11e", "", "[ASAULT]", `keyword "[ASAULT]" is not a weapon keyword 11e reads`},
	} {
		r, err := Lookup(c.edition)
		if err != nil {
			t.Fatal(err)
		}
		w := events.WeaponSpec{ID: "w", Range: 24, Type: c.typ, Shots: 1, Attacks: "1", BS: 3, S: 4, D: "1"}
		if c.keyword != "" {
			w.Keywords = []string{c.keyword}
		}
		m := events.ModelSpec{BS: 4, T: 4, W: 1}
		su := projtest.Setup(c.edition, projtest.Column(events.UnitSpec{ID: "a", Player: "alice", Weapons: []events.WeaponSpec{w}}, 1, 10, m, "w"),
			projtest.Column(events.UnitSpec{ID: "b", Player: "bob"}, 1, 20, m))
		g := &projtest.Game{T: t, Rules: r, State: projector.New("m1")}
		ref := g.Refused(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &su}, projector.CodeBadRequest)
		if !strings.Contains(ref.Reason, "unit a weapon w: ") || !strings.Contains(ref.Reason, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.edition, ref.Reason, c.want)
		}
	}
}
