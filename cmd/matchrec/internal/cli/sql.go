package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/api"
)

func (a *app) sqlCmd() *cobra.Command {
	var (
		asCSV   bool
		maxRows int
	)
	cmd := &cobra.Command{
		Use:   "sql QUERY",
		Short: "Run SQL over the analytic tables (matches, rolls, attacks, charges, units)",
		Long: `sql runs one read-only query (SELECT, WITH … SELECT, EXPLAIN) with DuckDB over
the analytic tables derived from every recorded match: matches, rolls (one row
per die), attacks (one row per attack sequence, with expected values from the
exact odds), charges (6e) and units. The tables are brought up to date with
the store first, folding only the events they lack. docs/analytics.md
describes every column and has example queries.

Output is an aligned table (at most --max-rows rows), --csv for every row as
CSV, or --json for every row as a JSON array of objects. A query that does not
parse, or names an unknown table or column, fails with code bad_query (exit 1).`,
		Example: `  matchrec sql "SELECT need, count(*) AS dice, avg(success::INT) AS rate FROM rolls WHERE purpose = 'hit' GROUP BY need ORDER BY need"
  matchrec sql --csv "SELECT * FROM attacks WHERE edition = '3e'" > attacks.csv
  matchrec --json sql "SELECT roller, count(*) FROM rolls GROUP BY roller"`,
		Args: exactArgs("QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asCSV && a.json {
				return usageErr(errors.New("give --csv or --json, not both"))
			}
			if maxRows <= 0 {
				return usageErr(fmt.Errorf("--max-rows must be positive, got %d", maxRows))
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				if err := a.syncTables(ctx, c); err != nil {
					return err
				}
				var out rowWriter
				switch {
				case asCSV:
					out = &csvRows{w: csv.NewWriter(a.stdout)}
				case a.json:
					out = &jsonRows{w: a.stdout}
				default:
					out = &textRows{w: a.stdout, max: maxRows}
				}
				err := a.stream(ctx, c, api.ExportRequest{Query: args[0]}, func(op api.ExportOpened) error {
					return out.header(op.Columns)
				}, out.rows)
				if err != nil && !errors.Is(err, events.ErrStop) {
					return err
				}
				return out.end(errors.Is(err, events.ErrStop))
			})
		},
	}
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print every row as CSV (a header line first)")
	cmd.Flags().IntVar(&maxRows, "max-rows", 1000, "rows shown in the aligned table (--csv and --json print all)")
	return cmd
}

// rowWriter prints a result as it streams in.
type rowWriter interface {
	header(cols []api.Column) error
	rows(rows [][]any) error
	end(truncated bool) error
}

// textRows buffers up to max rows to align them.
type textRows struct {
	w    io.Writer
	max  int
	cols []api.Column
	data [][]string
}

func (t *textRows) header(cols []api.Column) error { t.cols = cols; return nil }

func (t *textRows) rows(rows [][]any) error {
	for _, r := range rows {
		if len(t.data) == t.max {
			return events.ErrStop
		}
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = textCell(v)
		}
		t.data = append(t.data, cells)
	}
	return nil
}

func (t *textRows) end(truncated bool) error {
	width := make([]int, len(t.cols))
	for i, c := range t.cols {
		width[i] = utf8.RuneCountInString(c.Name)
	}
	for _, r := range t.data {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	right := func(i int) bool { return t.cols[i].Kind == api.KindInt || t.cols[i].Kind == api.KindFloat }
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if right(i) {
				b.WriteString(pad + c)
			} else if i < len(cells)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
	}
	names := make([]string, len(t.cols))
	rules := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i], rules[i] = c.Name, strings.Repeat("-", width[i])
	}
	line(names)
	line(rules)
	for _, r := range t.data {
		line(r)
	}
	switch {
	case truncated:
		fmt.Fprintf(t.w, "(first %d rows shown; raise --max-rows, or use --csv or --json for all)\n", len(t.data))
	case len(t.data) == 1:
		fmt.Fprintln(t.w, "(1 row)")
	default:
		fmt.Fprintf(t.w, "(%d rows)\n", len(t.data))
	}
	return nil
}

// textCell formats a value for people: floats to 4 decimals, NULL shown.
func textCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
		s := strconv.FormatFloat(x, 'f', 4, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if s == "-0" {
			s = "0"
		}
		return s
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05")
	}
	return fmt.Sprint(v)
}

// csvCell formats a value for programs: full precision, RFC 3339 times,
// NULL as an empty field.
func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

type csvRows struct {
	w    *csv.Writer
	cols []api.Column
}

func (c *csvRows) header(cols []api.Column) error {
	c.cols = cols
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	return c.w.Write(names)
}

func (c *csvRows) rows(rows [][]any) error {
	rec := make([]string, len(c.cols))
	for _, r := range rows {
		for i, v := range r {
			rec[i] = csvCell(v)
		}
		if err := c.w.Write(rec); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

func (c *csvRows) end(bool) error { c.w.Flush(); return c.w.Error() }

// jsonRows prints one JSON array of objects, streamed.
type jsonRows struct {
	w     io.Writer
	cols  []api.Column
	count int
}

func (j *jsonRows) header(cols []api.Column) error {
	j.cols = cols
	_, err := io.WriteString(j.w, "[")
	return err
}

func (j *jsonRows) rows(rows [][]any) error {
	for _, r := range rows {
		b, err := rowJSON(j.cols, r)
		if err != nil {
			return err
		}
		sep := ",\n  "
		if j.count == 0 {
			sep = "\n  "
		}
		j.count++
		if _, err := io.WriteString(j.w, sep+string(b)); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonRows) end(bool) error {
	end := "\n]\n"
	if j.count == 0 {
		end = "]\n"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// rowJSON encodes a row as an object, keys in column order.
func rowJSON(cols []api.Column, r []any) ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(cols[i].Name)
		var val []byte
		var err error
		if s, ok := v.(string); ok && cols[i].Kind == api.KindOther {
			val = []byte(s) // already JSON
		} else if val, err = json.Marshal(v); err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
