// Package script reads match scripts (docs/script.md): a whole match as a
// file, its setup and the commands, in order, that record it. Reading is
// strict (strict.go): an unknown field anywhere, a value of the wrong type,
// trailing data or another format version is an error naming the file and
// the place. `matchrec play`, the examples and the rules tests
// (projector/projtest) all read scripts through this one reader.
package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Version is the only script format version this build reads.
// A new version gets a new number, never a silent change of meaning.
const Version = 1

// ErrInvalid marks every error about a script's content (as opposed to
// failing to read the file), so callers can tell "fix your file" apart.
var ErrInvalid = errors.New("invalid match script")

// Script is a whole match as a file: its setup and the commands, in order,
// that record it. See docs/script.md.
type Script struct {
	Version int    `json:"version"`
	Match   Setup  `json:"match"`
	Steps   []Step `json:"steps"`
}

// Setup is events.MatchCreated without Tokens: tokens are minted by the
// recorder when the match is created and never belong in a file.
type Setup struct {
	Edition     string               `json:"edition"`
	Name        string               `json:"name,omitempty"`
	Table       events.Table         `json:"table"`
	Players     []events.PlayerSpec  `json:"players"`
	Units       []events.UnitSpec    `json:"units"`
	Terrain     []events.TerrainSpec `json:"terrain,omitempty"`
	FirstPlayer string               `json:"first_player,omitempty"`
	// Deploy sets units on the table as formations (deploy.go): applied
	// by Placed, after any units read from rosters are added.
	Deploy []Deployment `json:"deploy,omitempty"`
	// TableNumber is the venue's table (events.MatchCreated.TableNumber).
	TableNumber int `json:"table_number,omitempty"`
	// Geometry is "measured" for a match measured at a physical table
	// (each declaration carries its facts: docs/events.md#measured-geometry),
	// "positioned" or nothing for the models' positions.
	Geometry string `json:"geometry,omitempty"`
}

// Created returns the match.created payload of the setup (without tokens),
// the models where the units say (Placed applies the deploy steps).
func (s Setup) Created() events.MatchCreated {
	return events.MatchCreated{
		Edition: s.Edition, Name: s.Name, Table: s.Table, Players: s.Players,
		Units: s.Units, Terrain: s.Terrain, FirstPlayer: s.FirstPlayer, TableNumber: s.TableNumber, Geometry: s.Geometry,
	}
}

// RoleJudge is the value of Step.As for the judge.
const RoleJudge = "judge"

// Step is one command of a script, made with the token of As.
type Step struct {
	// As is the player id whose token makes the command, or "judge".
	As  string            `json:"as"`
	Cmd projector.Command `json:"cmd"`
	// ExpectRefusal, when set, is the refusal code the command must get:
	// the script then records that the rules refuse it (and nothing is
	// recorded for the step). A step that is accepted instead fails.
	ExpectRefusal projector.Code `json:"expect_refusal,omitempty"`
	Note          string         `json:"note,omitempty"`
	// Line is the step's line in a YAML file (0 when unknown); set by
	// Parse for error messages, never read from the file.
	Line int `json:"-"`
}

// Where names the step for messages: "step 7 (line 120)".
func (s Step) Where(i int) string {
	if s.Line > 0 {
		return fmt.Sprintf("step %d (line %d)", i+1, s.Line)
	}
	return fmt.Sprintf("step %d", i+1)
}

// DefaultMaxBytes is the size a script may have unless the reader says
// otherwise (ReadLimit): a script of several thousand steps is well under
// a megabyte, and parsing costs time and memory in proportion to the
// bytes, so a larger file is refused before it is parsed.
const DefaultMaxBytes = 4 << 20

// ErrTooLarge marks a script file over the size limit (it also wraps
// ErrInvalid).
var ErrTooLarge = fmt.Errorf("%w: the file is too large", ErrInvalid)

// Read reads and parses the script file at path, of at most
// DefaultMaxBytes; the format follows the extension (.yaml/.yml is YAML,
// anything else JSON).
func Read(path string) (*Script, error) { return ReadLimit(path, DefaultMaxBytes) }

// ReadLimit is Read with a size limit of max bytes. A larger file is
// refused before anything is parsed, having read at most max+1 bytes of
// it (a pipe or device has no size to check first).
func ReadLimit(path string, max int64) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, path, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: %s is over the limit of %d bytes", ErrTooLarge, path, max)
	}
	return Parse(path, b)
}

