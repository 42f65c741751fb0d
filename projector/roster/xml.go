package roster

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The roster schema's elements, as encoding/xml reads them. Only what a
// match needs is read; the rest (costs, constraints, publications) is left.
type (
	xRoster struct {
		XMLName        xml.Name
		Name           string   `xml:"name,attr"`
		GameSystemID   string   `xml:"gameSystemId,attr"`
		GameSystemName string   `xml:"gameSystemName,attr"`
		Forces         []xForce `xml:"forces>force"`
	}
	xForce struct {
		Name          string       `xml:"name,attr"`
		CatalogueName string       `xml:"catalogueName,attr"`
		Selections    []xSelection `xml:"selections>selection"`
		Forces        []xForce     `xml:"forces>force"`
	}
	xSelection struct {
		Name       string       `xml:"name,attr"`
		CustomName string       `xml:"customName,attr"`
		Type       string       `xml:"type,attr"`
		Number     string       `xml:"number,attr"`
		Profiles   []xProfile   `xml:"profiles>profile"`
		Rules      []xRule      `xml:"rules>rule"`
		Categories []xCategory  `xml:"categories>category"`
		Selections []xSelection `xml:"selections>selection"`
	}
	xProfile struct {
		Name     string  `xml:"name,attr"`
		TypeName string  `xml:"typeName,attr"`
		Hidden   string  `xml:"hidden,attr"`
		Chars    []xChar `xml:"characteristics>characteristic"`
	}
	xChar struct {
		Name  string `xml:"name,attr"`
		Value string `xml:",chardata"`
	}
	xRule struct {
		Name        string `xml:"name,attr"`
		Hidden      string `xml:"hidden,attr"`
		Description string `xml:"description"`
	}
	xCategory struct {
		Name string `xml:"name,attr"`
	}
)

// Read reads the roster file at path: a .ros, or a .rosz (a zip holding
// one .ros). The kind is told by the content, not the name.
func Read(path string) (*Roster, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads a roster from b; name names it in messages. Every error
// about the content wraps ErrInvalid and says where.
func Parse(name string, b []byte) (*Roster, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrInvalid, name, MaxBytes)
	}
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06")) {
		inner, entry, err := unzip(name, b)
		if err != nil {
			return nil, err
		}
		r, err := parseXML(name+": "+entry, inner)
		if r != nil {
			r.File = name
		}
		return r, err
	}
	if strings.EqualFold(filepath.Ext(name), ".rosz") {
		return nil, fmt.Errorf("%w: %s is not a zip file (a .rosz is a zipped .ros)", ErrInvalid, name)
	}
	r, err := parseXML(name, b)
	if r != nil {
		r.File = name
	}
	return r, err
}

// unzip returns the one .ros file of a .rosz.
func unzip(name string, b []byte) ([]byte, string, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: a damaged zip file: %v", ErrInvalid, name, err)
	}
	var ros []*zip.File
	var others []string
	for _, f := range zr.File {
		switch {
		case f.FileInfo().IsDir():
		case strings.EqualFold(filepath.Ext(f.Name), ".ros"):
			ros = append(ros, f)
		default:
			others = append(others, f.Name)
		}
	}
	switch len(ros) {
	case 0:
		if len(others) == 0 {
			return nil, "", fmt.Errorf("%w: %s: the zip file is empty (a .rosz holds one .ros roster)", ErrInvalid, name)
		}
		return nil, "", fmt.Errorf("%w: %s: the zip file holds no .ros roster (it holds %s)", ErrInvalid, name, strings.Join(others, ", "))
	case 1:
	default:
		return nil, "", fmt.Errorf("%w: %s: the zip file holds %d .ros rosters; a .rosz holds one", ErrInvalid, name, len(ros))
	}
	rc, err := ros[0].Open()
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %s: %v", ErrInvalid, name, ros[0].Name, err)
	}
	defer rc.Close()
	inner, err := io.ReadAll(io.LimitReader(rc, MaxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %s: %v", ErrInvalid, name, ros[0].Name, err)
	}
	if len(inner) > MaxBytes {
		return nil, "", fmt.Errorf("%w: %s: %s unzips to over %d bytes", ErrInvalid, name, ros[0].Name, MaxBytes)
	}
	return inner, ros[0].Name, nil
}

