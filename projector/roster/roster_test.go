package roster_test

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/roster"
)

// fixtures are the example rosters: small lists of each era, written for
// matchrec (docs/rosters.md).
const fixtures = "../../examples/rosters/"

func convert(t *testing.T, file, edition, player string) *roster.Import {
	t.Helper()
	r, err := roster.Read(filepath.Join(fixtures, file))
	if err != nil {
		t.Fatal(err)
	}
	imp, err := roster.Convert(r, roster.Options{Edition: edition, Player: player})
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

func unitOf(t *testing.T, imp *roster.Import, id string) events.UnitSpec {
	t.Helper()
	for _, u := range imp.Units {
		if u.ID == id {
			return u
		}
	}
	t.Fatalf("no unit %s in %s", id, imp.File)
	return events.UnitSpec{}
}

func weaponOf(t *testing.T, u events.UnitSpec, id string) events.WeaponSpec {
	t.Helper()
	for _, w := range u.Weapons {
		if w.ID == id {
			return w
		}
	}
	t.Fatalf("unit %s has no weapon %s (%v)", u.ID, id, u.Weapons)
	return events.WeaponSpec{}
}

// A 3rd-edition roster for a 3e match: the classic stat line onto the
// models, the unit's profiles matched to its models by name, weapons
// counted out to the models that carry them, the invulnerable save of a
// rule's text, an independent character, and close-combat weapons left
// out (3e here has no close combat), said in a note.
func TestThirdEditionRoster(t *testing.T) {
	imp := convert(t, "3e-space-marines.ros", "3e", "alice")
	if imp.System != "Warhammer 40k 3rd Edition" || !slices.Equal(imp.Catalogues, []string{"Space Marines (1999)"}) || len(imp.Units) != 2 {
		t.Fatalf("import: %+v", imp)
	}
	capt := unitOf(t, imp, "space-marine-captain")
	m := capt.Models[0]
	want := events.ModelSpec{ID: "space-marine-captain-1", Name: "Space Marine Captain", WS: 5, BS: 5, S: 4, T: 4, W: 3, I: 5, A: 3, Ld: 10, Sv: 3, Inv: 4,
		Height: roster.InfantryHeight, BaseMM: roster.ClassicBaseMM, Weapons: []string{"bolt-pistol"}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("captain:\n%+v\nwant\n%+v", m, want)
	}
	// 3e reads no unit keyword but VEHICLE (its Lexicon): the roster's
	// are left out, and a note says which.
	if len(capt.Keywords) != 0 || capt.Player != "alice" {
		t.Errorf("captain's unit: %+v", capt)
	}
	if !slices.ContainsFunc(imp.Notes, func(n string) bool {
		return strings.Contains(n, "words 3e does not read are left out") && strings.Contains(n, "unit space-marine-captain: INFANTRY")
	}) {
		t.Errorf("no note of the words left out: %q", imp.Notes)
	}
	tac := unitOf(t, imp, "tactical-squad")
	if len(tac.Models) != 10 {
		t.Fatalf("tactical squad: %d models", len(tac.Models))
	}
	if w := weaponOf(t, tac, "heavy-bolter"); !reflect.DeepEqual(w, events.WeaponSpec{ID: "heavy-bolter", Name: "Heavy Bolter", Range: 36, Type: "heavy", Shots: 3, S: 5, AP: 4}) {
		t.Errorf("heavy bolter %+v", w)
	}
	if w := weaponOf(t, tac, "boltgun"); w.Type != "rapid-fire" || w.Range != 24 || w.S != 4 || w.AP != 5 {
		t.Errorf("boltgun %+v", w)
	}
	sgt, hb := tac.Models[0], tac.Models[9]
	if sgt.Name != "Veteran Sergeant" || sgt.A != 2 || sgt.Ld != 9 || !slices.Equal(sgt.Weapons, []string{"bolt-pistol"}) {
		t.Errorf("sergeant %+v", sgt)
	}
	if hb.Name != "Space Marine with Heavy Bolter" || !slices.Equal(hb.Weapons, []string{"heavy-bolter"}) {
		t.Errorf("heavy bolter marine %+v", hb)
	}
	for _, m := range tac.Models[1:9] {
		if !slices.Equal(m.Weapons, []string{"boltgun"}) || m.A != 1 {
			t.Errorf("marine %+v", m)
		}
	}
	if !slices.ContainsFunc(imp.Notes, func(n string) bool { return strings.Contains(n, "melee weapons are left out: 3e") }) {
		t.Errorf("notes %v", imp.Notes)
	}
	// The player's own name for a unit names it; a dash save is none.
	orks := convert(t, "3e-orks.ros", "3e", "bob")
	ladz := unitOf(t, orks, "grukk-s-ladz")
	if ladz.Name != "Grukk's Ladz" || len(ladz.Models) != 10 || ladz.Models[9].Name != "Nob" || ladz.Models[9].W != 2 {
		t.Errorf("the boyz %+v", ladz)
	}
	if g := unitOf(t, orks, "big-gunz-crew").Models[0]; g.Sv != 0 || g.BS != 3 {
		t.Errorf("grot %+v", g)
	}
}

// A 7th-edition roster (the 6e stat line), zipped as a .rosz: the unit
// type's keywords, Strength relative to the bearer (x2: the power fist;
// User: the model's own in a fight), templates, blasts, one model with
// both profiles of a missile launcher, an invulnerable save from wargear.
func TestSixthEditionRosterZipped(t *testing.T) {
	ros, err := os.ReadFile(fixtures + "7e-space-marines.ros")
	if err != nil {
		t.Fatal(err)
	}
	rosz := filepath.Join(t.TempDir(), "aquila.rosz")
	writeZip(t, rosz, map[string][]byte{"Strike Force Aquila.ros": ros})
	r, err := roster.Read(rosz)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := roster.Convert(r, roster.Options{Edition: "6e", Player: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	plain := convert(t, "7e-space-marines.ros", "6e", "alice")
	if !reflect.DeepEqual(imp.Units, plain.Units) || imp.File != rosz {
		t.Fatalf("the .rosz reads otherwise than its .ros")
	}
	capt := unitOf(t, imp, "captain")
	if m := capt.Models[0]; m.Inv != 4 || m.WS != 6 || !slices.Equal(m.Keywords, []string{"CHARACTER", "INDEPENDENT CHARACTER"}) ||
		!slices.Equal(m.Weapons, []string{"bolt-pistol", "power-fist"}) {
		t.Errorf("captain %+v", m)
	}
	if w := weaponOf(t, capt, "power-fist"); w.Type != "melee" || w.S != 8 || w.AP != 2 || len(w.Keywords) != 0 { // SPECIALIST WEAPON and UNWIELDY: no 6e words here
		t.Errorf("power fist %+v", w)
	}
	tac := unitOf(t, imp, "tactical-squad")
	if w := weaponOf(t, tac, "chainsword"); w.Type != "melee" || w.S != 0 {
		t.Errorf("chainsword (User: the model's S in a fight) %+v", w)
	}
	if w := weaponOf(t, tac, "flamer"); w.Range != 8 || w.Type != "assault" || !slices.Equal(w.Keywords, []string{"TEMPLATE"}) {
		t.Errorf("flamer %+v", w)
	}
	if w := weaponOf(t, tac, "missile-launcher-frag"); w.Type != "heavy" || w.S != 4 || !slices.Equal(w.Keywords, []string{"BLAST"}) {
		t.Errorf("frag missile %+v", w)
	}
	ml := tac.Models[8]
	if !slices.Equal(ml.Weapons, []string{"missile-launcher-frag", "missile-launcher-krak"}) {
		t.Errorf("the missile launcher's model carries %v", ml.Weapons)
	}
	if sgt := tac.Models[0]; !slices.Equal(sgt.Keywords, []string{"CHARACTER"}) || !slices.Equal(sgt.Weapons, []string{"boltgun", "chainsword"}) {
		t.Errorf("sergeant %+v", sgt)
	}
	if !slices.ContainsFunc(imp.Notes, func(n string) bool { return strings.Contains(n, "a 7th-edition roster read for a 6e match") }) {
		t.Errorf("notes %v", imp.Notes)
	}
}

func writeZip(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// An 11th-edition roster, and a 10th-edition one read for 11e: Move, T,
// Sv, W, Ld, the invulnerable save of an ability, weapons with their own
// BS, dice attacks and damage, keywords; a weapon of one model in four;
// big bases for a MONSTER; melee weapons left out (11e here only shoots).
func TestEleventhEditionRosters(t *testing.T) {
	imp := convert(t, "11e-space-marines.ros", "11e", "alice")
	capt := unitOf(t, imp, "captain")
	if m := capt.Models[0]; m.Move != 6 || m.T != 4 || m.Sv != 3 || m.W != 5 || m.Ld != 6 || m.Inv != 4 || m.BaseMM != roster.ModernBaseMM {
		t.Errorf("captain %+v", m)
	}
	if !slices.Contains(capt.Keywords, "CHARACTER") || !slices.Contains(capt.Keywords, "FACTION: ADEPTUS ASTARTES") {
		t.Errorf("captain's keywords %v", capt.Keywords)
	}
	squad := unitOf(t, imp, "intercessor-squad")
	want := events.WeaponSpec{ID: "bolt-rifle", Name: "Bolt rifle", Range: 24, Attacks: "2", BS: 3, S: 4, AP: -1, D: "1", Keywords: []string{"ASSAULT", "HEAVY"}}
	if w := weaponOf(t, squad, "bolt-rifle"); !reflect.DeepEqual(w, want) {
		t.Errorf("bolt rifle %+v", w)
	}
	if w := weaponOf(t, squad, "astartes-grenade-launcher-krak"); w.D != "D3" || w.S != 9 || w.AP != -2 {
		t.Errorf("krak %+v", w)
	}
	var launchers int
	for _, m := range squad.Models {
		if !slices.Contains(m.Weapons, "bolt-rifle") {
			t.Errorf("%s has no bolt rifle: %v", m.ID, m.Weapons)
		}
		if slices.Contains(m.Weapons, "astartes-grenade-launcher-frag") {
			launchers++
			if !slices.Contains(m.Weapons, "astartes-grenade-launcher-krak") {
				t.Errorf("%s has the frag profile of the launcher without the krak: %v", m.ID, m.Weapons)
			}
		}
	}
	if len(squad.Models) != 5 || launchers != 1 || squad.Models[0].Name != "Intercessor Sergeant" {
		t.Errorf("squad of %d, %d launchers", len(squad.Models), launchers)
	}
	nids := convert(t, "10e-tyranids.ros", "11e", "bob")
	if cf := unitOf(t, nids, "carnifex").Models[0]; cf.BaseMM != roster.BigBaseMM || cf.Height != roster.BigHeight || cf.T != 9 || cf.Sv != 2 || cf.Ld != 8 {
		t.Errorf("carnifex %+v", cf)
	}
	if len(unitOf(t, nids, "termagants").Models) != 10 {
		t.Error("termagants")
	}
	if !slices.ContainsFunc(nids.Notes, func(n string) bool { return strings.Contains(n, "a 10th-edition roster read for an 11e match") }) ||
		!slices.ContainsFunc(nids.Notes, func(n string) bool { return strings.Contains(n, "melee weapons are left out: 11e") }) {
		t.Errorf("notes %v", nids.Notes)
	}
}

// A force's selections that are no units (a detachment's choice, an
// enhancement) are left out whatever they show, and noted.
func TestSelectionsThatAreNoUnits(t *testing.T) {
	b, err := os.ReadFile(fixtures + "3e-orks.ros")
	if err != nil {
		t.Fatal(err)
	}
	extra := `<selection name="Waaagh! Banner" number="1" type="upgrade"><profiles><profile name="Waaagh!" typeName="Detachment Rule">` +
		`<characteristics><characteristic name="Effect">Once per battle…</characteristic><characteristic name="Cost">1 CP</characteristic></characteristics></profile></profiles></selection>`
	body := strings.Replace(string(b), "<selections>", "<selections>"+extra, 1)
	r, err := roster.Parse("banner.ros", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	imp, err := roster.Convert(r, roster.Options{Edition: "3e", Player: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Units) != 2 || !slices.Contains(imp.Notes, "not units (no model profile): Waaagh! Banner") {
		t.Fatalf("units %d, notes %v", len(imp.Units), imp.Notes)
	}
}

// Ids the match already has are not reused: a second roster of the same
// list gets other unit and model ids.
func TestIDsStayUnique(t *testing.T) {
	first := convert(t, "3e-orks.ros", "3e", "alice")
	taken := map[string]bool{}
	for _, u := range first.Units {
		taken[u.ID] = true
		for _, m := range u.Models {
			taken[m.ID] = true
		}
	}
	r, _ := roster.Read(fixtures + "3e-orks.ros")
	second, err := roster.Convert(r, roster.Options{Edition: "3e", Player: "bob", Taken: func(id string) bool { return taken[id] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range second.Units {
		if taken[u.ID] {
			t.Errorf("unit id %s reused", u.ID)
		}
		for _, m := range u.Models {
			if taken[m.ID] {
				t.Errorf("model id %s reused", m.ID)
			}
		}
	}
	if second.Units[0].ID != "grukk-s-ladz-b" || second.Units[0].Models[0].ID != "grukk-s-ladz-b-1" {
		t.Errorf("second ids: %s %s", second.Units[0].ID, second.Units[0].Models[0].ID)
	}
}

// What cannot be read is a clear error of its kind, naming the file and
// the place, and nothing is returned with it.
func TestRosterErrors(t *testing.T) {
	good, err := os.ReadFile(fixtures + "3e-space-marines.ros")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	noRos := filepath.Join(dir, "list.rosz")
	writeZip(t, noRos, map[string][]byte{"list.txt": []byte("hello"), "readme.md": []byte("#")})
	twoRos := filepath.Join(dir, "two.rosz")
	writeZip(t, twoRos, map[string][]byte{"a.ros": good, "b.ros": good})
	notZip := filepath.Join(dir, "fake.rosz")
	if err := os.WriteFile(notZip, good, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = notZip
	replace := func(old, new string) []byte { return []byte(strings.Replace(string(good), old, new, 1)) }
	for _, tc := range []struct {
		name string
		file string
		body []byte
		ed   string
		is   error
		want string
	}{
		{name: "truncated XML", file: "cut.ros", body: good[:len(good)/2], is: roster.ErrInvalid, want: "the file ends inside the roster (truncated?)"},
		{name: "malformed XML", file: "bad.ros", body: replace("</roster>", "</rooster>"), is: roster.ErrInvalid, want: "bad.ros: line "},
		{name: "not XML", file: "x.ros", body: []byte("name,points\nboyz,60\n"), is: roster.ErrInvalid, want: "x.ros"},
		{name: "empty", file: "e.ros", body: []byte("  \n"), is: roster.ErrInvalid, want: "e.ros is empty"},
		{name: "a zip without a .ros", file: noRos, is: roster.ErrInvalid, want: "the zip file holds no .ros roster (it holds list.txt, readme.md)"},
		{name: "a zip with two", file: twoRos, is: roster.ErrInvalid, want: "holds 2 .ros rosters"},
		{name: "a .rosz that is no zip", file: notZip, is: roster.ErrInvalid, want: "fake.rosz is not a zip file"},
		{name: "a catalogue", file: "sm.cat", body: []byte(`<?xml version="1.0"?><catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" name="SM"></catalogue>`),
			is: roster.ErrInvalid, want: "sm.cat is a catalogue (.cat), not a roster"},
		{name: "another namespace", file: "o.ros", body: []byte(`<roster xmlns="urn:other"></roster>`), is: roster.ErrInvalid, want: `namespace "urn:other"`},
		{name: "two documents", file: "two.ros", body: append(append([]byte{}, good...), []byte("<roster/>")...), is: roster.ErrInvalid, want: "data after the roster"},
		{name: "an unknown profile type", file: "k.ros", body: replace(`typeName="Unit">`, `typeName="Knight">`), is: roster.ErrProfile,
			want: `"1-Standard Missions" › "Space Marine Captain": profile "Space Marine Captain" (Knight): a profile type matchrec does not know (characteristics WS BS S T W I A Ld Sv)`},
		{name: "a vehicle", file: "v.ros", body: replace(`<characteristic name="Sv"`, `<characteristic name="Front Armor" typeId="x">14</characteristic><characteristic name="Sv"`), is: roster.ErrProfile,
			want: "a vehicle's profile"},
		{name: "a characteristic that is no number", file: "t.ros", body: replace(`<characteristic name="T" typeId="c87c-1e8f-8df8-3b66">4</characteristic>`, `<characteristic name="T" typeId="c87c-1e8f-8df8-3b66">4+</characteristic>`),
			is: roster.ErrProfile, want: `profile "Space Marine Captain" (Unit): T "4+" is not a number`},
		{name: "a weapon type the edition does not play", file: "w.ros", body: replace(">Heavy 3<", ">Ordnance 1, Large Blast<"), is: roster.ErrProfile,
			want: `"Tactical Squad" › "Space Marine with Heavy Bolter" › "Heavy Bolter": profile "Heavy Bolter" (Weapon): weapon Type "Ordnance 1, Large Blast": 3e in matchrec plays rapid fire, assault, heavy and pistol weapons`},
		{name: "another game", file: "aos.ros", body: replace(`gameSystemId="96e2-b781-50d7-3d18" gameSystemName="Warhammer 40k 3rd Edition"`, `gameSystemId="e51d-b1a3-75fc-dc3g" gameSystemName="Warhammer Age of Sigmar 4.0"`),
			is: roster.ErrGameSystem, want: `aos.ros is a "Warhammer Age of Sigmar 4.0" (id e51d-b1a3-75fc-dc3g) roster, not one of Warhammer 40,000`},
		{name: "a modern roster for a classic match", file: fixtures + "11e-space-marines.ros", ed: "6e", is: roster.ErrGameSystem,
			want: "(11th edition); a 6e match reads rosters of the WS BS S T W I A Ld Sv stat line (6th, 7th, 3rd, 4th, 5th editions)"},
		{name: "a classic roster for an 11e match", file: "cl.ros", ed: "11e", body: good, is: roster.ErrGameSystem, want: "an 11e match reads rosters of the M T Sv W Ld OC stat line"},
		{name: "9th edition", file: "9e.ros", body: replace(`gameSystemId="96e2-b781-50d7-3d18" gameSystemName="Warhammer 40k 3rd Edition"`, `gameSystemId="28ec-711c-d87f-3aeb" gameSystemName="Warhammer 40,000 9th Edition"`),
			is: roster.ErrGameSystem, want: "(9th edition)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.file
			if tc.body != nil {
				path = filepath.Join(dir, tc.file)
				if err := os.WriteFile(path, tc.body, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ed := tc.ed
			if ed == "" {
				ed = "3e"
			}
			r, err := roster.Read(path)
			var imp *roster.Import
			if err == nil {
				imp, err = roster.Convert(r, roster.Options{Edition: ed, Player: "alice"})
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v\nwant %v and %q", err, tc.is, tc.want)
			}
			if imp != nil {
				t.Fatalf("an import with the error: %+v", imp)
			}
		})
	}
}
