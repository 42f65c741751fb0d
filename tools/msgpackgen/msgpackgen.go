// Package msgpackgen writes the msgpack decoders of a package's event
// payloads (`go generate ./events/...`): for every struct type with an
// EventType method, and every struct type such a payload holds, a
// decodeMsgpack method over the package's reader (events/msgpack_read.go),
// reading a map-encoded struct as the reflective decoder does and falling
// back to it (errFallback) on anything outside the subset the reader knows.
//
// It reads the package's source (go/ast), not its compiled types, so it
// runs even when the generated file it replaces is stale. A payload with a
// field of a kind it does not know gets no decoder (the reflective one
// reads it) and is listed in the file's header, so a new payload type is
// picked up by running the generator again, never by copying a decoder.
package msgpackgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Suffix ends the name of every generated file: the decoders of the types
// declared in x.go are in x_gen.go. Files with it are not read.
const Suffix = "_gen.go"

// Generate returns the generated files for the package in dir, by name:
// one for each source file that declares a type with a decoder.
func Generate(dir string) (map[string][]byte, error) {
	pkg, err := load(dir)
	if err != nil {
		return nil, err
	}
	var roots []string
	for name := range pkg.structs {
		if pkg.payloads[name] {
			roots = append(roots, name)
		}
	}
	slices.Sort(roots)
	g := &gen{pkg: pkg, done: map[string]bool{}, skip: map[string]string{}}
	for _, r := range roots {
		g.want(r)
	}
	return g.files()
}

type source struct {
	name     string
	file     map[string]string // struct type → the file declaring it
	structs  map[string]*ast.StructType
	strings  map[string]bool // named types whose underlying type is string
	payloads map[string]bool // types with an EventType method
}

func load(dir string) (*source, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	src := &source{file: map[string]string{}, structs: map[string]*ast.StructType{}, strings: map[string]bool{}, payloads: map[string]bool{}}
	for _, path := range matches {
		base := filepath.Base(path)
		if strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, Suffix) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, b, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		src.name = f.Name.Name
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() || ts.Assign.IsValid() {
						continue
					}
					switch t := ts.Type.(type) {
					case *ast.StructType:
						src.structs[ts.Name.Name] = t
						src.file[ts.Name.Name] = base
					case *ast.Ident:
						if t.Name == "string" {
							src.strings[ts.Name.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || d.Name.Name != "EventType" || len(d.Recv.List) != 1 {
					continue
				}
				rt := d.Recv.List[0].Type
				if st, ok := rt.(*ast.StarExpr); ok {
					rt = st.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					src.payloads[id.Name] = true
				}
			}
		}
	}
	if src.name == "" {
		return nil, fmt.Errorf("msgpackgen: no Go files in %s", dir)
	}
	return src, nil
}

// field is one encoded field of a struct: its Go name, its msgpack key
// and how to read it.
type field struct {
	name, key string
	read      string // the statement that reads it into p.<name>
	write     string // the statement that writes p.<name>
	empty     string // omitempty: the condition under which it is left out ("" never)
}

type gen struct {
	pkg   *source
	done  map[string]bool   // types with a decoder (so far)
	skip  map[string]string // types without one, and why
	order []string          // types with a decoder, in the order written
	body  map[string][]field
}

// want makes a decoder for struct type name, and for the struct types it
// holds; false (and a reason in skip) when one of its fields is of a kind
// the reader does not read.
func (g *gen) want(name string) bool {
	if g.done[name] {
		return true
	}
	if _, bad := g.skip[name]; bad {
		return false
	}
	st := g.pkg.structs[name]
	g.done[name] = true // a type that holds itself is read recursively
	var fields []field
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			s, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(s).Get("json")
		}
		key, _, _ := strings.Cut(tag, ",")
		if key == "-" {
			continue
		}
		if len(f.Names) == 0 {
			return g.refuse(name, "an embedded field")
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			k := key
			if k == "" {
				k = n.Name
			}
			read, why := g.reader(f.Type, "p."+n.Name)
			if why != "" {
				return g.refuse(name, fmt.Sprintf("field %s is %s", n.Name, why))
			}
			write, empty := g.writer(f.Type, "p."+n.Name)
			if !strings.Contains(tag, ",omitempty") {
				empty = ""
			} else if empty == "" {
				return g.refuse(name, fmt.Sprintf("field %s: omitempty on a struct value", n.Name))
			}
			fields = append(fields, field{name: n.Name, key: k, read: read, write: write, empty: empty})
		}
	}
	if len(fields) > 64 {
		return g.refuse(name, "more than 64 fields")
	}
	if g.body == nil {
		g.body = map[string][]field{}
	}
	g.body[name] = fields
	g.order = append(g.order, name)
	return true
}

