// Package replay holds the readers of recorded matches: the audit (chain,
// dice, re-fold, witnesses, disputes) and self-verifying bundles, the
// narrator behind `log` and `replay`, what-if runs of an attack's dice,
// the diff of two lines of play, and the readers' API verbs (Reader:
// events, bundle, branches, diff). Every one of them folds through
// projector/fold; the analytic tables, their reports and the match
// generator are its subpackages.
package replay
