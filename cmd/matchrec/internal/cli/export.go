package cli

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/parquet"
	"github.com/matchrec/matchrec/store/api"
)

// ExportResult is what `export --json` prints.
type ExportResult struct {
	File       string  `json:"file"`
	Table      string  `json:"table"`
	Format     string  `json:"format"`
	Rows       int64   `json:"rows"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_second"`
}

// exportFormats are the formats export writes.
var exportFormats = []string{"parquet", "csv", "jsonl"}

func (a *app) exportCmd() *cobra.Command {
	var (
		table, format, out, edition, player, since, bundle, partitioned string
		mode                                                            = fileMode(0o644)
	)
	cmd := &cobra.Command{
		Use:   "export --table TABLE --format parquet|csv|jsonl | export --partitioned DIR | export MATCH --bundle FILE",
		Short: "Write an analytic table to Parquet, CSV or JSON lines (or every table as partitioned Parquet), or a match to a bundle",
		Long: `export --table writes one analytic table (matches, rolls, attacks, charges,
units) to a file for the tools analysts already use: Parquet (pandas, polars,
R arrow, DuckDB, Spark), CSV, or JSON lines. Rows are written in the table's
key order (docs/analytics.md lists the columns). The tables are first brought
up to date with the store, folding only the events they lack.
--edition, --player and --since keep the rows of matches of that edition,
with that player, created on or after that date (YYYY-MM-DD or RFC 3339).
With --json the result (rows, bytes, rows per second) is printed as JSON.
A Parquet file's footer names the tables' schema version, the matchrec
that wrote it and the recorder the rows come from (key-value metadata
matchrec.schema_version, matchrec.version, matchrec.recorder).

export --partitioned DIR writes every table (or the one --table names) as
Hive-partitioned Parquet, the layout DuckDB, Spark and Trino read as one
table: DIR/TABLE/edition=E/month=YYYY-MM/part-00000.parquet, edition and
month (of the match's creation) in the path, not in the files. Each table's
directory replaces the previous export's once it is complete
(docs/analytics.md, "Partitioned Parquet").

export MATCH --bundle FILE writes one match's self-verifying bundle instead:
every stored record, for 'matchrec verify' to audit offline.

Either way the file is written under a temporary name and renamed when
complete, so a failed or interrupted export leaves no partial file. It is
readable by everyone (mode 0644) unless --mode says otherwise (0600: only
you).`,
		Example: `  matchrec export --table rolls --format parquet
  matchrec export --table attacks --format csv --edition 6e --out attacks-6e.csv
  matchrec --json export --table rolls --format jsonl --player alice --since 2026-01-01
  matchrec export --partitioned lake/
  matchrec export --partitioned lake/ --table rolls --since 2026-01-01
  matchrec export 3fa9c2e1b7d0 --bundle match.bundle`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case partitioned != "" && (bundle != "" || out != ""):
				return usageErr(errors.New("--partitioned DIR writes a directory: give no --bundle or --out with it"))
			case partitioned != "" && format != "parquet":
				return usageErr(fmt.Errorf("--partitioned writes Parquet, not %s", format))
			case partitioned != "" && len(args) > 0:
				return usageErr(fmt.Errorf("unexpected argument %q", args[0]))
			case partitioned != "":
				return nil
			case bundle != "" && len(args) != 1:
				return usageErr(errors.New("--bundle FILE exports one MATCH: give its id"))
			case bundle == "" && len(args) > 0:
				return usageErr(fmt.Errorf("unexpected argument %q (a match is exported with --bundle FILE)", args[0]))
			case bundle == "" && table == "":
				return usageErr(errors.New("give --table TABLE (or MATCH --bundle FILE)"))
			case bundle != "" && table != "":
				return usageErr(errors.New("give --table or --bundle, not both"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if bundle != "" {
				return a.exportBundle(cmd.Context(), args[0], bundle, os.FileMode(mode))
			}
			tables := analytics.Tables
			if table != "" || partitioned == "" {
				t, err := analytics.Lookup(table)
				if err != nil {
					return usageErr(err)
				}
				tables = []*analytics.Table{t}
			}
			t := tables[0]
			var err error
			if !slices.Contains(exportFormats, format) {
				return usageErr(fmt.Errorf("--format %q: want one of %s", format, strings.Join(exportFormats, ", ")))
			}
			if edition != "" && !slices.Contains(editions.IDs(), edition) {
				return usageErr(fmt.Errorf("--edition %q: known editions are %s", edition, strings.Join(editions.IDs(), ", ")))
			}
			f := api.Filter{Edition: edition, Player: player}
			if since != "" {
				if f.Since, err = parseDate(since); err != nil {
					return usageErr(err)
				}
			}
			if out == "" {
				out = t.Name + "." + format
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				if err := a.syncTables(ctx, c); err != nil {
					return err
				}
				if partitioned != "" {
					res, err := a.exportPartitioned(ctx, c, tables, f, partitioned, os.FileMode(mode))
					if err != nil {
						return err
					}
					if a.json {
						return a.printJSON(res)
					}
					for _, pt := range res.Tables {
						if pt.Rows == 0 {
							fmt.Fprintf(a.stdout, "%s: no rows, nothing written\n", pt.Table)
							continue
						}
						fmt.Fprintf(a.stdout, "wrote %d %s rows to %s (%d partitions)\n", pt.Rows, pt.Table, pt.Dir, len(pt.Partitions))
					}
					fmt.Fprintf(a.stdout, "%d rows in %d files (%.0f rows/s)\n", res.Rows, res.Files, res.RowsPerSec)
					return nil
				}
				res, err := a.export(cmd, c, api.ExportRequest{Table: t.Name, Filter: f}, format, out, os.FileMode(mode))
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				fmt.Fprintf(a.stdout, "wrote %d %s rows to %s (%.0f rows/s)\n", res.Rows, res.Table, res.File, res.RowsPerSec)
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&table, "table", "", "table to export: "+strings.Join(tableNames(), ", "))
	fl.StringVar(&format, "format", "parquet", "file format: "+strings.Join(exportFormats, ", "))
	fl.StringVar(&out, "out", "", "file to write (default TABLE.FORMAT in the current directory)")
	fl.StringVar(&edition, "edition", "", "only matches of this edition")
	fl.StringVar(&player, "player", "", "only matches this player played")
	fl.StringVar(&since, "since", "", "only matches created on or after this date (YYYY-MM-DD or RFC 3339)")
	fl.StringVar(&bundle, "bundle", "", "write MATCH's self-verifying bundle to this file (for 'matchrec verify')")
	fl.StringVar(&partitioned, "partitioned", "", "write every table (or --table's) as Hive-partitioned Parquet under this directory: TABLE/edition=E/month=YYYY-MM/")
	fl.Var(&mode, "mode", "permissions of the file written, in octal")
	return cmd
}

// fileMode is a flag of file permissions in octal: 644, 0600.
type fileMode os.FileMode

func (m *fileMode) String() string { return fmt.Sprintf("%#o", uint32(*m)) }

func (m *fileMode) Set(s string) error {
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil || v > 0o777 {
		return fmt.Errorf("%q is not a file mode (want octal permissions like 0644 or 0600)", s)
	}
	*m = fileMode(v)
	return nil
}

func (m *fileMode) Type() string { return "octal" }

func tableNames() []string {
	out := make([]string, len(analytics.Tables))
	for i, t := range analytics.Tables {
		out[i] = t.Name
	}
	return out
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want YYYY-MM-DD or an RFC 3339 time", s)
}

// export streams the table into a temporary file next to out and renames
// it into place once complete.
func (a *app) export(cmd *cobra.Command, c *recorderAPI, req api.ExportRequest, format, out string, mode os.FileMode) (res ExportResult, err error) {
	ctx := cmd.Context()
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return res, &cliError{exit: ExitUsage, code: projector.CodeBadOutput, msg: err.Error()}
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	buf := bufio.NewWriterSize(tmp, 1<<20)
	var (
		w     tableWriter
		total int64
		bar   = a.newProgress("exporting " + req.Table)
		start = time.Now()
	)
	defer bar.Done()
	var meta parquet.Metadata
	if format == "parquet" {
		if meta, err = a.exportMeta(ctx, c, req.Table); err != nil {
			return res, err
		}
	}
	err = a.stream(ctx, c, req, func(op api.ExportOpened) error {
		total = op.Total
		var err error
		w, err = newTableWriter(format, buf, op.Columns, meta)
		return err
	}, func(rows [][]any) error {
		if err := w.write(rows); err != nil {
			return err
		}
		res.Rows += int64(len(rows))
		bar.Update(int(res.Rows), int(total))
		return nil
	})
	if err != nil {
		return res, err // no_data, bad_query: exit 1 with the node's code
	}
	if err = w.close(); err != nil {
		return res, err
	}
	if err = buf.Flush(); err != nil {
		return res, err
	}
	if err = tmp.Chmod(mode); err != nil { // CreateTemp makes it 0600
		return res, err
	}
	if err = tmp.Close(); err != nil {
		return res, err
	}
	if err = os.Rename(tmp.Name(), out); err != nil {
		return res, err
	}
	st, _ := os.Stat(out)
	secs := time.Since(start).Seconds()
	res = ExportResult{File: out, Table: req.Table, Format: format, Rows: res.Rows, Seconds: secs}
	if st != nil {
		res.Bytes = st.Size()
	}
	if secs > 0 {
		res.RowsPerSec = float64(res.Rows) / secs
	}
	return res, nil
}

// tableWriter writes rows in one file format.
type tableWriter interface {
	write(rows [][]any) error
	close() error
}

func newTableWriter(format string, w io.Writer, cols []api.Column, meta parquet.Metadata) (tableWriter, error) {
	switch format {
	case "parquet":
		pw, err := parquet.NewWriter(w, cols, meta)
		if err != nil {
			return nil, err
		}
		return parquetRows{pw}, nil
	case "csv":
		cw := &csvRows{w: csv.NewWriter(w)}
		if err := cw.header(cols); err != nil {
			return nil, err
		}
		return csvTable{cw}, nil
	case "jsonl":
		return &jsonlRows{w: w, cols: cols}, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

type parquetRows struct{ w *parquet.Writer }

func (p parquetRows) write(rows [][]any) error { return p.w.Write(rows) }
func (p parquetRows) close() error             { return p.w.Close() }

type csvTable struct{ c *csvRows }

func (c csvTable) write(rows [][]any) error { return c.c.rows(rows) }
func (c csvTable) close() error             { return c.c.end(false) }

// jsonlRows writes one JSON object per line.
type jsonlRows struct {
	w    io.Writer
	cols []api.Column
}

func (j *jsonlRows) write(rows [][]any) error {
	for _, r := range rows {
		b, err := rowJSON(j.cols, r)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := j.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonlRows) close() error { return nil }
