package analytics

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// A caller's query runs only as long as it may: its request's context
// (the caller's deadline, cancelled when the caller goes away or the API
// stops: store/natsbus), the service's QueryTimeout, and the service
// itself (Close). DuckDB interrupts a query whose context ends; its
// memory is bounded by the database's own limit (duckdb.Open).

// query returns the context one query executes in, and done, to call when
// it has.
func (s *Service) query(ctx context.Context) (context.Context, func()) {
	qctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	stop := context.AfterFunc(s.base, cancel)
	s.running.Add(1)
	return qctx, func() {
		s.running.Add(-1)
		stop()
		cancel()
	}
}

// queryErr says why a query that ran in qctx failed: its time limit (a
// bad_query: the query is too costly) or its caller or the service gone.
func (s *Service) queryErr(qctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(qctx.Err(), context.DeadlineExceeded):
		return api.Errorf(projector.CodeBadQuery, "the query was stopped at its time limit (%s, or the caller's deadline)", s.cfg.QueryTimeout)
	case qctx.Err() != nil:
		return api.Errorf(projector.CodeUnavailable, "the query was interrupted: %v", qctx.Err())
	}
	return err
}

// Running is how many queries are executing now (the export streams
// open between pages are not).
func (s *Service) Running() int { return int(s.running.Load()) }
