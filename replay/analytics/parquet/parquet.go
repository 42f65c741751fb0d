// Package parquet writes rows to Parquet files through
// github.com/parquet-go/parquet-go: the one package that imports it. The
// schema is built at run time from a column list, so any query result or
// analytic table can be written, columns in the order given.
package parquet

import (
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/matchrec/matchrec/store/api"
)

// Writer writes rows of Go values (int64, float64, string, bool,
// time.Time or nil) as Parquet.
type Writer struct {
	cols []api.Column
	w    *pq.Writer
	buf  []pq.Row
}

// rowsPerWrite batches rows handed to parquet-go; rowsPerGroup bounds a
// row group.
const (
	rowsPerWrite = 1024
	rowsPerGroup = 128 * 1024
)

// Metadata is key-value metadata of the file's footer (schema version,
// writer, source: what a reader of the file alone needs to know), written
// in key order.
type Metadata map[string]string

// NewWriter starts a Parquet file on out with the given columns (the API's
// column kinds; zstd-compressed pages) and footer metadata (none: nil). A
// column is required when the API says it is never null (a table's),
// optional otherwise (a query may return nulls anywhere).
func NewWriter(out io.Writer, cols []api.Column, meta Metadata) (*Writer, error) {
	fields := make([]pq.Field, len(cols))
	for i, c := range cols {
		var leaf pq.Node
		switch c.Kind {
		case api.KindInt:
			leaf = pq.Int(64)
		case api.KindFloat:
			leaf = pq.Leaf(pq.DoubleType)
		case api.KindString:
			leaf = pq.String()
		case api.KindBool:
			leaf = pq.Leaf(pq.BooleanType)
		case api.KindTime:
			leaf = pq.Timestamp(pq.Microsecond)
		default:
			return nil, fmt.Errorf("parquet: column %s: unsupported kind %q", c.Name, c.Kind)
		}
		if strings.ContainsRune(c.Name, ',') {
			return nil, fmt.Errorf("parquet: column name %q has a comma", c.Name)
		}
		node := pq.Optional(leaf)
		if c.Required {
			node = pq.Required(leaf)
		}
		fields[i] = &field{Node: node, name: c.Name}
	}
	schema := pq.NewSchema("row", &group{fields: fields})
	// Bounded row groups keep the writer's memory (and the collector's
	// work) flat however long the export.
	opts := []pq.WriterOption{schema, pq.Compression(codec()), pq.MaxRowsPerRowGroup(rowsPerGroup)}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		opts = append(opts, pq.KeyValueMetadata(k, meta[k]))
	}
	return &Writer{cols: cols, w: pq.NewWriter(out, opts...)}, nil
}

func codec() compress.Codec { return &zstd.Codec{} }

// Write appends rows; each has one value per column.
func (w *Writer) Write(rows [][]any) error {
	for _, r := range rows {
		if len(r) != len(w.cols) {
			return fmt.Errorf("parquet: row of %d values for %d columns", len(r), len(w.cols))
		}
		row := make(pq.Row, len(r))
		for i, v := range r {
			val, err := value(w.cols[i], v)
			if err != nil {
				return err
			}
			switch {
			case v == nil && w.cols[i].Required:
				return fmt.Errorf("parquet: column %s is required, but a row holds null", w.cols[i].Name)
			case v == nil, w.cols[i].Required:
				row[i] = val.Level(0, 0, i) // a null, or a required value: no definition level
			default:
				row[i] = val.Level(0, 1, i)
			}
		}
		w.buf = append(w.buf, row)
		if len(w.buf) == rowsPerWrite {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *Writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.w.WriteRows(w.buf); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	w.buf = w.buf[:0]
	return nil
}

// Close writes what is buffered and the file's footer.
func (w *Writer) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

func value(c api.Column, v any) (pq.Value, error) {
	if v == nil {
		return pq.NullValue(), nil
	}
	bad := func() (pq.Value, error) {
		return pq.Value{}, fmt.Errorf("parquet: column %s (%s): value %v is a %T", c.Name, c.Kind, v, v)
	}
	switch c.Kind {
	case api.KindInt:
		if x, ok := v.(int64); ok {
			return pq.Int64Value(x), nil
		}
	case api.KindFloat:
		switch x := v.(type) {
		case float64:
			return pq.DoubleValue(x), nil
		case int64:
			return pq.DoubleValue(float64(x)), nil
		}
	case api.KindString:
		if x, ok := v.(string); ok {
			return pq.ByteArrayValue([]byte(x)), nil
		}
	case api.KindBool:
		if x, ok := v.(bool); ok {
			return pq.BooleanValue(x), nil
		}
	case api.KindTime:
		if x, ok := v.(time.Time); ok {
			return pq.Int64Value(x.UnixMicro()), nil
		}
	}
	return bad()
}

// group is a parquet group whose fields keep the order given (parquet-go's
// Group is a map and sorts them by name).
type group struct{ fields []pq.Field }

func (g *group) ID() int                     { return 0 }
func (g *group) String() string              { return "group" }
func (g *group) Type() pq.Type               { return pq.Group{}.Type() }
func (g *group) Optional() bool              { return false }
func (g *group) Repeated() bool              { return false }
func (g *group) Required() bool              { return true }
func (g *group) Leaf() bool                  { return false }
func (g *group) Fields() []pq.Field          { return g.fields }
func (g *group) Encoding() encoding.Encoding { return nil }
func (g *group) Compression() compress.Codec { return nil }
func (g *group) GoType() reflect.Type {
	sf := make([]reflect.StructField, len(g.fields))
	for i, f := range g.fields {
		sf[i] = reflect.StructField{Name: exported(f.Name(), i), Type: f.GoType(), Tag: reflect.StructTag(`parquet:"` + f.Name() + `"`)}
	}
	return reflect.StructOf(sf)
}

// exported makes a Go field name from a column name (for GoType only).
func exported(name string, i int) string {
	var b strings.Builder
	b.WriteString("F")
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return fmt.Sprintf("%s_%d", b.String(), i)
}

// field names a node inside the group.
type field struct {
	pq.Node
	name string
}

func (f *field) Name() string { return f.name }

func (f *field) Value(base reflect.Value) reflect.Value {
	return base.FieldByName(exported(f.name, indexOf(base, f.name)))
}

func indexOf(base reflect.Value, name string) int {
	t := base.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("parquet") == name {
			return i
		}
	}
	return -1
}
