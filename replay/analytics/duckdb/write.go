package duckdb

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay/analytics"
)

// Checkpoints reads each match's checkpoint from the matches table: its
// events and head columns are the last event folded.
func (d *DB) Checkpoints(ctx context.Context) (map[string]analytics.Checkpoint, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	rows, err := d.w.QueryContext(ctx, `SELECT match, events, head FROM matches`)
	if err != nil {
		return nil, fmt.Errorf("analytics checkpoints: %w", err)
	}
	defer rows.Close()
	out := map[string]analytics.Checkpoint{}
	for rows.Next() {
		var (
			id, head string
			seq      int64
		)
		if err := rows.Scan(&id, &seq, &head); err != nil {
			return nil, fmt.Errorf("analytics checkpoints: %w", err)
		}
		var h events.Hash
		if b, err := hex.DecodeString(head); err == nil && len(b) == len(h) {
			copy(h[:], b)
		}
		out[id] = analytics.Checkpoint{Seq: uint64(seq), Head: h}
	}
	return out, rows.Err()
}

// Write applies batches in one transaction: the rows of a reset or gone
// match are deleted, new rows appended, and each match's row (which holds
// its checkpoint) replaced. A failure rolls everything back.
func (d *DB) Write(ctx context.Context, batches []analytics.Batch) (err error) {
	if len(batches) == 0 {
		return nil
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.w == nil {
		return errors.New("analytics database is closed")
	}
	if _, err := d.w.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("analytics write: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = d.w.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	var touched, reset []string
	for _, b := range batches {
		touched = append(touched, b.Match)
		if b.Reset || b.Gone {
			reset = append(reset, b.Match)
		}
	}
	var restated []string
	for _, b := range batches {
		if b.Measurements != nil && !b.Reset && !b.Gone {
			restated = append(restated, b.Match)
		}
	}
	for _, t := range analytics.Tables {
		ids := reset
		switch {
		case t.Replaced:
			ids = touched
		case t.Restated:
			ids = append(slices.Clone(reset), restated...)
		}
		if err := d.deleteMatches(ctx, t.Name, ids); err != nil {
			return err
		}
	}
	err = d.w.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb connection is a %T", dc)
		}
		pick := map[string]func(*analytics.Batch) []analytics.Row{
			analytics.TableMatches: func(b *analytics.Batch) []analytics.Row {
				if b.Gone {
					return nil
				}
				return []analytics.Row{b.Row}
			},
			analytics.TablePlayers: func(b *analytics.Batch) []analytics.Row { return b.Players },
			analytics.TableRolls:   func(b *analytics.Batch) []analytics.Row { return b.Rolls },
			analytics.TableAttacks: func(b *analytics.Batch) []analytics.Row { return b.Attacks },
			analytics.TableCharges: func(b *analytics.Batch) []analytics.Row { return b.Charges },
			analytics.TableUnits:   func(b *analytics.Batch) []analytics.Row { return b.Units },
			analytics.TableMeasure: func(b *analytics.Batch) []analytics.Row { return b.Measurements },
		}
		for _, t := range analytics.Tables {
			if err := appendRows(conn, t, batches, pick[t.Name]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("analytics write: %w", err)
	}
	if _, err = d.w.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("analytics write: commit: %w", err)
	}
	return nil
}

// appendRows appends the rows pick gives of every batch to table t.
func appendRows(conn driver.Conn, t *analytics.Table, batches []analytics.Batch, pick func(*analytics.Batch) []analytics.Row) error {
	n := 0
	for i := range batches {
		n += len(pick(&batches[i]))
	}
	if n == 0 {
		return nil
	}
	app, err := duck.NewAppenderFromConn(conn, "", t.Name)
	if err != nil {
		return fmt.Errorf("appender for %s: %w", t.Name, err)
	}
	vals := make([]driver.Value, len(t.Columns))
	for i := range batches {
		for _, r := range pick(&batches[i]) {
			if len(r) != len(t.Columns) {
				_ = app.Close()
				return fmt.Errorf("%s row of %d values for %d columns", t.Name, len(r), len(t.Columns))
			}
			for k, v := range r {
				vals[k] = v
			}
			if err := app.AppendRow(vals...); err != nil {
				_ = app.Close()
				return fmt.Errorf("append to %s: %w", t.Name, err)
			}
		}
	}
	if err := app.Close(); err != nil { // Close flushes
		return fmt.Errorf("append to %s: %w", t.Name, err)
	}
	return nil
}

// deleteMatches deletes table's rows of the given matches, in chunks so
// the statement stays small.
func (d *DB) deleteMatches(ctx context.Context, table string, ids []string) error {
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		ph := make([]byte, 0, 2*n)
		for i := 0; i < n; i++ {
			args[i] = ids[i]
			if i > 0 {
				ph = append(ph, ',')
			}
			ph = append(ph, '?')
		}
		if _, err := d.w.ExecContext(ctx, "DELETE FROM "+table+" WHERE match IN ("+string(ph)+")", args...); err != nil {
			return fmt.Errorf("analytics write: delete from %s: %w", table, err)
		}
		ids = ids[n:]
	}
	return nil
}
