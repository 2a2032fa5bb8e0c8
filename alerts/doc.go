// Package alerts is the alert pack: Prometheus recording and alerting rules
// for the capacity and TTL failure modes of DynamoDB and for the exporter's
// own health, as Go data rendered into rule files.
//
// The rule files committed in alerts/rules are Render's output with the
// default configuration (`dynamodb_exporter alerts render`, or `go generate
// ./alerts`); a test keeps them in sync, and the tuning reference of
// alerts/README.md (Reference). A configuration file tunes
// thresholds, `for` durations, severities, label selectors and the runbook
// base URL without forking the pack.
package alerts

//go:generate go run ../ alerts render --output-dir rules
//go:generate go test -run ^TestReadmeReferenceIsGenerated$ -update .
