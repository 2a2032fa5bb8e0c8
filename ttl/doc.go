// Package ttl is the pure core of the exporter's TTL health check.
//
// It has two jobs and no I/O:
//
//   - Classify tells what DynamoDB's Time to Live process will do with one
//     item, given the name of the table's TTL attribute: delete it later
//     (live), delete it soon (expired), or silently never delete it
//     (wrong_type, milliseconds, too_old, ...). Decode explains a single raw
//     value for a command-line helper.
//   - Sample.Estimate turns the per-segment tallies of a cluster sample of
//     parallel-scan segments into a fraction and an item count with an honest
//     95% interval.
//
// Privacy: nothing in this package ever puts an attribute value, a key or any
// item content into an error message or a String() result.
package ttl
