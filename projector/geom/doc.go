// Package geom is the table geometry shared by every edition: points and
// polygons in inches, round model bases, distances between bases, and line
// of sight through models and terrain.
//
// Everything here is pure and deterministic. No clock, no randomness, and no
// map is ever iterated to build an output, so the same World and the same
// question always give the same answer, byte for byte. That matters because
// projections are re-folded from the event log and must reproduce history.
//
// Conventions:
//   - Units are inches; (0,0) is a table corner (see events.Table).
//   - A Polygon is a simple (non-self-intersecting) ring, convex or not,
//     implicitly closed; a repeated closing vertex is harmless.
//   - PointInPolygon treats the boundary as inside (a model standing on the
//     edge of a wood is in the wood), while lengths "inside" a polygon only
//     count the open interior, so a line grazing an edge or corner crosses
//     nothing.
//   - Comparisons use the tolerance Eps so that a value computed as
//     6.000000000001 still counts as "6 inches".
package geom

// Eps is the tolerance, in inches (or in segment parameter for values in
// [0,1]), used for every geometric comparison. Table measurements are taken
// to a fraction of an inch, so 1e-9 only absorbs floating-point noise.
const Eps = 1e-9