// IsYAML reports whether name is a YAML file by its extension.
func IsYAML(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// Parse parses a script. name is used for the format (by extension) and
// in error messages. Parsing is strict: an unknown field anywhere, a value
// of the wrong type, trailing data, or a version other than Version is an
// error wrapping ErrInvalid that names the file and the place (field path,
// step, line where known). It never panics.
func Parse(name string, b []byte) (sc *Script, err error) {
	defer func() {
		if r := recover(); r != nil { // a decoder bug must not reach the user as a crash
			sc, err = nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, r)
		}
	}()
	var (
		doc   any
		lines []int // YAML: line of each step
	)
	if IsYAML(name) {
		doc, lines, err = yamlDoc(b)
	} else {
		doc, err = jsonDoc(b)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: the script must be an object with version, match and steps", ErrInvalid, name)
	}
	// The version decides how to read the rest, so check it first: a
	// version 2 file should say "version 2", not "unknown field".
	if err := checkVersion(top["version"]); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	if err := checkFields(doc, scriptType, "", lines); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	// The generic document is known-good in shape; type it with
	// encoding/json part by part, so a wrong type names its step.
	sc = &Script{Version: Version}
	if err := retype(top["match"], &sc.Match); err != nil {
		return nil, fmt.Errorf("%w: %s: match: %v", ErrInvalid, name, err)
	}
	steps, _ := top["steps"].([]any)
	sc.Steps = make([]Step, len(steps))
	for i, raw := range steps {
		if i < len(lines) {
			sc.Steps[i].Line = lines[i]
		}
		line := sc.Steps[i].Line
		if err := retype(raw, &sc.Steps[i]); err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrInvalid, name, sc.Steps[i].Where(i), err)
		}
		sc.Steps[i].Line = line
	}
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return sc, nil
}

func checkVersion(v any) error {
	switch n := v.(type) {
	case nil:
		return fmt.Errorf("version is missing (this build reads version %d)", Version)
	case int: // YAML
		if n == Version {
			return nil
		}
		return fmt.Errorf("version %d is not supported (this build reads version %d)", n, Version)
	case float64:
		if n == Version {
			return nil
		}
		return fmt.Errorf("version %v is not supported (this build reads version %d)", n, Version)
	case json.Number:
		if n.String() == fmt.Sprint(Version) {
			return nil
		}
		return fmt.Errorf("version %s is not supported (this build reads version %d)", n, Version)
	}
	return fmt.Errorf("version must be the number %d, not %v", Version, v)
}

// Validate checks what the format itself requires, before anything is
// recorded: the rules check the rest when the steps are played.
func (sc *Script) Validate() error {
	if sc.Version != Version {
		return fmt.Errorf("version %d is not supported (this build reads version %d)", sc.Version, Version)
	}
	m := sc.Match
	if m.Edition == "" {
		return errors.New("match.edition is missing")
	}
	if len(m.Players) == 0 {
		return errors.New("match.players is empty")
	}
	players := map[string]bool{}
	for _, p := range m.Players {
		players[p.ID] = true
	}
	if players[RoleJudge] {
		return fmt.Errorf("a player may not be called %q: that name means the judge in steps", RoleJudge)
	}
	for i, d := range m.Deploy {
		if err := d.check(); err != nil {
			return fmt.Errorf("match.deploy[%d]: %v", i, err)
		}
	}
	for i, st := range sc.Steps {
		switch {
		case st.As == "":
			return fmt.Errorf("%s: \"as\" is missing (a player id or %q)", st.Where(i), RoleJudge)
		case st.As != RoleJudge && !players[st.As]:
			return fmt.Errorf("%s: as %q is neither a player of the match nor %q", st.Where(i), st.As, RoleJudge)
		case st.Cmd.Type == "":
			return fmt.Errorf("%s: cmd.type is missing", st.Where(i))
		}
	}
	return nil
}

// Marshal writes the script as JSON or YAML (by name's extension), in a
// form ParseScript reads back.
func (sc *Script) Marshal(name string) ([]byte, error) {
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil || !IsYAML(name) {
		return b, err
	}
	return jsonToYAML(b)
}

// retype decodes a generic value into its Go type through JSON.
func retype(v any, into any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, into); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s: %s is not a valid %s", te.Field, te.Value, te.Type)
		}
		return err
	}
	return nil
}

// jsonDoc decodes JSON into generic values, reporting syntax errors and
// truncation with a line and column.
func jsonDoc(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep numbers exact until the typed decode
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, errors.New("the file is empty")
		}
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			line, col := position(b, se.Offset)
			return nil, fmt.Errorf("line %d, column %d: %v", line, col, se)
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, col := position(b, int64(len(b)))
			return nil, fmt.Errorf("line %d, column %d: the file ends in the middle of a value (truncated?)", line, col)
		}
		return nil, err
	}
	// Anything after the one document is an error: a concatenated or
	// half-overwritten file must not pass as its first half.
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(b, dec.InputOffset())
		return nil, fmt.Errorf("line %d, column %d: unexpected data after the script", line, col)
	}
	return doc, nil
}

// position converts a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
