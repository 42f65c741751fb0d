package replay

import (
	"context"
	"fmt"
	"sort"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store"
)

// Outcome is what one attack sequence did.
type Outcome struct {
	Hits       int `json:"hits"`
	Wounds     int `json:"wounds"`
	Unsaved    int `json:"unsaved"`
	Casualties int `json:"casualties"`
	ModelsLeft int `json:"models_left"`
}

// Distribution summarises simulated outcomes of one measure.
type Distribution struct {
	Mean   float64        `json:"mean"`
	Counts map[int]int    `json:"-"`
	Hist   []HistogramBin `json:"histogram"`
	// Percentile of the actual value: the share of simulated runs with a
	// smaller value plus half of those with an equal one (mid-rank), in %.
	Percentile float64 `json:"percentile"`
	Actual     int     `json:"actual"`
}

// HistogramBin is how many runs gave a value.
type HistogramBin struct {
	Value int `json:"value"`
	Runs  int `json:"runs"`
}

// WhatIf is the report of `matchrec whatif`.
type WhatIf struct {
	Match       string                  `json:"match"`
	At          uint64                  `json:"at"`
	Declaration uint64                  `json:"declaration"`
	Firer       string                  `json:"firer"`
	Target      string                  `json:"target"`
	Runs        int                     `json:"runs"`
	Seed        uint64                  `json:"seed"`
	Actual      *Outcome                `json:"actual,omitempty"` // nil while the attack is unfinished
	Measures    map[string]Distribution `json:"measures"`
}

// WhatIfOptions tune a what-if.
type WhatIfOptions struct {
	Runs     int
	Seed     uint64
	Progress func(done, total int)
}

// RunWhatIf takes the attack sequence pending or begun at event at of a
// stored match and plays its remaining rolls Runs times with simulated
// dice through the edition's own rules, and compares them with what
// happened.
func RunWhatIf(ctx context.Context, st store.Store, match string, at uint64, lookup fold.Lookup, o WhatIfOptions) (*WhatIf, error) {
	lin, err := fold.LineageOf(ctx, st, match)
	if err != nil {
		return nil, err
	}
	var evs []events.Event
	if err := st.Scan(ctx, match, 1, func(e events.Event) error { evs = append(evs, e); return nil }); err != nil {
		return nil, err
	}
	return WhatIfEvents(ctx, match, lin, evs, at, lookup, o)
}

// WhatIfEvents is RunWhatIf over a match's events (from a store, an API
// or a bundle) and its lineage (nil unless a branch).
func WhatIfEvents(ctx context.Context, match string, lineage []events.BranchPoint, evs []events.Event, at uint64, lookup fold.Lookup, o WhatIfOptions) (*WhatIf, error) {
	if o.Runs <= 0 {
		o.Runs = 10_000
	}
	if at == 0 || at > uint64(len(evs)) {
		return nil, fmt.Errorf("%w: match %s has %d events, not %d", fold.ErrBeyondEnd, match, len(evs), at)
	}
	f := fold.NewFolder(match, lookup)
	f.Lineage = lineage
	var start *projector.State
	var actual *Outcome
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			return nil, err
		}
		if e.Seq == at {
			if f.State.Attack == nil {
				return nil, fmt.Errorf("no attack sequence is pending or begun at event %d of match %s (it waits for: %s)", at, match, f.State.Pending.Text)
			}
			start = f.State.Clone()
			// The simulation rolls its own dice, not the recorder's: no
			// dice epoch, and no seeds, apply to them.
			start.Dice.Commits = nil
		}
		// Fold on until the attack in progress at `at` completes: that is
		// what actually happened.
		if start != nil && e.Seq > at && f.State.LastAttack != nil && f.State.LastAttack.Seq == start.Attack.Seq &&
			(f.State.Attack == nil || f.State.Attack.Seq != start.Attack.Seq) {
			o := outcomeOf(f.State, f.State.LastAttack)
			actual = &o
			break
		}
	}
	rules := f.Rules
	w := &WhatIf{Match: match, At: at, Declaration: start.Attack.Seq, Runs: o.Runs, Seed: o.Seed, Actual: actual, Measures: map[string]Distribution{}}
	if u := start.Unit(start.Attack.Firer); u != nil {
		w.Firer = u.DisplayName()
	}
	if u := start.Unit(start.Attack.Target); u != nil {
		w.Target = u.DisplayName()
	}
	dice := sim.NewDice(o.Seed)
	outs := make([]Outcome, 0, o.Runs)
	for i := 0; i < o.Runs; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if o.Progress != nil {
				o.Progress(i, o.Runs)
			}
		}
		s := start.Clone()
		if err := sim.FinishAttack(rules, s, dice, nil); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
		outs = append(outs, outcomeOf(s, s.LastAttack))
	}
	if o.Progress != nil {
		o.Progress(o.Runs, o.Runs)
	}
	measures := map[string]func(Outcome) int{
		"hits": func(x Outcome) int { return x.Hits }, "wounds": func(x Outcome) int { return x.Wounds },
		"unsaved": func(x Outcome) int { return x.Unsaved }, "casualties": func(x Outcome) int { return x.Casualties },
		"models_left": func(x Outcome) int { return x.ModelsLeft },
	}
	for name, f := range measures {
		d := Distribution{Counts: map[int]int{}}
		sum := 0
		for _, x := range outs {
			v := f(x)
			d.Counts[v]++
			sum += v
		}
		d.Mean = float64(sum) / float64(len(outs))
		for v, n := range d.Counts {
			d.Hist = append(d.Hist, HistogramBin{v, n})
		}
		sort.Slice(d.Hist, func(i, j int) bool { return d.Hist[i].Value < d.Hist[j].Value })
		if actual != nil {
			d.Actual = f(*actual)
			d.Percentile = MidRankPercentile(d.Counts, len(outs), d.Actual)
		}
		w.Measures[name] = d
	}
	return w, nil
}

// MidRankPercentile is 100 × (runs below v + ½ runs equal to v) / total.
func MidRankPercentile(counts map[int]int, total, v int) float64 {
	below := 0
	for x, n := range counts {
		if x < v {
			below += n
		}
	}
	return 100 * (float64(below) + float64(counts[v])/2) / float64(total)
}

func outcomeOf(s *projector.State, a *projector.Attack) Outcome {
	o := Outcome{Hits: a.Hits, Wounds: a.Wounds, Unsaved: a.Unsaved, Casualties: len(a.Casualties)}
	if t := s.Unit(a.Target); t != nil {
		o.ModelsLeft = len(t.AliveModels())
	}
	return o
}
