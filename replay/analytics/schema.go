package analytics

import (
	"fmt"
	"strings"
)

// Type is a column's type, one of the few every output speaks: DuckDB,
// Parquet, CSV and JSON lines.
type Type string

// Column types.
const (
	String Type = "VARCHAR"
	Int    Type = "BIGINT"
	Float  Type = "DOUBLE"
	Bool   Type = "BOOLEAN"
	Time   Type = "TIMESTAMP" // UTC, microseconds
)

// Column is one column of a table. Nullable columns hold nil where the
// value does not apply (a roll's target number when it has none).
type Column struct {
	Name     string
	Type     Type
	Nullable bool
	Doc      string
}

// Table is one analytic table: its columns in order, and the columns that
// order its rows (its key; exports walk it in this order).
type Table struct {
	Name    string
	Doc     string
	Columns []Column
	Key     []string
	// Replaced tables describe a match as it now stands (the matches row,
	// its players' rows): every batch of a match replaces its rows there,
	// where the other tables only append.
	Replaced bool
	// Restated tables are replaced too, but only by a batch that restates
	// them (its rows non-nil): the measurements, which a later witness or
	// ruling changes, are restated when one does.
	Restated bool
}

// Index returns the position of column name, or -1.
func (t *Table) Index(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Names lists the column names in order.
func (t *Table) Names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func col(name string, t Type, doc string) Column { return Column{Name: name, Type: t, Doc: doc} }
func opt(name string, t Type, doc string) Column {
	return Column{Name: name, Type: t, Nullable: true, Doc: doc}
}

// The table names.
const (
	TableMatches = "matches"
	TableRolls   = "rolls"
	TableAttacks = "attacks"
	TableCharges = "charges"
	TableUnits   = "units"
	TablePlayers = "match_players"
	TableMeasure = "measurements"
)

// Matches has one row per match (branches included).
var Matches = Table{
	Name: TableMatches, Doc: "one row per match, branches included; updated as the match goes on",
	Key: []string{"match"}, Replaced: true,
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id: 3e, 6e, 11e"),
		col("name", String, "match name"),
		col("players", String, "player ids, comma-separated, in setup order"),
		col("player_names", String, "player names, comma-separated, same order"),
		col("first_player", String, "player id who plays first"),
		col("date", Time, "when the match (or branch) was created"),
		opt("branch_parent", String, "for a branch: the match it forks from"),
		opt("branch_at", Int, "for a branch: the parent's event it forks after"),
		col("ended", Bool, "the match is over"),
		opt("winner", String, "winning player id, if any"),
		col("result", String, "won, no winner, or in progress"),
		col("turns", Int, "game turns started"),
		col("score", String, "enemy models each player removed, comma-separated in player order (the editions keep no victory points)"),
		col("models_lost", String, "models each player lost, comma-separated in player order"),
		col("events", Int, "events folded into these tables (the match's checkpoint)"),
		col("head", String, "hash of the last event folded (checks the checkpoint against the store)"),
	},
}

// Rolls has one row per die rolled.
var Rolls = Table{
	Name: TableRolls, Doc: "one row per die rolled",
	Key: []string{"match", "seq", "die"},
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("seq", Int, "the dice.rolled event"),
		col("die", Int, "0-based position of the die in its roll"),
		col("time", Time, "when the roll was recorded"),
		col("turn", Int, "game turn"),
		col("phase", String, "phase of the turn"),
		col("roller", String, "player id who rolled"),
		col("source", String, "manual (physical dice typed in) or digital (rolled by the recorder)"),
		col("purpose", String, "hit, wound, save, charge, lookoutsir, morale, damage, attacks, advance, ... or reroll"),
		opt("reroll_of", String, "for a re-roll: the purpose of the dice it replaces"),
		opt("need", Int, "target number (the die succeeds on need or more), when the roll has one"),
		col("value", Int, "the face, 1 to 6"),
		opt("success", Bool, "value >= need, for hit, wound, save and lookoutsir dice (and their re-rolls)"),
		opt("p", Float, "exact chance of success of this die, when success applies"),
		opt("attack_seq", Int, "the attack the roll belongs to (attacks.seq), if any"),
		opt("label", String, "what the step says it rolls for (weapon, S vs T, save)"),
		opt("strength", Int, "Strength of the hits a wound roll is for"),
		opt("toughness", Int, "Toughness a wound roll is against"),
		opt("weapon", String, "name of the weapon the dice are for (null: a roll for no weapon, or for several at once)"),
		opt("ap", Int, "that weapon's AP as its profile writes it (0: none; 11e as a negative modifier, -1)"),
	},
}