func (g *gen) refuse(name, why string) bool {
	delete(g.done, name)
	g.skip[name] = why
	return false
}

// scalars are the Go types the reader reads as one value, and how.
var scalars = map[string]string{
	"string":  "r.str()",
	"bool":    "r.bool()",
	"int":     "int(r.int())",
	"int64":   "r.int()",
	"uint64":  "r.uint()",
	"float64": "r.float()",
}

// reader returns the statement reading a value of type t into dst, or why
// it cannot.
func (g *gen) reader(t ast.Expr, dst string) (string, string) {
	switch t := t.(type) {
	case *ast.Ident:
		if r, ok := scalars[t.Name]; ok {
			return dst + " = " + r, ""
		}
		if g.pkg.strings[t.Name] {
			return dst + " = " + t.Name + "(r.str())", ""
		}
		if _, ok := g.pkg.structs[t.Name]; ok {
			if !g.want(t.Name) {
				return "", "a " + t.Name + " (" + g.skip[t.Name] + ")"
			}
			return dst + ".decodeMsgpack(r)", ""
		}
	case *ast.StarExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			if _, ok := g.pkg.structs[id.Name]; ok && g.want(id.Name) {
				return fmt.Sprintf("if r.nilNext() {\n%s = nil\n} else {\n%s = new(%s)\n%s.decodeMsgpack(r)\n}", dst, dst, id.Name, dst), ""
			}
		}
	case *ast.ArrayType:
		if t.Len != nil {
			break
		}
		switch e := t.Elt.(type) {
		case *ast.Ident:
			switch {
			case e.Name == "string":
				return dst + " = r.strings()", ""
			case e.Name == "int":
				return dst + " = r.ints()", ""
			case g.pkg.structs[e.Name] != nil && g.want(e.Name):
				return dst + " = list[" + e.Name + "](r)", ""
			}
		case *ast.ArrayType:
			if l, ok := e.Len.(*ast.BasicLit); ok && l.Value == "2" {
				if id, ok := e.Elt.(*ast.Ident); ok && id.Name == "float64" {
					return dst + " = r.points()", ""
				}
			}
		}
	case *ast.MapType:
		k, kok := t.Key.(*ast.Ident)
		v, vok := t.Value.(*ast.Ident)
		if kok && vok && k.Name == "string" && v.Name == "string" {
			return dst + " = r.stringMap()", ""
		}
	}
	var b bytes.Buffer
	_ = format.Node(&b, token.NewFileSet(), t)
	return "", "a " + b.String()
}

// writers are how the writer writes each scalar, and when it is empty
// (omitempty: as msgpack's isEmptyValue).
var writers = map[string][2]string{
	"string":  {"w.str(%s)", `%s == ""`},
	"bool":    {"w.bool(%s)", "!%s"},
	"int":     {"w.int(int64(%s))", "%s == 0"},
	"int64":   {"w.int(%s)", "%s == 0"},
	"uint64":  {"w.uint(%s)", "%s == 0"},
	"float64": {"w.float(%s)", "%s == 0"},
}

// writer returns the statement writing src, of type t (which reader
// reads), and the condition under which omitempty leaves it out ("" for a
// struct value, whose emptiness is not written here).
func (g *gen) writer(t ast.Expr, src string) (string, string) {
	switch t := t.(type) {
	case *ast.Ident:
		if w, ok := writers[t.Name]; ok {
			return fmt.Sprintf(w[0], src), fmt.Sprintf(w[1], src)
		}
		if g.pkg.strings[t.Name] {
			return "w.str(string(" + src + "))", src + ` == ""`
		}
		return src + ".encodeMsgpack(w)", ""
	case *ast.StarExpr:
		return fmt.Sprintf("if %s == nil {\nw.nil()\n} else {\n%s.encodeMsgpack(w)\n}", src, src), src + " == nil"
	case *ast.ArrayType:
		switch e := t.Elt.(type) {
		case *ast.Ident:
			switch e.Name {
			case "string":
				return "w.strings(" + src + ")", "len(" + src + ") == 0"
			case "int":
				return "w.ints(" + src + ")", "len(" + src + ") == 0"
			}
			return fmt.Sprintf("if %s == nil {\nw.nil()\n} else {\nw.arrayLen(len(%s))\nfor i := range %s {\n%s[i].encodeMsgpack(w)\n}\n}", src, src, src, src), "len(" + src + ") == 0"
		default:
			return "w.points(" + src + ")", "len(" + src + ") == 0"
		}
	case *ast.MapType:
		return "w.stringMap(" + src + ")", "len(" + src + ") == 0"
	}
	return "", ""
}

