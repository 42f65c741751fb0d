package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/parquet"
	"github.com/matchrec/matchrec/store/api"
)

// A partitioned export writes each table as a Hive-partitioned Parquet
// data set, the layout DuckDB, Spark, Trino/Presto, Athena and pandas
// read as one table:
//
//	DIR/<table>/edition=<edition>/month=<YYYY-MM>/part-00000.parquet
//
// edition is the match's edition and month the month the match was
// created, so every row of a match lands in one partition. As Hive
// expects, the partition columns live in the directory names, not in the
// files (edition leaves the files; month is no table column): readers
// add them back from the path (DuckDB: read_parquet('DIR/rolls/**/*.parquet',
// hive_partitioning = true)). Each file's footer carries key-value
// metadata (partitionMeta). Each table's directory is written under a
// temporary name and renamed into place when complete, replacing the
// previous export's: a failed export leaves the previous one whole.

// Footer keys of every exported Parquet file.
const (
	metaSchemaVersion = "matchrec.schema_version" // the analytic tables' schema version (docs/analytics.md)
	metaVersion       = "matchrec.version"        // the matchrec that wrote the file
	metaRecorder      = "matchrec.recorder"       // the public key of the recorder the rows come from
	metaTable         = "matchrec.table"
	metaPartition     = "matchrec.partition" // edition=…/month=…, for a partitioned file
	metaExported      = "matchrec.exported_at"
)

// PartitionedResult is what `export --partitioned --json` prints.
type PartitionedResult struct {
	Dir        string             `json:"dir"`
	Tables     []PartitionedTable `json:"tables"`
	Rows       int64              `json:"rows"`
	Files      int                `json:"files"`
	Bytes      int64              `json:"bytes"`
	Seconds    float64            `json:"seconds"`
	RowsPerSec float64            `json:"rows_per_second"`
}

// PartitionedTable is one table of a partitioned export.
type PartitionedTable struct {
	Table      string   `json:"table"`
	Dir        string   `json:"dir,omitempty"` // absent when the table had no rows
	Rows       int64    `json:"rows"`
	Files      int      `json:"files"`
	Bytes      int64    `json:"bytes"`
	Partitions []string `json:"partitions"` // edition=…/month=…
}