// Attacks has one row per completed attack sequence.
var Attacks = Table{
	Name: TableAttacks, Doc: "one row per completed attack sequence (shooting, overwatch, melee)",
	Key: []string{"match", "seq"},
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("seq", Int, "the declaring event"),
		col("end_seq", Int, "the event that completed the attack"),
		col("time", Time, "when the attack was declared"),
		col("turn", Int, "game turn"),
		col("phase", String, "phase of the turn"),
		col("type", String, "shooting, overwatch or melee"),
		opt("kind", String, "the variant the declaration picked: 11e shooting type, 6e snap"),
		col("attacker", String, "attacking player id"),
		col("defender", String, "defending player id"),
		col("firer", String, "attacking unit id"),
		col("firer_name", String, "attacking unit name"),
		col("target", String, "target unit id"),
		col("target_name", String, "target unit name"),
		col("weapon", String, "weapon names fired, '+'-joined in firing order"),
		opt("strength", Int, "Strength of the first weapon fired"),
		opt("ap", Int, "AP of the first weapon fired (0: none; 11e as a negative modifier, -1)"),
		opt("weapon_damage", String, "Damage characteristic of the first weapon fired (1, 2, D3, D6+1; 3e and 6e: 1)"),
		opt("toughness", Int, "Toughness of the first target model the attack could wound"),
		opt("save", Int, "armour save of that model (0: none)"),
		col("models", Int, "models that fired"),
		col("shots", Int, "shots (attacks) made"),
		col("hits", Int, "hits"),
		col("wounds", Int, "successful wound rolls"),
		col("saves", Int, "successful saves"),
		col("unsaved", Int, "unsaved wounds (a count, whatever damage each dealt)"),
		col("damage", Int, "wounds the target's models lost (damage beyond what they could take is lost)"),
		col("casualties", Int, "models removed"),
		col("exp_hits", Float, "expected hits given the shots made (and where each template or blast was placed): the edition's exact odds, re-rolls included"),
		col("exp_wounds", Float, "expected wounds given the hits: the edition's exact odds, re-rolls included"),
		col("exp_saves", Float, "expected saves given the dice rolled to save"),
		col("exp_unsaved", Float, "expected unsaved wounds from the declaration, the edition's exact odds (a count, like unsaved)"),
		col("exp_damage", Float, "expected damage from the declaration, capped like damage by what the eligible models could take"),
		col("exp_casualties", Float, "expected models removed: E[min(U / W, models)] with U binomial over the shots"),
		opt("hit_need", Int, "target number of the first hit roll"),
		col("var_hits", Float, "variance of the hits under fair dice, given what exp_hits is given (0: hits not rolled, as a template's)"),
		col("var_wounds", Float, "variance of the wounds under fair dice, given the hits"),
	},
}

// Charges has one row per charge roll (6e).
var Charges = Table{
	Name: TableCharges, Doc: "one row per charge roll (6e)",
	Key: []string{"match", "seq"},
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("seq", Int, "the charge.declared event"),
		col("roll_seq", Int, "the charge roll's event"),
		col("time", Time, "when the charge was rolled"),
		col("turn", Int, "game turn"),
		col("player", String, "charging player id"),
		col("unit", String, "charging unit id"),
		col("target", String, "charged unit id"),
		col("needed", Float, "inches the first charger had to cover"),
		col("rolled", Int, "the 2D6 total"),
		col("distance", Float, "inches the unit could charge"),
		col("success", Bool, "the charge reached"),
	},
}