// otherRoots are the BattleScribe files that are not rosters.
var otherRoots = map[string]string{
	"catalogue":  "a catalogue (.cat)",
	"gameSystem": "a game system (.gst)",
	"dataIndex":  "a data index",
}

func parseXML(name string, b []byte) (*Roster, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var x xRoster
	if err := dec.Decode(&x); err != nil {
		return nil, xmlErr(name, b, dec, err)
	}
	if kind, ok := otherRoots[x.XMLName.Local]; ok {
		return nil, fmt.Errorf("%w: %s is %s, not a roster: export the list from BattleScribe or New Recruit as .ros or .rosz", ErrInvalid, name, kind)
	}
	if x.XMLName.Local != "roster" {
		return nil, fmt.Errorf("%w: %s: the document is a <%s>, not a BattleScribe <roster>", ErrInvalid, name, x.XMLName.Local)
	}
	if sp := x.XMLName.Space; sp != "" && sp != Namespace {
		return nil, fmt.Errorf("%w: %s: a <roster> of namespace %q, not BattleScribe's %q", ErrInvalid, name, sp, Namespace)
	}
	// Nothing but comments and white space may follow: a file with a
	// second document, or half overwritten, must not pass as its first.
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, xmlErr(name, b, dec, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
		case xml.Comment, xml.ProcInst:
			continue
		}
		line, _ := dec.InputPos()
		return nil, fmt.Errorf("%w: %s: line %d: data after the roster", ErrInvalid, name, line)
	}
	r := &Roster{Name: x.Name, GameSystemID: x.GameSystemID, GameSystemName: x.GameSystemName}
	for _, f := range x.Forces {
		force, err := convertForce(name, f)
		if err != nil {
			return nil, err
		}
		r.Forces = append(r.Forces, force)
	}
	return r, nil
}

func xmlErr(name string, b []byte, dec *xml.Decoder, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) && se.Msg != "unexpected EOF" {
		return fmt.Errorf("%w: %s: line %d: %s", ErrInvalid, name, se.Line, se.Msg)
	}
	line, _ := dec.InputPos()
	if se != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if len(bytes.TrimSpace(b)) == 0 {
			return fmt.Errorf("%w: %s is empty", ErrInvalid, name)
		}
		return fmt.Errorf("%w: %s: line %d: the file ends inside the roster (truncated?)", ErrInvalid, name, line)
	}
	return fmt.Errorf("%w: %s: line %d: %v", ErrInvalid, name, line, err)
}

func convertForce(file string, f xForce) (Force, error) {
	out := Force{Name: f.Name, Catalogue: f.CatalogueName}
	for _, s := range f.Selections {
		sel, err := convertSelection(file, s)
		if err != nil {
			return out, err
		}
		out.Selections = append(out.Selections, sel)
	}
	for _, sub := range f.Forces {
		sf, err := convertForce(file, sub)
		if err != nil {
			return out, err
		}
		out.Forces = append(out.Forces, sf)
	}
	return out, nil
}

func convertSelection(file string, s xSelection) (Selection, error) {
	out := Selection{Name: strings.TrimSpace(s.Name), CustomName: strings.TrimSpace(s.CustomName), Type: s.Type, Number: 1}
	if n := strings.TrimSpace(s.Number); n != "" {
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 {
			return out, fmt.Errorf("%w: %s: selection %q: number %q is not a count", ErrInvalid, file, s.Name, s.Number)
		}
		out.Number = v
	}
	for _, p := range s.Profiles {
		pr := Profile{Name: strings.TrimSpace(p.Name), Type: strings.TrimSpace(p.TypeName), Hidden: p.Hidden == "true"}
		for _, c := range p.Chars {
			pr.Characteristics = append(pr.Characteristics, Characteristic{Name: strings.TrimSpace(c.Name), Value: strings.TrimSpace(c.Value)})
		}
		out.Profiles = append(out.Profiles, pr)
	}
	for _, r := range s.Rules {
		if r.Hidden != "true" {
			out.Rules = append(out.Rules, Rule{Name: strings.TrimSpace(r.Name), Description: strings.TrimSpace(r.Description)})
		}
	}
	for _, c := range s.Categories {
		out.Categories = append(out.Categories, strings.TrimSpace(c.Name))
	}
	for _, sub := range s.Selections {
		ss, err := convertSelection(file, sub)
		if err != nil {
			return out, err
		}
		out.Selections = append(out.Selections, ss)
	}
	return out, nil
}
