package report

import "context"

// MeasurementsOptions filter the measurements report.
type MeasurementsOptions struct {
	Player  string // "" = every player
	Edition string // "" = every edition
}

// MeasurerStats is what one player measured at the table, in one
// edition, and what became of it: how many measurements (and facts) the
// opponent contested, and how many a judge ruled against (voided, or
// amended to another value).
type MeasurerStats struct {
	Edition         string  `json:"edition"`
	Player          string  `json:"player"`
	Matches         int64   `json:"matches"`
	Measurements    int64   `json:"measurements"`
	Facts           int64   `json:"facts"`
	Contested       int64   `json:"contested"` // measurements the opponent contested
	ContestedRate   float64 `json:"contested_rate"`
	RuledAgainst    int64   `json:"ruled_against"` // measurements a ruling voided or changed
	RuledAgainstPct float64 `json:"ruled_against_rate"`
	FactsChanged    int64   `json:"facts_changed"` // facts a ruling gave another value (or voided)
	// UpheldContests are contested measurements the ruling left standing.
	UpheldContests int64 `json:"upheld_contests"`
}

// MeasurementsReport lists each side's measurements, the most first.
type MeasurementsReport struct {
	Players []MeasurerStats `json:"players"`
}

// Measurements says how often each player's measurements at the table
// were contested by the opponent and ruled against by the judge, from the
// measurements table.
func Measurements(ctx context.Context, q Querier, o MeasurementsOptions) (*MeasurementsReport, error) {
	if err := checkPlayer(ctx, q, o.Player); err != nil {
		return nil, err
	}
	where := "TRUE"
	if o.Player != "" {
		where += " AND player = " + lit(o.Player)
	}
	if o.Edition != "" {
		where += " AND edition = " + lit(o.Edition)
	}
	// One row per measurement first (its facts together), then per player.
	t, err := q.Query(ctx, `WITH m AS (
		SELECT match, seq, any_value(edition) AS edition, any_value(player) AS player, count(*) AS facts,
			bool_or(contested) AS contested, bool_or(ruled_against) AS against,
			count(*) FILTER (WHERE ruled_against) AS changed, bool_or(ruling IS NOT NULL) AS ruled
		FROM measurements WHERE `+where+` GROUP BY match, seq)
		SELECT edition, player, count(DISTINCT match), count(*), sum(facts),
			count(*) FILTER (WHERE contested), count(*) FILTER (WHERE against), sum(changed),
			count(*) FILTER (WHERE contested AND NOT against)
		FROM m GROUP BY edition, player ORDER BY count(*) DESC, edition, player`)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, noData("no measurements recorded (a match measured at the table: docs/events.md#measured-geometry)")
	}
	r := &MeasurementsReport{}
	for _, row := range t.Rows {
		s := MeasurerStats{Edition: toString(row[0]), Player: toString(row[1]), Matches: toInt(row[2]), Measurements: toInt(row[3]),
			Facts: toInt(row[4]), Contested: toInt(row[5]), RuledAgainst: toInt(row[6]), FactsChanged: toInt(row[7]), UpheldContests: toInt(row[8])}
		if s.Measurements > 0 {
			s.ContestedRate = float64(s.Contested) / float64(s.Measurements)
			s.RuledAgainstPct = float64(s.RuledAgainst) / float64(s.Measurements)
		}
		r.Players = append(r.Players, s)
	}
	return r, nil
}
