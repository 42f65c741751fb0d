package script

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/matchrec/matchrec/projector"
)

// Strict reading, format-neutral: both JSON and YAML are first decoded into
// generic values (maps, slices, scalars), checked field by field against the
// Go types here with a readable path, and only then typed by encoding/json.
// encoding/json's own DisallowUnknownFields names the field but not where
// it is, and matches names case-insensitively; a script author needs
// "step 12: cmd: unknown field "tagret"", so we walk the document ourselves.

var scriptType = reflect.TypeOf(Script{})

// checkFields reports the first key of doc that has no field in t. At the
// top level (path "") the steps are named by number and, for YAML, line.
func checkFields(doc any, t reflect.Type, path string, lines []int) error {
	if path == "" && t == scriptType {
		top, _ := doc.(map[string]any)
		for _, k := range sortedKeys(top) {
			switch k {
			case "version":
			case "match":
				if err := walk(top[k], reflect.TypeOf(Setup{}), "match"); err != nil {
					return err
				}
			case "steps":
				steps, ok := top[k].([]any)
				if !ok {
					return errors.New("steps must be a list")
				}
				for i, st := range steps {
					if err := walk(st, reflect.TypeOf(Step{}), ""); err != nil {
						s := Step{}
						if i < len(lines) {
							s.Line = lines[i]
						}
						return fmt.Errorf("%s: %v", s.Where(i), err)
					}
				}
			default:
				return fmt.Errorf("top level: %w", unknown("", k, scriptType))
			}
		}
		return nil
	}
	return walk(doc, t, path)
}

// walk checks doc against t, recursing through structs, slices, arrays,
// maps and pointers. Values of the wrong kind are left for the typed
// decode, which reports them.
func walk(doc any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(m) {
			ft, ok := fields[k]
			if !ok {
				return unknown(path, k, t)
			}
			if err := walk(m[k], ft, join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		l, ok := doc.([]any)
		if !ok {
			return nil
		}
		for i, v := range l {
			if err := walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		for _, k := range sortedKeys(m) {
			if err := walk(m[k], t.Elem(), join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the exact JSON names of t's fields (embedded structs
// flattened, "-" fields left out) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func unknown(path, key string, t reflect.Type) error {
	msg := fmt.Sprintf("unknown field %q", key)
	if path != "" {
		msg = path + ": " + msg
	}
	// Suggest the closest field name: same letters in another case or
	// without underscores, else at most two typos away.
	names := make([]string, 0)
	for name := range jsonFields(t) {
		names = append(names, name)
	}
	if best := projector.Suggest(key, names); best != "" {
		return fmt.Errorf("%s (did you mean %q?)", msg, best)
	}
	return errors.New(msg)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Deterministic messages: the first unknown field in name order.
	slices.Sort(keys)
	return keys
}

// yamlDoc decodes one YAML document into generic values and returns the
// line of each step, for messages.
func yamlDoc(b []byte) (any, []int, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil, errors.New("the file is empty")
	}
	top := root.Content[0]
	var lines []int
	if top.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == "steps" && top.Content[i+1].Kind == yaml.SequenceNode {
				for _, st := range top.Content[i+1].Content {
					lines = append(lines, st.Line)
				}
			}
		}
	}
	var doc any
	if err := top.Decode(&doc); err != nil {
		return nil, nil, err
	}
	doc, err := stringKeys(doc, "")
	return doc, lines, err
}

// stringKeys makes sure every mapping has string keys, as JSON needs
// (YAML allows `1: x`, which has no meaning in a script).
func stringKeys(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n, err := stringKeys(e, join(path, k))
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case map[any]any:
		return nil, fmt.Errorf("%s: keys must be names", path)
	case []any:
		for i, e := range x {
			n, err := stringKeys(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}

// jsonToYAML re-encodes a JSON document as YAML.
func jsonToYAML(b []byte) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return yaml.Marshal(doc)
}
