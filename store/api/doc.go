// Package api is matchrec's API contract, one package that other Go
// programs import to drive a recorder (it links no database):
//
//   - the verbs (verbs.go), each a subject matchrec.api.<verb> on NATS;
//   - the request and result of every verb (record.go for the write side
//     and the recorder's reads, read.go for the readers, analytics.go for
//     the analytic tables, bus.go for the bus);
//   - the one error shape, Error{Code, Message}, and FromError, the one
//     place that gives a Go error its code (error.go);
//   - the plumbing that serves verbs whatever the transport: Handler,
//     Verbs, Merge and the strict Bind (handler.go).
//
// The handlers live with what they serve: store/recorder (ping, create,
// declare, roll, branch, state, matches), replay (events, bundle,
// branches, diff) and replay/analytics (analytics-sync, sql, export,
// export-next, export-close) and store/natsbus (buscheck). store/natsbus
// carries them over NATS (ServeAPI, Client); the node of cmd/matchrec only
// merges and serves them.
//
// Error codes are projector.Code values (projector/codes.go), one
// vocabulary for the whole of matchrec: the rules' refusal codes
// (not_your_turn, bad_dice, ...), and unauthorized, bad_request,
// not_found, conflict, unknown_verb, internal, bad_query and no_data.
// Replies are {"ok":true,"result":...} or
// {"ok":false,"error":{"code":"...","message":"..."}}.
package api