func (g *gen) files() (map[string][]byte, error) {
	by := map[string][]string{}
	for _, n := range g.order {
		f := strings.TrimSuffix(g.pkg.file[n], ".go") + Suffix
		by[f] = append(by[f], n)
	}
	out := map[string][]byte{}
	for f, names := range by {
		base := strings.TrimSuffix(f, Suffix)
		for _, part := range []struct {
			name   string
			encode bool
		}{{base + "_decode" + Suffix, false}, {base + "_encode" + Suffix, true}} {
			b, err := g.file(names, part.encode)
			if err != nil {
				return nil, fmt.Errorf("msgpackgen: %s: %w", part.name, err)
			}
			out[part.name] = b
		}
	}
	return out, nil
}

// file writes the decoders (or the encoders) of the types in order.
func (g *gen) file(order []string, encode bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by tools/msgpackgen (go generate ./events/...); DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\n", g.pkg.name)
	if encode {
		b.WriteString("// The msgpack encoders of the payload types declared beside this file\n// (tools/msgpackgen), over the writer of msgpack_write.go: the bytes msgpack's\n// reflective encoder writes with the codec's settings (codec.go).\n")
	} else {
		b.WriteString("// The msgpack decoders of the payload types declared beside this file\n// (tools/msgpackgen), over the reader of msgpack_read.go.\n")
	}
	var skipped []string
	for n := range g.skip {
		if f := strings.TrimSuffix(g.pkg.file[n], ".go") + Suffix; f == strings.TrimSuffix(g.pkg.file[order[0]], ".go")+Suffix {
			skipped = append(skipped, n)
		}
	}
	if len(skipped) > 0 && !encode {
		slices.Sort(skipped)
		b.WriteString("//\n// Without a decoder (the reflective decoder reads them):\n")
		for _, n := range skipped {
			fmt.Fprintf(&b, "//   - %s: %s\n", n, g.skip[n])
		}
	}
	order = slices.Clone(order)
	slices.Sort(order)
	b.WriteString("\nvar (\n")
	for _, n := range order {
		if encode {
			fmt.Fprintf(&b, "_ fastEncoder = (*%s)(nil)\n", n)
		} else {
			fmt.Fprintf(&b, "_ fastDecoder = (*%s)(nil)\n", n)
		}
	}
	b.WriteString(")\n")
	if encode {
		g.encoders(&b, order)
		return format.Source(b.Bytes())
	}

	for _, n := range order {
		fmt.Fprintf(&b, "\nfunc (p *%s) decodeMsgpack(r *reader) {\n", n)
		b.WriteString("var seen uint64\nfor n := r.mapLen(); n > 0 && r.err == nil; n-- {\nvar f uint\nswitch string(r.strBytes()) {\n")
		for i, f := range g.body[n] {
			fmt.Fprintf(&b, "case %q:\nf = %d\n%s\n", f.key, i, f.read)
		}
		b.WriteString("default:\nr.fail(errFallback)\nreturn\n}\nif !r.once(&seen, f) {\nreturn\n}\n}\n}\n")
	}
	return format.Source(b.Bytes())
}

// encoders writes the encoders of the types in order.
func (g *gen) encoders(b *bytes.Buffer, order []string) {
	for _, n := range order {
		fmt.Fprintf(b, "\nfunc (p *%s) encodeMsgpack(w *writer) {\n", n)
		fields := g.body[n]
		always, counts := 0, ""
		for _, f := range fields {
			if f.empty == "" {
				always++
			} else {
				counts += fmt.Sprintf("if !(%s) {\nn++\n}\n", f.empty)
			}
		}
		if counts == "" {
			fmt.Fprintf(b, "w.mapLen(%d)\n", always)
		} else {
			fmt.Fprintf(b, "n := %d\n%sw.mapLen(n)\n", always, counts)
		}
		for _, f := range fields {
			if f.empty != "" {
				fmt.Fprintf(b, "if !(%s) {\nw.str(%q)\n%s\n}\n", f.empty, f.key, f.write)
			} else {
				fmt.Fprintf(b, "w.str(%q)\n%s\n", f.key, f.write)
			}
		}
		b.WriteString("}\n")
	}
}
