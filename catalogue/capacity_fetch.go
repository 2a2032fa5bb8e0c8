package catalogue

// Names of the capacity collector's history-fetch self-metrics.
const (
	ExporterCapacityHistoryFetchTables          = "dynamodb_exporter_capacity_history_fetch_tables"
	ExporterCapacityHistoryFetchRequestsPending = "dynamodb_exporter_capacity_history_fetch_requests_pending"
	ExporterCapacityHistoryFetchRequestsTotal   = "dynamodb_exporter_capacity_history_fetch_requests_total"
)

// capacityFetchFamilies describe the progress of the capacity collector's
// history fetch: the first one (the backfill of weeks of history) takes
// minutes for many tables, and these move while it runs.
var capacityFetchFamilies = []Family{
	{ExporterCapacityHistoryFetchTables, Gauge,
		"Tables of the capacity collector's current (or last) history fetch, by state: pending (requests still to run), done (every request answered), failed (a request failed; fetched again next run). The first fetch reads the whole history: its capacity figures appear when no table is pending.",
		[]string{LabelAccount, LabelRegion, "state"}, "tables", "exporter"},
	{ExporterCapacityHistoryFetchRequestsPending, Gauge,
		"GetMetricData requests of the capacity collector's current history fetch not yet answered (0 between fetches).",
		[]string{LabelAccount, LabelRegion}, "requests", "exporter"},
	{ExporterCapacityHistoryFetchRequestsTotal, Counter,
		"GetMetricData requests of the capacity collector's history fetches, by outcome: ok, throttled (refused for rate after the SDK's retries, put back in the queue after a pause) or error (given up; the tables it read are fetched again next run).",
		[]string{LabelAccount, LabelRegion, LabelOutcome}, "requests", "exporter"},
}
