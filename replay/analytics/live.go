package analytics

import (
	"context"
	"time"

	"github.com/matchrec/matchrec/events"
)

// The live consumer keeps the tables current while a node serves. The
// recorder hands it each event it records, with the payload it decided
// (Recorded): a goroutine feeds them, a round at a time (at most every
// liveEvery, so a burst of appends is written in a few transactions,
// never one per event), into the folds it keeps (Updater.Feed), reading
// nothing back from the store. A match it has no fold of, or whose events
// it missed, is caught up from the store instead (Updater.CatchUp), as is
// every match in a full round every fullEvery, a safety net. It runs
// beside the appends and never blocks them: when it falls maxPending
// events behind, it stops taking events and catches those matches up
// later.
const (
	liveEvery  = time.Second
	fullEvery  = 10 * time.Second
	liveBudget = time.Second
	maxPending = 100_000
)

// StartLive opens the database and starts the live consumer; Close stops
// it. A service that is never started catches up when asked instead.
func (s *Service) StartLive(ctx context.Context) error {
	if _, _, err := s.open(ctx); err != nil {
		return err
	}
	s.dmu.Lock()
	s.dirty, s.wake = map[string]bool{}, make(chan struct{}, 1)
	s.dmu.Unlock()
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = stop, make(chan struct{})
	go s.live(lctx)
	return nil
}

// Recorded hands the live consumer events the recorder has just recorded
// and the payloads it decided (recorder.Options.Recorded), in order. It
// never blocks: past maxPending events waiting, the match is marked to be
// caught up from the store instead. Before StartLive it does nothing.
func (s *Service) Recorded(evs []events.Event, ps []events.Payload) {
	if len(evs) == 0 || len(evs) != len(ps) {
		return
	}
	s.dmu.Lock()
	if s.dirty == nil {
		s.dmu.Unlock()
		return
	}
	if len(s.pending)+len(evs) > maxPending {
		s.dirty[evs[0].Match] = true
	} else {
		for i := range evs {
			s.pending = append(s.pending, Recorded{evs[i], ps[i]})
		}
	}
	s.dmu.Unlock()
	s.nudge()
}

// Appended tells the live consumer that match has events it was not
// handed (a cluster's follower applied another recorder's): the match is
// caught up from the store. Before StartLive it does nothing.
func (s *Service) Appended(match string) {
	s.dmu.Lock()
	if s.dirty == nil {
		s.dmu.Unlock()
		return
	}
	s.dirty[match] = true
	s.dmu.Unlock()
	s.nudge()
}

func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) stopLive() {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
}

func (s *Service) live(ctx context.Context) {
	defer close(s.done)
	full := time.NewTicker(fullEvery)
	defer full.Stop()
	// Rounds are bounded so that API calls (which catch up too) get the
	// updater between them instead of waiting out a long first catch-up.
	round := func(ids []string) {
		for ctx.Err() == nil {
			st, err := s.up.CatchUp(ctx, Round{IDs: ids, Budget: liveBudget})
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn().Err(err).Msg("analytics round failed; the next one retries")
				}
				return
			}
			if st.Remaining == 0 {
				return
			}
		}
	}
	round(nil) // catch up with what was recorded while no node ran
	for {
		select {
		case <-ctx.Done():
			return
		case <-full.C:
			round(nil)
		case <-s.wake:
			s.dmu.Lock()
			recs := s.pending
			s.pending = nil
			ids := make([]string, 0, len(s.dirty))
			for id := range s.dirty {
				ids = append(ids, id)
			}
			clear(s.dirty)
			s.dmu.Unlock()
			if len(recs) > 0 {
				behind, err := s.up.Feed(ctx, recs)
				if err != nil && ctx.Err() == nil {
					s.log.Warn().Err(err).Msg("analytics: live rows not written; catching those matches up from the store")
				}
				ids = append(ids, behind...)
			}
			if len(ids) > 0 {
				round(ids)
			}
			select { // let more events gather before the next round
			case <-ctx.Done():
				return
			case <-time.After(liveEvery):
			}
		}
	}
}
