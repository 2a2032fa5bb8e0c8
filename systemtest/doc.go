// Package systemtest holds the exporter's system tests, each of which runs
// the whole exporter on a simulated AWS account (package
// simulation/harness) and checks one property across collectors: the fault
// matrix (every AWS failure met with a visible, counted degradation; it
// generates docs/reliability.md, -update rewrites it), malformed answers,
// the CloudWatch tiers and their bill, sharding, the IAM policy's least
// privilege, leaks of secrets and item values, the metric catalogue's
// contract with promtool, and that every fuzz target runs in CI.
//
// The package has no code of its own; it exists for its tests.
package systemtest
