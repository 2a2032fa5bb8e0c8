package collectors

// Test helpers of the package's own tests, shared with its external tests
// (package collectors_test).
var (
	MetricLines   = metricLines
	FirstLineDiff = firstLineDiff
)
