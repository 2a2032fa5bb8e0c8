package deploy

// The exporter's memory sizing rule (issue 24): the peak RSS (VmHWM: the
// first history fetch and the scrape bursts included) as a base plus a
// share per table and per GSI, from what cmd/bench measured. The chart's
// default memory limit (helm/dynamodb-exporter/values.yaml) holds the rule
// at SizingTables tables with SizingGSIsPerTable GSIs each with
// SizingMargin to spare, and the values file and docs/deployment.md state
// the rule (TestChartMemoryLimitHoldsTheSizingRule); the rule gives back
// the measured peaks (TestSizingRuleFitsTheBench).
//
// Measured with `go run ./cmd/bench` (2 GSIs per table, 90 days of
// history, the default configuration, no container limit, 2026-12-03, on
// a machine running the test command beside it): peak RSS
// SizingPeak100MiB at 100 tables (commit dd5981d) and SizingPeak1000MiB
// at 1,000 (commit 963411a), both reached by the first history fetch (the
// scrape bursts stay under it; docs/performance.md, round 5). Every table
// of the bench has 2 GSIs, so the split between a table and a GSI is not
// measured: nearly everything the exporter holds per table it holds again
// per GSI (consumed-capacity history and its what-if, CloudWatch series,
// metrics), so a GSI is taken to cost as much as its table's own share, a
// third of the measured 0.098 MiB per table with 2 GSIs.
const (
	SizingPeak100MiB  = 68
	SizingPeak1000MiB = 156

	SizingBaseMiB     = 58.0
	SizingPerTableMiB = 0.033
	SizingPerGSIMiB   = 0.033

	// SizingTables and SizingGSIsPerTable are the size the chart's
	// default limit is for.
	SizingTables       = 1000
	SizingGSIsPerTable = 2
	// SizingMargin is the least share above the rule the default limit
	// keeps.
	SizingMargin = 0.15
)

// MemoryMiB returns the peak memory the rule gives for tables tables with
// gsis GSIs in all.
func MemoryMiB(tables, gsis int) float64 {
	return SizingBaseMiB + SizingPerTableMiB*float64(tables) + SizingPerGSIMiB*float64(gsis)
}
