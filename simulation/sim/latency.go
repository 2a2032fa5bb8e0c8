package sim

import "math"

// operation is a DynamoDB operation with per-operation metrics: its share
// of the table's read or write requests and its mean latency at rest.
type operation struct {
	name    string
	write   bool
	share   float64
	latency float64 // ms, average when no partition is hot
}

// operations of every simulated table. GetItem and Query split the reads,
// PutItem and UpdateItem the writes.
var operations = []operation{
	{"GetItem", false, 0.6, 2.0},
	{"Query", false, 0.4, 4.0},
	{"PutItem", true, 0.7, 3.5},
	{"UpdateItem", true, 0.3, 4.0},
}

// p99Ratio is p99 ÷ average latency at rest.
const p99Ratio = 2.5

// latencyFactors returns the factors of a minute's average and p99 latency
// over their values at rest, from the pressure on the hottest partition
// (its demand over its limit) and a noise draw u in [0,1). A partition
// above 60% of its limit slows requests down, up to 5× the average and 10×
// the p99 at its limit (5 ms → 50 ms). Throttled requests and their client
// retries add nothing: SuccessfulRequestLatency "reflects activity only
// within DynamoDB ... and does not take into account network latency or
// client-side activity" (Amazon DynamoDB Developer Guide, "DynamoDB
// Metrics and dimensions", SuccessfulRequestLatency,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html).
func latencyFactors(pressure, u float64) (avg, p99 float64) {
	x := math.Min(1, math.Max(0, (pressure-0.6)/0.4))
	avg = (1 + 4*x*x) * (1 + 0.1*(2*u-1))
	p99 = avg * p99Ratio * (1 + x)
	return avg, p99
}
