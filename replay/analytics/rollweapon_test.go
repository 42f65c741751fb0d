package analytics_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
)

// Every roll of an attack names its weapon and AP, in every edition: the
// example matches (several weapons in one attack, melee, blast scatter,
// 11e re-rolls and damage) and generated ones. Checked against what the
// rows say independently: each hit roll's label names its weapon, a
// single-weapon attack's rolls all name that weapon with the attack's
// AP, a roll outside an attack names none, and a save against the wounds
// of two weapons names none either.
func TestRollsNameTheirWeapon(t *testing.T) {
	e := newEnv(t)
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		sc, err := script.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if _, err := generate.Script(t.Context(), generate.Direct{Recorder: e.rec}, editions.Lookup, sc, api.CreateRequest{Match: id}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for _, ed := range editions.IDs() {
		e.generate(t, ed, 3, 9)
	}
	catchUp(t, e.up)
	zero := func(what, q string) {
		t.Helper()
		if n := query(t, e.db, q)[0][0].(int64); n != 0 {
			t.Errorf("%s: %d rows\n%s", what, n, q)
		}
	}
	some := func(what, q string) {
		t.Helper()
		if n := query(t, e.db, q)[0][0].(int64); n == 0 {
			t.Errorf("%s: none\n%s", what, q)
		}
	}
	zero("a hit roll without its weapon, or whose label names another",
		`SELECT count(*) FROM rolls WHERE purpose = 'hit' AND attack_seq IS NOT NULL AND (weapon IS NULL OR NOT starts_with(label, weapon))`)
	zero("a roll of a single-weapon attack that names another weapon or AP",
		`SELECT count(*) FROM rolls r JOIN attacks a ON a.match = r.match AND a.seq = r.attack_seq
		 WHERE a.weapon NOT LIKE '%+%' AND r.purpose IN ('hit', 'wound', 'save', 'damage', 'reroll', 'scatter', 'lookoutsir')
		   AND (r.weapon IS DISTINCT FROM a.weapon OR r.ap IS DISTINCT FROM a.ap)`)
	zero("a roll outside an attack with a weapon",
		`SELECT count(*) FROM rolls WHERE attack_seq IS NULL AND (weapon IS NOT NULL OR ap IS NOT NULL)`)
	zero("a weapon without its AP, or an AP without a weapon",
		`SELECT count(*) FROM rolls WHERE (weapon IS NULL) <> (ap IS NULL)`)
	zero("a 3e wound roll naming a weapon its attack did not fire",
		`SELECT count(*) FROM rolls r JOIN attacks a ON a.match = r.match AND a.seq = r.attack_seq
		 WHERE r.edition = '3e' AND r.purpose = 'wound' AND r.weapon IS NOT NULL AND NOT list_contains(string_split(a.weapon, '+'), r.weapon)`)
	// The examples' particular rolls.
	some("the boltgun and heavy bolter rolls of 3e's first attack, at their own AP",
		`SELECT (count(DISTINCT weapon || ap) = 2)::BIGINT FROM rolls
		 WHERE match = '3e-boltguns-vs-boyz' AND purpose = 'hit' AND ((weapon = 'boltgun' AND ap = 5) OR (weapon = 'heavy bolter' AND ap = 4))`)
	some("a save against the wounds of two weapons, naming none",
		`SELECT count(*) FROM rolls r JOIN attacks a ON a.match = r.match AND a.seq = r.attack_seq
		 WHERE a.weapon LIKE '%+%' AND r.purpose = 'save' AND r.weapon IS NULL`)
	some("6e melee blows with the weapon struck with",
		`SELECT count(*) FROM rolls r JOIN attacks a ON a.match = r.match AND a.seq = r.attack_seq WHERE a.type = 'melee' AND r.weapon IS NOT NULL`)
	some("6e scatter rolls of a blast weapon",
		`SELECT count(*) FROM rolls WHERE purpose = 'scatter' AND weapon IS NOT NULL`)
	some("11e rolls at a negative AP",
		`SELECT count(*) FROM rolls WHERE edition = '11e' AND ap < 0`)
	some("11e re-rolls naming the weapon of the dice they replace",
		`SELECT count(*) FROM rolls WHERE edition = '11e' AND purpose = 'reroll' AND weapon IS NOT NULL`)
	some("6e charge rolls, naming no weapon",
		`SELECT count(*) FROM rolls WHERE purpose = 'charge' AND weapon IS NULL`)
}
