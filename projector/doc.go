// Package projector folds a match's events into board state and decides
// whether a command may become events.
//
// It is the decider of matchrec: Decide(state, command) → events or a
// refusal, and Apply(state, event) → state, one pair per edition behind the
// Rules interface. Both are deterministic: no clock, no randomness, no map
// iteration that reaches the output, so the same events always give the
// same state (and the same StateHash).
//
// The core knows no edition. It folds what every edition shares (match
// creation, turns, phases, moves, dice, witnesses, rulings) and hands
// every command and event to the match's edition, a Rules value found by
// id in projector/editions. What only some editions have is an optional
// ability of that value (abilities.go), found by type assertion where it
// is needed.
//
// # Adding an edition
//
// In its own package, projector/ed<id> (ed3e is the smallest whole one):
//
//   - a Rules value: Edition (its id), Phases, DefaultMove, Decide (its
//     commands; ErrNotHandled leaves turns, phases, moves and the end to
//     the common rules) and Evolve (its reading of every event, after the
//     common fold);
//   - the abilities it has, and only those: EventFamily (its own event
//     types, an events.Family in its package), Narration (a line for each
//     of them), Extension (its own part of the state and of an attack, Ext
//     types with CloneExt), SetupChecker (what it needs of a setup beyond
//     ValidateSetup), Chooser (its own choices, for simulations and
//     generated matches), ShootKinds (kinds of shooting for generated
//     play), RollExplainer (what each roll is for, its inputs, its rule
//     and what it decided, for audit --roll), Lexicon (the weapon types
//     and keywords its setups may name), Charges (its charge rolls, for
//     the analytics) and Commander (its command types, listed when a
//     command's type is unknown);
//   - built on the kit (projector/kit), so it keeps only its rules: the
//     openings of a declaration (kit.ActiveIn, UnfiredUnit, Target), what
//     each firing model sees and why none could fire (kit.Look, Reasons),
//     and its attack as a kit.Machine of stages (with Awaited, Rolled,
//     Roller, Fired);
//   - every geometric question asked of a kit.Table (kit.ForCommand for a
//     declaration, ForDeclared in its fold, ForAttack and ForMeasure at
//     its steps): a range, a line of sight, a cover, the closest model, a
//     distance — answered from positions, or from the facts the players
//     measured at the table (projector/facts.go). A new rule asks the
//     Table (Inches, YesNo, Choice, Rank, or the typed questions:
//     Sighting, Gap, Distance, Closest, Order); a new kind of fact is one
//     line of projector.FactKinds. The Measurer ability says what
//     positions answer to the edition's measure steps, for the twin tests
//     (projtest plays every rules test measured too);
//   - its rules tests, on projtest: in-memory games, the shared fixtures
//     (Alice and Bob, Setup, Column, ToPhase, Shoot, Move, Same) and the
//     worked numbers through projtest.CheckMeanUnsaved.
//
// Outside it, three things:
//
//  1. its line in projector/editions (editions.go), the one place an
//     edition is registered;
//  2. its rules reference, docs/rules/<id>.md, which its code cites by
//     section (and its row in docs/rules/README.md);
//  3. an example match script, examples/<id>-*.yaml: make demo plays it,
//     and the tests play every example, decode every state it passes
//     through, and require one per edition (projector/editions).
//
// Nothing else names an edition: the fold, the recorder, the audit, the
// narrator, what-if, the generator, the analytics, the CLI and the web
// pages find all of it through the Rules value.
package projector