// Units has one row per unit of each match, as set up.
var Units = Table{
	Name: TableUnits, Doc: "one row per unit of each match, as deployed",
	Key: []string{"match", "unit"},
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("unit", String, "unit id"),
		col("name", String, "unit name"),
		col("player", String, "owning player id"),
		col("models", Int, "models"),
		col("wounds", Int, "wounds of all its models"),
		col("toughness", Int, "Toughness of its first model"),
		col("save", Int, "armour save of its first model (0: none)"),
		col("invuln", Int, "invulnerable save of its first model (0: none)"),
		col("bs", Int, "BS of its first model"),
		col("ws", Int, "WS of its first model"),
		col("weapons", String, "weapon names, '+'-joined"),
		col("keywords", String, "unit keywords, comma-separated"),
	},
}

// MatchPlayers has one row per player of each match, as the match stands.
var MatchPlayers = Table{
	Name: TablePlayers, Doc: "one row per player of each match (win rates by player or army); updated as the match goes on",
	Key: []string{"match", "player"}, Replaced: true,
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("player", String, "player id"),
		col("player_name", String, "player name"),
		col("side", Int, "1 for the player who plays first, 2 for the other"),
		col("army", String, "the player's unit names as deployed, '+'-joined"),
		col("opponent", String, "the other player's id"),
		col("result", String, "won, lost, no winner, or in progress"),
		col("models", Int, "models the player deployed"),
		col("models_lost", Int, "models the player lost"),
		col("models_killed", Int, "enemy models the player removed"),
		col("wounds_caused", Int, "wounds enemy models lost to the player's attacks"),
		col("exp_wounds", Float, "their expectation (the attacks' exp_damage)"),
		col("unsaved", Int, "unsaved wounds the player's attacks caused"),
		col("exp_unsaved", Float, "their expectation (the attacks' exp_unsaved)"),
		col("dice", Int, "dice the player rolled"),
	},
}

// Measurements has one row per fact measured at a physical table
// (docs/events.md#measured-geometry), as played and as ruled.
var Measurements = Table{
	Name: TableMeasure, Doc: "one row per fact measured at the table (a match measured there, or a declaration that carried facts): as played, as ruled, and what the opponent said",
	Key: []string{"match", "seq", "fact"}, Restated: true,
	Columns: []Column{
		col("match", String, "match id"),
		col("edition", String, "edition id"),
		col("seq", Int, "the geometry.measured event"),
		col("fact", Int, "0-based position of the fact in its measurement"),
		col("turn", Int, "game turn"),
		col("phase", String, "phase of the turn"),
		col("player", String, "player id who measured"),
		col("for", String, "what it measured for: the command (shoot, charge, move, strike, ...) or the step (lookoutsir, under, edge, engaged)"),
		col("kind", String, "the fact's kind: range, target, cover, order, distance, first, under, fights, edge, moved, ..."),
		opt("model", String, "the model or unit it is of"),
		opt("from", String, "the model, unit or terrain piece it is measured from"),
		col("value", String, "as played: inches (7.5), yes or no, a standing, a cover kind, a rank"),
		opt("inches", Float, "the value as played in inches, for the kinds that measure a distance"),
		opt("ruled", String, "as ruled: the value a judge's amendment gave it, the value itself when no ruling changed it, null when a ruling voided the measurement"),
		col("status", String, "unconfirmed, confirmed or contested (by the opponent)"),
		col("contested", Bool, "the opponent contested the measurement"),
		opt("ruling", Int, "the ruling on a dispute of it (void or amend), if any"),
		opt("decision", String, "that ruling's decision"),
		col("ruled_against", Bool, "a ruling voided the measurement or changed this fact"),
	},
}

// Tables lists every analytic table.
var Tables = []*Table{&Matches, &MatchPlayers, &Rolls, &Attacks, &Charges, &Units, &Measurements}

// Lookup returns the table named name.
func Lookup(name string) (*Table, error) {
	for _, t := range Tables {
		if t.Name == name {
			return t, nil
		}
	}
	names := make([]string, len(Tables))
	for i, t := range Tables {
		names[i] = t.Name
	}
	return nil, fmt.Errorf("unknown table %q (tables: %s)", name, strings.Join(names, ", "))
}

// Row is one row of a table, values in column order: string, int64,
// float64, bool, time.Time, or nil for a null.
type Row []any