// exportMeta is the footer metadata every file of an export shares.
func (a *app) exportMeta(ctx context.Context, c *recorderAPI, table string) (parquet.Metadata, error) {
	var ping api.PingResult
	if err := c.call(ctx, api.VerbPing, nil, &ping); err != nil {
		return nil, err
	}
	var version string
	err := a.stream(ctx, c, api.ExportRequest{Query: "SELECT value FROM meta WHERE key = 'schema_version'"}, nil, func(rows [][]any) error {
		for _, r := range rows {
			version, _ = r[0].(string)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return parquet.Metadata{
		metaSchemaVersion: version,
		metaVersion:       versionInfo().Version,
		metaRecorder:      ping.Recorder,
		metaTable:         table,
		metaExported:      time.Now().UTC().Format(time.RFC3339),
	}, nil
}

// exportPartitioned writes each of tables under dir, by partition.
func (a *app) exportPartitioned(ctx context.Context, c *recorderAPI, tables []*analytics.Table, f api.Filter, dir string, mode os.FileMode) (PartitionedResult, error) {
	res := PartitionedResult{Dir: dir, Tables: []PartitionedTable{}}
	start := time.Now()
	if err := os.MkdirAll(dir, dirModeFor(mode)); err != nil {
		return res, &cliError{exit: ExitUsage, code: projector.CodeBadOutput, msg: err.Error()}
	}
	for _, t := range tables {
		meta, err := a.exportMeta(ctx, c, t.Name)
		if err != nil {
			return res, err
		}
		pt, err := a.exportTablePartitioned(ctx, c, t, f, dir, mode, meta)
		if err != nil {
			return res, fmt.Errorf("table %s: %w", t.Name, err)
		}
		res.Tables = append(res.Tables, pt)
		res.Rows += pt.Rows
		res.Files += pt.Files
		res.Bytes += pt.Bytes
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.RowsPerSec = float64(res.Rows) / res.Seconds
	}
	return res, nil
}

// dirModeFor is the mode of directories holding files of mode m: whoever
// may read the files may list them (0644 → 0755, 0600 → 0700).
func dirModeFor(m os.FileMode) os.FileMode {
	read := m & 0o044
	return 0o700 | read | read>>2 // group/other read → read and search
}

// exportTablePartitioned writes one table: a temporary directory filled
// partition by partition (the node sends the rows ordered by them), then
// renamed over dir/<table>.
func (a *app) exportTablePartitioned(ctx context.Context, c *recorderAPI, t *analytics.Table, f api.Filter, dir string, mode os.FileMode, meta parquet.Metadata) (res PartitionedTable, err error) {
	res = PartitionedTable{Table: t.Name, Partitions: []string{}}
	tmp, err := os.MkdirTemp(dir, "."+t.Name+".tmp-")
	if err != nil {
		return res, &cliError{exit: ExitUsage, code: projector.CodeBadOutput, msg: err.Error()}
	}
	defer func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	var (
		cur       *partitionFile
		edIdx, mo int
		keep      []int // the columns a file holds: all but edition and month
		fileCols  []api.Column
		total     int64
		bar       = a.newProgress("exporting " + t.Name + " by partition")
	)
	defer bar.Done()
	closeCur := func() error {
		if cur == nil {
			return nil
		}
		n, err := cur.close(mode)
		res.Files++
		res.Bytes += n
		cur = nil
		return err
	}
	defer func() {
		if cur != nil {
			cur.abort()
		}
	}()
	var batch [][]any // the current partition's rows of this page
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := cur.w.Write(batch)
		batch = batch[:0]
		return err
	}
	err = a.stream(ctx, c, api.ExportRequest{Table: t.Name, Filter: f, Partitioned: true}, func(op api.ExportOpened) error {
		total = op.Total
		edIdx, mo = -1, -1
		for i, col := range op.Columns {
			switch col.Name {
			case "edition":
				edIdx = i
			case analytics.MonthColumn:
				mo = i
			default:
				keep = append(keep, i)
				fileCols = append(fileCols, col)
			}
		}
		if edIdx < 0 || mo < 0 {
			return fmt.Errorf("the node's partitioned export of %s lacks its edition or month column", t.Name)
		}
		return nil
	}, func(rows [][]any) error {
		for _, r := range rows {
			ed, _ := r[edIdx].(string)
			month, _ := r[mo].(string)
			part := "edition=" + hiveValue(ed) + "/month=" + hiveValue(month)
			if cur == nil || cur.part != part {
				if err := flush(); err != nil {
					return err
				}
				if err := closeCur(); err != nil {
					return err
				}
				if slices.Contains(res.Partitions, part) {
					return fmt.Errorf("partition %s came twice: the node's rows are not ordered by partition", part)
				}
				m := map[string]string{metaPartition: part}
				for k, v := range meta {
					m[k] = v
				}
				var err error
				if cur, err = newPartitionFile(tmp, part, fileCols, m, mode); err != nil {
					return err
				}
				res.Partitions = append(res.Partitions, part)
			}
			vals := make([]any, len(keep))
			for i, k := range keep {
				vals[i] = r[k]
			}
			batch = append(batch, vals)
			res.Rows++
		}
		bar.Update(int(res.Rows), int(total))
		return flush()
	})
	if err != nil {
		return res, err
	}
	if err := closeCur(); err != nil {
		return res, err
	}
	final := filepath.Join(dir, t.Name)
	if res.Rows == 0 {
		// Nothing to write: the table's data set is empty, so no previous
		// export of it may stand for it.
		if err := os.RemoveAll(final); err != nil {
			return res, err
		}
		return res, nil
	}
	if err := replaceDir(tmp, final, mode); err != nil {
		return res, err
	}
	tmp, res.Dir = "", final
	return res, nil
}

// replaceDir renames the complete directory tmp to final, moving a
// previous final aside first and removing it after.
func replaceDir(tmp, final string, mode os.FileMode) error {
	if err := os.Chmod(tmp, dirModeFor(mode)); err != nil { // MkdirTemp makes it 0700
		return err
	}
	old := ""
	if _, err := os.Stat(final); err == nil {
		old = tmp + ".old"
		if err := os.Rename(final, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// partitionFile is the Parquet file of one partition being written.
type partitionFile struct {
	part string
	f    *os.File
	buf  *bufio.Writer
	w    *parquet.Writer
}

func newPartitionFile(root, part string, cols []api.Column, meta parquet.Metadata, mode os.FileMode) (*partitionFile, error) {
	d := filepath.Join(root, filepath.FromSlash(part))
	if err := os.MkdirAll(d, dirModeFor(mode)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(d, "part-00000.parquet"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	w, err := parquet.NewWriter(buf, cols, meta)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &partitionFile{part: part, f: f, buf: buf, w: w}, nil
}

// close finishes the file and returns its size.
func (p *partitionFile) close(mode os.FileMode) (int64, error) {
	err := p.w.Close()
	if err == nil {
		err = p.buf.Flush()
	}
	if err == nil {
		err = p.f.Chmod(mode) // the umask may have narrowed it
	}
	var size int64
	if st, serr := p.f.Stat(); serr == nil {
		size = st.Size()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	return size, err
}

func (p *partitionFile) abort() { p.f.Close() }

// hiveValue escapes a partition value as Hive does (FileUtils.escapePathName):
// the characters a path or a key=value pair cannot hold become %XX.
func hiveValue(v string) string {
	if v == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	var b strings.Builder
	for _, c := range []byte(v) {
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
