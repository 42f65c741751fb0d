// Package analytics derives analytic tables from the event log: matches,
// rolls (one row per die), attacks (one row per attack sequence, with the
// expected values of each outcome from the exact odds), charges (6e) and
// units. See docs/analytics.md for the schema and example queries.
//
// The derivation is a pure fold: a match's events, folded by its edition
// (fold.Folder, as played), give the same rows whoever folds them. It is
// generic over editions: it reads the dice.rolled events and what every
// edition keeps in projector.State (the attack in progress, the last
// completed attack, the 6e charge) before and after each event.
//
// The tables are kept current incrementally (Updater): each match has a
// checkpoint, its last folded event and that event's hash, and a round
// folds only the events past it. The fold of a match that goes on stays in
// memory between rounds; one that was evicted is restored from the
// store's snapshots (fold.Seeker) instead of being folded from event 1.
// Where the rows are kept is a Sink's business (replay/analytics/duckdb).
//
// The Service (service.go) runs it for a node: the database opened on first
// use, a live consumer fed by the outbox relay (live.go), export cursors
// (export.go) and the analytics API verbs.
package analytics
