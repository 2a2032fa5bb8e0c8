package alerts_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// onlyScenarios narrows TestAlertPackReplays to the cases whose scenario
// matches it, for a quick check while working on one rule; the matrix is
// then neither checked nor written.
var onlyScenarios = flag.String("replay.only", "", "replay only the scenarios matching this regular expression (skips the matrix check)")

// replayLong adds the long replays (longReplay and more) to
// TestAlertPackReplays and TestAlertPackReplaysAt5m. They are the quiet
// days and the slow failures: half of the replays' time for a sixth of
// them, so the test command leaves them to this long form (and -update,
// which writes the whole matrix, runs them too); without it, the matrix
// rows of the cases replayed are checked, the others left as they are.
var replayLong = flag.Bool("replay.long", false, "also replay the cases of 24 hours and more (about twice the time)")

// longReplay is the replay length from which a case runs only with
// -replay.long (or -update).
const longReplay = 24 * time.Hour

// runsLong reports whether the long replays run.
func runsLong() bool { return *replayLong || *alerts.UpdateGenerated }

// showFirings logs, for each replay, every alert series that fired: which
// kind or index an alert named, when the matrix shows only the table.
var showFirings = flag.Bool("replay.firings", false, "log every alert series that fired in each replay, with its labels and episodes (run with -v)")

// promisedDelay is the detection delay each alert promises (its runbook
// states it): from the failure's onset as the scenario writes it (the first
// throttle, the first bad write, the first deletion of live data, or the
// exporter's start for a failure already under way) to the alert firing,
// CloudWatch's delay, the collectors' cadence and the rule's window and
// `for` included.
var promisedDelay = map[string]time.Duration{
	"DynamoDBThrottlingStorm":                     15 * time.Minute,             // ~4m to reach the exporter + the fast window crossing (1-3m) + for 1m, typically 6-11m (20m at the 5m cadence: two cycles)
	"DynamoDBProvisionedThroughputThrottling":     20 * time.Minute,             // 1-3m CloudWatch + a 5m collection cycle + the rate window filling + for 5m
	"DynamoDBAutoScalingMaxTooLow":                15 * time.Minute,             // ~4m to reach the exporter + provisioned plus throttled above max over the fast window + for 2m
	"DynamoDBHotPartition":                        10 * time.Minute,             // ~4m to reach the exporter + the fast window + for 2m
	"DynamoDBOnDemandFlashCrowd":                  15 * time.Minute,             // as DynamoDBHotPartition, with the demand against the previous peak
	"DynamoDBOnDemandMaxThroughputReached":        15 * time.Minute,             // ~4m to reach the exporter + the fast window + for 2m
	"DynamoDBAutoScalingTooSlowForSpikes":         2 * time.Hour,                // the capacity collector's first evaluation of the history, or its hourly evaluation after a live rise
	"DynamoDBAutoScalingTooSensitive":             2 * time.Hour,                // the capacity collector's first evaluation + for 1h
	"DynamoDBAccountProvisionedCapacityNearQuota": 30 * time.Minute,             // slow tier (up to 13m) + for 15m
	"DynamoDBAutoScalingMaxAboveTableQuota":       30 * time.Minute,             // DescribeLimits at the first tables run, the next autoscaling run (5m) + for 15m
	"DynamoDBGSIBackfillThrottling":               20 * time.Minute,             // fast tier (up to 5m) + rate window + for 5m
	"DynamoDBReplicationLagging":                  45 * time.Minute,             // slow tier (up to 13m) + for 30m
	"DynamoDBLatencyAboveBaseline":                30 * time.Minute,             // for 15m
	"DynamoDBTargetUtilizationTooHigh":            90 * time.Minute,             // first scale-out throttle + for 1h
	"DynamoDBOnDemandSustainedWorkload":           7 * time.Hour,                // hourly capacity collector + for 6h
	"DynamoDBBillingModeChurn":                    15 * time.Minute,             // DescribeTable cadence after the switch
	"DynamoDBSurgeBecameBaseline":                 2 * time.Hour,                // hourly capacity collector + for 1h
	"DynamoDBModeSwitchRegressed":                 2 * time.Hour,                // the capacity collector's first evaluation (the first fetch of the history), then hourly
	"DynamoDBReadWriteRatioDrift":                 7 * time.Hour,                // hourly capacity collector + for 6h
	"DynamoDBTTLValuesNeverExpire":                2*time.Hour + 15*time.Minute, // hourly TTL sample + for 1h
	"DynamoDBTTLAttributeNameMismatch":            2*time.Hour + 15*time.Minute, // hourly TTL sample + for 1h
	"DynamoDBTTLAttributeMissingRising":           3 * time.Hour,                // hourly TTL sample + enough items without the attribute in it + for 30m
	"DynamoDBTTLNotDeleting":                      2*24*time.Hour + 3*time.Hour, // deletion grace 2d + sample + for 2h
	"DynamoDBTTLDeletionLagging":                  7 * time.Hour,                // hourly TTL sample + for 6h
	"DynamoDBTTLRetentionBehindWrites":            7 * time.Hour,                // from the start on a table older than 30 days (the deletion counter's first steps + for 6h), or once the exporter's history holds the growth window (1d): DescribeTable's refresh + for 6h
	"DynamoDBTTLShortRetentionWithoutPITR":        25 * time.Hour,               // the first TTL sample (within the hour) + for 1d
	"DynamoDBTTLDeletingLiveData":                 time.Hour,                    // within the first hour of deletions
	"DynamoDBExporterDown":                        7 * time.Minute,              // a failed scrape (one scrape interval) + an evaluation + for 5m
	"DynamoDBExporterCollectorFailing":            30 * time.Minute,
	"DynamoDBExporterAccessDenied":                15 * time.Minute,
	"DynamoDBExporterCloudWatchThrottled":         30 * time.Minute,
	"DynamoDBExporterTTLSamplerOutOfBudget":       time.Hour,
}

// at5mExtra is what an alert's promise grows by at the 5m cadence, where a
// throttled minute reaches the exporter up to 5 minutes later and the fast
// window holds one cycle (its runbook states both figures).
var at5mExtra = map[string]time.Duration{
	"DynamoDBThrottlingStorm":              5 * time.Minute,
	"DynamoDBAutoScalingMaxTooLow":         5 * time.Minute,
	"DynamoDBHotPartition":                 5 * time.Minute,
	"DynamoDBOnDemandFlashCrowd":           5 * time.Minute,
	"DynamoDBOnDemandMaxThroughputReached": 5 * time.Minute,
}

// branchDelay is the detection delay an alert's second branch promises
// (its runbook states it), for the tables whose failure only that branch
// can see: DynamoDBTTLDeletingLiveData's stalled latest expiry (the stall
// window, the next sample, then for) on a retention bug that began before
// the exporter.
var branchDelay = map[[2]string]time.Duration{
	{"DynamoDBTTLDeletingLiveData", "orders-ttl-retention"}: 7 * time.Hour,
	{"DynamoDBTTLDeletingLiveData", "ledger-ttl-steady"}:    7 * time.Hour,
}

// promised is the delay promised for e: its branch's, else its alert's.
func promised(e expected) time.Duration {
	if d, ok := branchDelay[[2]string{e.Alert, e.Table}]; ok {
		return d
	}
	return promisedDelay[e.Alert]
}

// promiseOf prints the delays alert promises: its own, then those of its
// second branch, if any.
func promiseOf(alert string) string {
	out := shortDuration(promisedDelay[alert])
	seen := map[time.Duration]bool{}
	var extra []time.Duration
	for k, d := range branchDelay {
		if k[0] == alert && !seen[d] {
			seen[d] = true
			extra = append(extra, d)
		}
	}
	slices.Sort(extra)
	for _, d := range extra {
		out += ", second branch " + shortDuration(d)
	}
	return out
}

// expected is an alert a scenario must fire for a table (table or
// table/index; account/region for the exporter's own alerts), at the latest
// at Onset + promisedDelay[Alert].
type expected struct {
	Alert, Table string
	Onset        time.Duration
}

// replayCase is one scenario replayed through the whole pack: exactly the
// alerts of Expect may fire, each for its table, within its promised delay.
type replayCase struct {
	Scenario string // built-in name or file
	Start    string // RFC 3339; default replayStart
	Duration time.Duration
	Expect   []expected
	// Gap says why a failure the scenario holds is not expected to fire.
	Gap string
	// FalsePositive lists alerts that fire on healthy traffic of the
	// scenario, a known limitation the runbook states: they may fire
	// (they are not required to), FalsePositiveWhy says why, and the
	// matrix shows them as false positives, not detections.
	FalsePositive    []expected
	FalsePositiveWhy string
	// At5m is set when the exporter collects CloudWatch every 5 minutes:
	// the promises grow by at5mExtra.
	At5m bool
}

const variants = "testdata/replay/"

var replayCases = []replayCase{
	// The built-in scenarios (demo, their union, is left out: each table is here on its own).
	// Healthy, but its TTL table keeps items a day with point-in-time
	// recovery off (the simulator's default): the day-long review finding.
	{Scenario: "healthy", Duration: 24 * time.Hour, Expect: []expected{
		{"DynamoDBTTLShortRetentionWithoutPITR", "catalog-healthy", 0}}},
	{Scenario: "on-demand-sustained", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBOnDemandSustainedWorkload", "ledger-sustained", 0}}},
	{Scenario: "autoscaling-spike", Duration: 4 * time.Hour, Expect: []expected{
		{"DynamoDBThrottlingStorm", "tickets-spike", 2 * time.Hour},
		{"DynamoDBThrottlingStorm", "tickets-spike/by-event", 2 * time.Hour},
		{"DynamoDBAutoScalingTooSlowForSpikes", "tickets-spike", 0},
		{"DynamoDBAutoScalingTooSlowForSpikes", "tickets-spike/by-event", 0},
		{"DynamoDBProvisionedThroughputThrottling", "tickets-spike", 2 * time.Hour},
		{"DynamoDBProvisionedThroughputThrottling", "tickets-spike/by-event", 2 * time.Hour},
		{"DynamoDBAutoScalingMaxTooLow", "tickets-spike", 0},
		{"DynamoDBAutoScalingMaxTooLow", "tickets-spike/by-event", 0}}},
	// Started at noon: the daily hot-key episode (at the replay's start)
	// then meets the daily peak and the partition throttles. 8h so that
	// the cost alert, due at +6h, is seen to stay quiet on a hot key.
	// The +1h episode raises p99 about tenfold against the baseline the
	// exporter has held since its start: the latency alert sees it too
	// (Alertmanager inhibits it under DynamoDBHotPartition).
	{Scenario: "hot-partition-on-demand", Start: "2026-11-20T12:00:00Z", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBThrottlingStorm", "profiles-hotkey", 0},
		{"DynamoDBHotPartition", "profiles-hotkey", 0},
		{"DynamoDBLatencyAboveBaseline", "profiles-hotkey", time.Hour}}},
	{Scenario: "target-too-high", Duration: 3 * time.Hour, Expect: []expected{
		{"DynamoDBProvisionedThroughputThrottling", "carts-target90", 0},
		{"DynamoDBTargetUtilizationTooHigh", "carts-target90", 0}}},
	// Both churn in their history (switches to on-demand at -2d12h and
	// -22h; every 4 hours since -3d): the churn alert's history branch
	// (the provisioned-capacity series) sees them at the first capacity
	// evaluation, before the next live switch.
	{Scenario: "billing-switch-churn", Duration: 5 * time.Hour, Expect: []expected{
		{"DynamoDBBillingModeChurn", "reports-churn", 0}}},
	{Scenario: "billing-switch-schedule", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBBillingModeChurn", "reports-schedule", 0},
		{"DynamoDBAutoScalingTooSlowForSpikes", "reports-schedule", 2 * time.Hour}}},
	{Scenario: "surge-never-reevaluated", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBSurgeBecameBaseline", "feeds-surge", 0},
		{"DynamoDBOnDemandSustainedWorkload", "feeds-surge", 0}}},
	{Scenario: "ttl-wrong-format", Duration: 3 * time.Hour, Expect: []expected{
		{"DynamoDBTTLValuesNeverExpire", "sessions-ttl-format", 0}}},
	{Scenario: "ttl-expired-backlog", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBTTLDeletionLagging", "coupons-ttl-backlog", 0}}},
	// The bug began two days before the exporter: the deletion counter
	// has no rate from before it, and the second branch (the latest live
	// expiry stalled while the table is written) sees it.
	{Scenario: "ttl-retention-too-short", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBTTLDeletingLiveData", "orders-ttl-retention", 0}}},
	// 12h: the backfill at +8h makes TTL delete two weeks of expired
	// items in a burst, which must not page as live data.
	{Scenario: "ttl-format-deploy", Duration: 12 * time.Hour, Expect: []expected{
		{"DynamoDBTTLValuesNeverExpire", "sessions-ttl-deploy", 2 * time.Hour},
		{"DynamoDBTTLAttributeNameMismatch", "sessions-ttl-deploy", 0}}},
	{Scenario: "ttl-retention-collapse", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBTTLDeletingLiveData", "orders-ttl-collapse", time.Hour + 40*time.Minute}}},
	// A write maximum of 50,000 over the 40,000 table-level quota, quiet
	// traffic: the quota truly caps the configured maximum.
	{Scenario: "quota-capped-autoscaling", Duration: 2 * time.Hour, Expect: []expected{
		{"DynamoDBAutoScalingMaxAboveTableQuota", "ledger-quota-capped", 0}}},
	// An index build throttled from before the exporter's start until it
	// ends at about +3h38m: the alert must end with it.
	{Scenario: "gsi-backfill-throttled", Duration: 5 * time.Hour, Expect: []expected{
		{"DynamoDBGSIBackfillThrottling", "orders-gsi-backfill/by-customer", 0}}},
	// A product drop at 22 times the daily level within a minute at +2h,
	// past twice the table's previous peak: on-demand throttles it.
	// A third of the reads throttled: a storm too (it pages).
	{Scenario: "flash-launch", Duration: 3 * time.Hour, Expect: []expected{
		{"DynamoDBOnDemandFlashCrowd", "drops-flash", 2 * time.Hour},
		{"DynamoDBThrottlingStorm", "drops-flash", 2 * time.Hour}}},
	// Writes 6x within 3 minutes every evening at 19:30 UTC: target tracking
	// throttles each time (history-borne: at the first evaluation); the
	// twin table whose scheduled action raises the minimum at 19:15 does
	// not. A global table whose replication to eu-west-1 lags by minutes
	// since before the exporter started.
	{Scenario: "recurring-evening-peak", Duration: 2 * time.Hour, Expect: []expected{
		{"DynamoDBAutoScalingTooSlowForSpikes", "orders-evening-peak", 0}}},
	{Scenario: "global-table-lagging", Duration: 2 * time.Hour, Expect: []expected{
		{"DynamoDBReplicationLagging", "carts-global", 0}}},
	// A storage-heavy archive on the Standard class: advice, no alert.
	{Scenario: "storage-heavy-archive", Duration: 2 * time.Hour},
	{Scenario: "exporter-faults", Duration: 3 * time.Hour, Expect: []expected{
		{"DynamoDBExporterAccessDenied", "demo/us-east-1", 0},
		{"DynamoDBExporterCollectorFailing", "demo/us-east-1", 0},
		{"DynamoDBExporterCloudWatchThrottled", "demo/us-east-1", 30 * time.Minute}}},

	// The union of the built-in scenarios on one account and clock.
	{Scenario: "demo", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBProvisionedThroughputThrottling", "carts-target90", 0},
		{"DynamoDBTargetUtilizationTooHigh", "carts-target90", 0},
		{"DynamoDBAutoScalingTooSlowForSpikes", "tickets-spike", 0},
		{"DynamoDBAutoScalingTooSlowForSpikes", "tickets-spike/by-event", 0},
		{"DynamoDBAutoScalingTooSlowForSpikes", "reports-schedule", 2 * time.Hour},
		{"DynamoDBTTLDeletionLagging", "coupons-ttl-backlog", 0},
		{"DynamoDBSurgeBecameBaseline", "feeds-surge", 0},
		{"DynamoDBOnDemandSustainedWorkload", "feeds-surge", 0},
		{"DynamoDBOnDemandSustainedWorkload", "ledger-sustained", 0},
		{"DynamoDBTTLDeletingLiveData", "orders-ttl-collapse", time.Hour + 40*time.Minute},
		{"DynamoDBTTLDeletingLiveData", "orders-ttl-retention", 0},
		{"DynamoDBBillingModeChurn", "reports-churn", 0},
		{"DynamoDBBillingModeChurn", "reports-schedule", 0},
		{"DynamoDBTTLValuesNeverExpire", "sessions-ttl-deploy", 2 * time.Hour},
		{"DynamoDBTTLAttributeNameMismatch", "sessions-ttl-deploy", 0},
		{"DynamoDBTTLValuesNeverExpire", "sessions-ttl-format", 0},
		{"DynamoDBProvisionedThroughputThrottling", "tickets-spike", 2 * time.Hour},
		{"DynamoDBProvisionedThroughputThrottling", "tickets-spike/by-event", 2 * time.Hour},
		{"DynamoDBAutoScalingMaxTooLow", "tickets-spike", 0},
		{"DynamoDBAutoScalingMaxTooLow", "tickets-spike/by-event", 0},
		{"DynamoDBThrottlingStorm", "tickets-spike", 2 * time.Hour},
		{"DynamoDBThrottlingStorm", "tickets-spike/by-event", 2 * time.Hour},
		{"DynamoDBLatencyAboveBaseline", "profiles-hotkey", time.Hour},
		{"DynamoDBAutoScalingMaxAboveTableQuota", "ledger-quota-capped", 0},
		{"DynamoDBGSIBackfillThrottling", "orders-gsi-backfill/by-customer", 0},
		{"DynamoDBOnDemandFlashCrowd", "drops-flash", 2 * time.Hour},
		{"DynamoDBThrottlingStorm", "drops-flash", 2 * time.Hour},
		{"DynamoDBAutoScalingTooSlowForSpikes", "orders-evening-peak", 0},
		{"DynamoDBReplicationLagging", "carts-global", 0}},
		Gap: "profiles-hotkey: started at midnight, its hot key is under way at the exporter's start and under the partition limit: no key-range throttle (the latency rise of the +1h episode is seen against the baseline held since the start); it gets no cost advice either"},

	// Quiet scenarios: healthy tables that look alarming at first sight.
	{Scenario: variants + "quiet-seasonal.yaml", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-absorbed-spike.yaml", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-small-table.yaml", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-ttl-normal.yaml", Duration: 24 * time.Hour, Expect: []expected{
		{"DynamoDBTTLShortRetentionWithoutPITR", "carts-ttl-ok", 0}}},
	{Scenario: variants + "quiet-ttl-two-entities.yaml", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-ttl-calendar-month.yaml", Start: "2026-11-30T21:00:00Z", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-ttl-nightly-batch.yaml", Duration: 48 * time.Hour, Expect: []expected{
		{"DynamoDBTTLShortRetentionWithoutPITR", "exports-ttl-nightly", 0}}},
	{Scenario: variants + "quiet-on-demand-spiky.yaml", Duration: 24 * time.Hour},
	// Saturday 00:00: the weekend's mix differs from the week's, as every week.
	{Scenario: variants + "quiet-weekly-mix.yaml", Start: "2026-11-21T00:00:00Z", Duration: 48 * time.Hour},

	// Failure scenarios with other sizes, timings and ratios.
	{Scenario: variants + "var-spike-20x.yaml", Duration: 7 * time.Hour, Expect: []expected{
		{"DynamoDBThrottlingStorm", "stream-spike20", 5 * time.Hour},
		{"DynamoDBAutoScalingTooSlowForSpikes", "stream-spike20", 5 * time.Hour},
		{"DynamoDBProvisionedThroughputThrottling", "stream-spike20", 5 * time.Hour},
		{"DynamoDBAutoScalingMaxTooLow", "stream-spike20", 5 * time.Hour}}},
	{Scenario: variants + "var-spike-5x.yaml", Duration: 9 * time.Hour, Expect: []expected{
		{"DynamoDBThrottlingStorm", "invoices-spike5", 7 * time.Hour},
		{"DynamoDBProvisionedThroughputThrottling", "invoices-spike5", 7 * time.Hour}}},
	{Scenario: variants + "var-retention-collapse-late.yaml", Duration: 12 * time.Hour, Expect: []expected{
		{"DynamoDBTTLDeletingLiveData", "events-ttl-collapse", 8 * time.Hour}}},
	// A table older than its retention: the bug only doubles deletions.
	{Scenario: variants + "var-retention-steady.yaml", Duration: 10 * time.Hour, Expect: []expected{
		{"DynamoDBTTLDeletingLiveData", "ledger-ttl-steady", 2 * time.Hour}}},
	{Scenario: variants + "var-churn-daily.yaml", Duration: 30 * time.Hour, Expect: []expected{
		{"DynamoDBBillingModeChurn", "batch-nightly", 22 * time.Hour}}},
	{Scenario: variants + "var-ttl-not-deleting.yaml", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBTTLNotDeleting", "tokens-ttl-stuck", 0}}},
	{Scenario: variants + "var-ratio-drift.yaml", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBReadWriteRatioDrift", "metrics-ratio", 0}}},
	{Scenario: variants + "var-hot-key-latency.yaml", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBLatencyAboveBaseline", "carts-hotkey-latency", 2 * time.Hour}}},
	// Ten TTL tables of 8 KB items want more than the sampler's default
	// hourly read budget: from +35m the last tables of each round are
	// skipped, every hour.
	{Scenario: variants + "var-ttl-budget.yaml", Duration: 4 * time.Hour, Expect: []expected{
		{"DynamoDBExporterTTLSamplerOutOfBudget", "demo/us-east-1", 0}}},
	// A hot key on a provisioned table with ample capacity: key-range
	// throttles only; the p99 rise is its symptom (inhibited by
	// DynamoDBHotPartition in Alertmanager, not in the replay).
	{Scenario: variants + "var-hot-partition-provisioned.yaml", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBHotPartition", "accounts-hotkey-prov", time.Hour},
		{"DynamoDBLatencyAboveBaseline", "accounts-hotkey-prov", time.Hour}}},
	// A low-cardinality GSI key over the partition's write limit in a 2x
	// campaign: the index's alert, not the table's.
	{Scenario: variants + "var-hot-key-gsi.yaml", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBHotPartition", "orders-gsi-hot/by-status", 2 * time.Hour}}},
	// 85% targets on a small table and on the GSI of a 70% table; the
	// base table's refused writes are the GSI's (no cause metric of its own).
	{Scenario: variants + "var-target-85.yaml", Duration: 4 * time.Hour, Expect: []expected{
		{"DynamoDBThrottlingStorm", "quotes-target85", 2 * time.Hour},
		{"DynamoDBProvisionedThroughputThrottling", "quotes-target85", 2 * time.Hour},
		{"DynamoDBTargetUtilizationTooHigh", "quotes-target85", 0},
		{"DynamoDBProvisionedThroughputThrottling", "bookings-gsi85/by-hotel", 2 * time.Hour},
		{"DynamoDBTargetUtilizationTooHigh", "bookings-gsi85/by-hotel", 0}}},
	{Scenario: variants + "var-surge-5x.yaml", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBSurgeBecameBaseline", "news-surge5", 0}}},
	{Scenario: variants + "quiet-surge-5x-gone.yaml", Duration: 8 * time.Hour},
	{Scenario: variants + "var-ratio-drift-reads-fall.yaml", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBReadWriteRatioDrift", "catalog-reads-fall", 0}}},
	{Scenario: variants + "var-ttl-ms-large.yaml", Duration: 4 * time.Hour, Expect: []expected{
		{"DynamoDBTTLValuesNeverExpire", "events-ttl-ms-large", 0}}},
	// A fifth of the writes store a String: deletions go on for the rest.
	{Scenario: variants + "var-ttl-string-partial.yaml", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBTTLValuesNeverExpire", "carts-ttl-string", 0}}},
	// Fixed by a deploy two days ago: the month of items under the wrong
	// name remains, while TTL deletes the new ones.
	{Scenario: variants + "var-ttl-name-after-deploy.yaml", Duration: 6 * time.Hour, Expect: []expected{
		{"DynamoDBTTLAttributeNameMismatch", "tokens-ttl-name", 0}}},
	// A deploy at +2h stops setting the TTL attribute on 40% of the new
	// items of a table that held none without it.
	{Scenario: variants + "var-ttl-missing-rising.yaml", Duration: 8 * time.Hour, Expect: []expected{
		{"DynamoDBTTLAttributeMissingRising", "carts-ttl-missing", 2 * time.Hour}}},
	// A retention of a year instead of a week for 40 days: nothing expires
	// and the table grows by 2.5% a day. The failure is there at the start:
	// the table's mean growth over its 60 days of age against TTL's
	// deletions judges it from the first evaluation (the 1-day growth
	// window, from +1d, would too).
	{Scenario: variants + "var-ttl-retention-long.yaml", Duration: 32 * time.Hour, Expect: []expected{
		{"DynamoDBTTLRetentionBehindWrites", "audit-ttl-long", 0},
		{"DynamoDBTTLShortRetentionWithoutPITR", "sessions-ttl-steady", 0}}},
	// A second entity type carrying an update time (an epoch Number, always
	// past) and no TTL: the sampler does not name an attribute that never
	// holds a future time while tracking the clock (its latest value about
	// as near to now as its latest values are to each other).
	{Scenario: variants + "quiet-ttl-updated-at.yaml", Duration: 6 * time.Hour},
	// A campaign's batch of tokens expiring as designed: deletions jump
	// about 30 times above their baseline with a young backlog, as a
	// retention bug's do, but the TTL sampler saw the tokens live hours
	// before they expired (dynamodb_ttl_foreseen_expired_items_total):
	// a full lifetime ending, not one cut short.
	{Scenario: variants + "quiet-ttl-token-campaign.yaml", Duration: 12 * time.Hour},
	// AccessDenied on a table of one of two regions: that region's alerts only.
	{Scenario: variants + "var-exporter-faults-region.yaml", Duration: 3 * time.Hour, Expect: []expected{
		{"DynamoDBExporterAccessDenied", "demo/eu-west-1", 0},
		{"DynamoDBExporterCollectorFailing", "demo/eu-west-1", 0}},
		Gap: "the simulator's faults name a service or a table, not a region: CloudWatch throttling (DynamoDBExporterCloudWatchThrottled) on one region only cannot be replayed"},
	{Scenario: variants + "quiet-target-69.yaml", Duration: 24 * time.Hour},
	{Scenario: variants + "quiet-new-table.yaml", Duration: 24 * time.Hour, Expect: []expected{
		{"DynamoDBTTLShortRetentionWithoutPITR", "launch-new", 0}}},
	{Scenario: variants + "quiet-ratio-both-rise.yaml", Duration: 8 * time.Hour},
	{Scenario: variants + "quiet-surge-too-recent.yaml", Duration: 8 * time.Hour},
	// TTL enabled 6 hours before the exporter on two months of valid
	// expiries: the catch-up of weeks-old expired items is neither live
	// data nor deletion lagging.
	{Scenario: variants + "quiet-ttl-just-enabled.yaml", Duration: 36 * time.Hour, Expect: []expected{
		{"DynamoDBTTLShortRetentionWithoutPITR", "logs-ttl-enabled", 0}}},
}

// TestAlertPackReplays replays every built-in scenario and the quiet and
// varied ones through every rule of the pack with promtool, and checks that
// each fires exactly its expected alerts, for the right table, within the
// promised delay, and nothing else. It writes (-update) or checks the
// cross-talk matrix in alerts/README.md and logs the median detection delay
// per alert.
func TestAlertPackReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every scenario (about three minutes on two cores)")
	}
	promtool := testtools.Promtool(t)
	files, err := alerts.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alertNames() {
		if _, ok := promisedDelay[a]; !ok {
			t.Errorf("alert %s has no promised detection delay in promisedDelay", a)
		}
	}
	var only *regexp.Regexp
	if *onlyScenarios != "" {
		if only, err = regexp.Compile(*onlyScenarios); err != nil {
			t.Fatalf("-replay.only: %v", err)
		}
		if *alerts.UpdateGenerated {
			t.Fatal("-replay.only and -update: the matrix needs every scenario")
		}
	}
	// Each case is a replay and a promtool run of its own: they run in
	// parallel, and the matrix is built once every one has finished.
	results := make([]*alerts.Timeline, len(replayCases))
	validation := loadValidationCases(t)
	if len(validation) < minValidationScenarios {
		t.Errorf("%s holds %d validation scenarios, fewer than %d", validationDir, len(validation), minValidationScenarios)
	}
	validated := make([]validationResult, len(validation))
	skippedLong := 0
	t.Run("cases", func(t *testing.T) {
		for i, vc := range validation {
			if only != nil && !only.MatchString(vc.File) {
				continue
			}
			t.Run("validation/"+vc.File, func(t *testing.T) {
				t.Parallel()
				tl := evaluate(t, validationDir+vc.File, replayStart, vc.Replay, "", files, promtool)
				validated[i] = judgeValidation(t, vc, tl)
			})
		}
		for i, rc := range replayCases {
			if only != nil && !only.MatchString(rc.Scenario) {
				continue
			}
			if rc.Duration >= longReplay && !runsLong() {
				skippedLong++
				continue
			}
			t.Run(strings.TrimPrefix(rc.Scenario, variants), func(t *testing.T) {
				t.Parallel()
				start := replayStart
				if rc.Start != "" {
					var err error
					if start, err = time.Parse(time.RFC3339, rc.Start); err != nil {
						t.Fatal(err)
					}
				}
				tl := evaluate(t, rc.Scenario, start, rc.Duration, "", files, promtool)
				results[i] = tl
				checkReplay(t, rc, tl)
			})
		}
	})
	if only != nil {
		t.Log("\n" + validationMatrix(replayed(validated)))
		t.Logf("-replay.only %q: the cross-talk matrix is not checked", *onlyScenarios)
		return
	}
	matrix := crossTalkMatrix(results)
	t.Log("\n" + matrix)
	vmatrix := validationMatrix(replayed(validated))
	t.Log("\n" + vmatrix)
	readme := "README.md"
	b, err := os.ReadFile(readme)
	if err != nil && !(os.IsNotExist(err) && *alerts.UpdateGenerated) {
		t.Fatal(err)
	}
	updated, err := replaceBetweenMarkers(string(b), matrixBegin, matrixEnd, "## Cross-talk matrix", matrix)
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	if updated, err = replaceBetweenMarkers(updated, validationBegin, validationEnd, "## Validation set", vmatrix); err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	if skippedLong > 0 {
		// The short form: each replayed case's rows, and the validation
		// set, must be what README.md shows; the long cases' rows and the
		// medians over every case are the long form's to check.
		t.Logf("%d replays of %s or more left to -replay.long", skippedLong, longReplay)
		if t.Failed() {
			return
		}
		documented := matrixRows(string(b))
		for name, rows := range matrixRows(matrix) {
			if got := documented[name]; !sameMatrix(rows, got) {
				t.Errorf("%s: the cross-talk matrix's rows for %s differ from the replay; run go test -run TestAlertPackReplays -update ./alerts and review the change:\n%s\nREADME.md has:\n%s", readme, name, rows, got)
			}
		}
		if vb, vg := between(string(b), validationBegin, validationEnd), between(updated, validationBegin, validationEnd); !sameMatrix(vb, vg) {
			t.Errorf("%s: the validation matrix differs from the replays; run go test -run TestAlertPackReplays -update ./alerts and review the change:\n%s", readme, vmatrix)
		}
		return
	}
	if *alerts.UpdateGenerated {
		// Written even when a case failed: the matrices show what the
		// replays found, misses included.
		if err := os.WriteFile(readme, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if !t.Failed() && !sameMatrix(updated, string(b)) {
		t.Errorf("%s: the cross-talk matrix differs from the replays; run go test -run TestAlertPackReplays -update ./alerts and review the change:\n%s", readme, matrix)
	}
}

// at5mShort are the cases of TestAlertPackReplaysAt5m the test command
// replays: one of each kind the 5m cadence changes (a quiet table, an
// auto-scaling spike through the fast window, a hot key, a TTL retention
// bug). The others of at5m replay with -replay.long (or -update).
var at5mShort = []string{"healthy", "autoscaling-spike", "ttl-retention-collapse", variants + "var-hot-key-latency.yaml"}

// TestAlertPackReplaysAt5m replays a subset of the cases with the exporter
// collecting CloudWatch every 5 minutes, the other supported cadence: the
// same alerts must fire, within the same promised delays, and nothing else.
func TestAlertPackReplaysAt5m(t *testing.T) {
	if testing.Short() {
		t.Skip("replays several scenarios")
	}
	promtool := testtools.Promtool(t)
	files, err := alerts.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	subset := []string{"healthy", "autoscaling-spike", "target-too-high", "ttl-retention-collapse", "ttl-retention-too-short", "exporter-faults",
		variants + "quiet-seasonal.yaml", variants + "var-spike-5x.yaml", variants + "var-hot-key-latency.yaml",
		variants + "var-hot-key-gsi.yaml", variants + "var-target-85.yaml"}
	for _, rc := range replayCases {
		if !slices.Contains(subset, rc.Scenario) {
			continue
		}
		if (rc.Duration >= longReplay || !slices.Contains(at5mShort, rc.Scenario)) && !runsLong() {
			t.Logf("%s (%s) at the 5m cadence left to -replay.long", rc.Scenario, rc.Duration)
			continue
		}
		t.Run(strings.TrimPrefix(rc.Scenario, variants), func(t *testing.T) {
			t.Parallel()
			tl := evaluate(t, rc.Scenario, replayStart, rc.Duration, "{cloudwatch: {interval: 5m}}", files, promtool)
			rc.Scenario += " (5m cadence)"
			rc.At5m = true
			// At the 5m cadence the throttle counters step once a cycle:
			// a storm shorter than two cycles cannot be told from a
			// two-minute burst, and DynamoDBThrottlingStorm waits for two
			// throttled cycles (its runbook says so). A storm is then
			// allowed, not required; the cause-specific alerts still are.
			var expect []expected
			for _, e := range rc.Expect {
				if e.Alert == "DynamoDBThrottlingStorm" {
					rc.FalsePositive = append(rc.FalsePositive, e)
					continue
				}
				expect = append(expect, e)
			}
			rc.Expect = expect
			checkReplay(t, rc, tl)
			var lines []string
			for _, f := range tl.Firings {
				lines = append(lines, fmt.Sprintf("%s %s %s", f.Alert, f.Table(), alerts.Offset(f.First())))
			}
			t.Logf("%s: %s", rc.Scenario, strings.Join(lines, "; "))
		})
	}
}

// firstFirings returns when each alert first fired for each table (table
// or table/index, or account/region) over a timeline.
func firstFirings(tl *alerts.Timeline) map[[2]string]time.Duration {
	first := map[[2]string]time.Duration{}
	for _, f := range tl.Firings {
		k := [2]string{f.Alert, f.Table()}
		if d, ok := first[k]; !ok || f.First() < d {
			first[k] = f.First()
		}
	}
	return first
}

// checkReplay compares what fired with what the case expects.
func checkReplay(t *testing.T, rc replayCase, tl *alerts.Timeline) {
	t.Helper()
	first := firstFirings(tl)
	want := map[[2]string]bool{}
	for _, e := range rc.Expect {
		k := [2]string{e.Alert, e.Table}
		want[k] = true
		got, ok := first[k]
		deadline := e.Onset + promised(e)
		if rc.At5m {
			deadline += at5mExtra[e.Alert]
		}
		switch {
		case !ok:
			t.Errorf("%s: %s did not fire for %s (expected by %s)", rc.Scenario, e.Alert, e.Table, alerts.Offset(deadline))
		case got > deadline:
			t.Errorf("%s: %s fired for %s at %s, later than promised (%s after the onset at %s)", rc.Scenario, e.Alert, e.Table, alerts.Offset(got), promised(e), alerts.Offset(e.Onset))
		case got < e.Onset:
			t.Errorf("%s: %s fired for %s at %s, before the failure's onset at %s", rc.Scenario, e.Alert, e.Table, alerts.Offset(got), alerts.Offset(e.Onset))
		}
	}
	for _, e := range rc.FalsePositive {
		want[[2]string{e.Alert, e.Table}] = true
	}
	for k, at := range first {
		if !want[k] {
			t.Errorf("%s: unexpected %s for %s at %s", rc.Scenario, k[0], k[1], alerts.Offset(at))
		}
	}
}

// alertNames lists the pack's alerts in pack order.
func alertNames() []string {
	var out []string
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r.Alert)
			}
		}
	}
	return out
}

// crossTalkMatrix renders, from the replays, one row per scenario and alert
// that fired (when first, for which table, and the delay from the onset the
// case states), the scenarios that fired nothing, and the median detection
// delay per alert.
func crossTalkMatrix(results []*alerts.Timeline) string {
	var b strings.Builder
	b.WriteString("Generated by `go test -run TestAlertPackReplays -update ./alerts` (replay_test.go): every scenario replayed\n")
	b.WriteString("through every rule with promtool, rules evaluated every minute; times are +h:mm after the replay's start.\n")
	b.WriteString("Delay is from the failure's onset (as the test states it) to the first firing. The test command replays\n")
	b.WriteString("the cases shorter than 24 hours and checks their rows; `-replay.long` and `-update` replay every case.\n\n")
	b.WriteString("| Scenario | Replayed | Alert | Table | First fired | Delay | Promised |\n|---|---|---|---|---|---|---|\n")
	delays := map[string][]time.Duration{}
	for i, tl := range results {
		if tl == nil {
			continue // the case failed before its timeline
		}
		rc := replayCases[i]
		name := strings.TrimPrefix(rc.Scenario, variants)
		type row struct {
			alert, table string
			at           time.Duration
		}
		var rows []row
		seen := map[[2]string]int{}
		for _, f := range tl.Firings {
			k := [2]string{f.Alert, f.Table()}
			if j, ok := seen[k]; ok {
				rows[j].at = min(rows[j].at, f.First())
				continue
			}
			seen[k] = len(rows)
			rows = append(rows, row{f.Alert, f.Table(), f.First()})
		}
		slices.SortFunc(rows, func(a, b row) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return strings.Compare(a.alert+a.table, b.alert+b.table)
		})
		if len(rows) == 0 {
			note := "none"
			if rc.Gap != "" {
				note = "none (gap: " + rc.Gap + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | | | | |\n", name, shortDuration(rc.Duration), note)
			continue
		}
		for _, r := range rows {
			delay, promise := "", ""
			for _, e := range rc.Expect {
				if e.Alert == r.alert && e.Table == r.table {
					delay = shortDuration(r.at - e.Onset)
					promise = shortDuration(promised(e))
					delays[r.alert] = append(delays[r.alert], r.at-e.Onset)
				}
			}
			for _, e := range rc.FalsePositive {
				if e.Alert == r.alert && e.Table == r.table {
					delay = "false positive (known)"
				}
			}
			if delay == "" {
				delay = "unexpected"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, shortDuration(rc.Duration), r.alert, r.table, alerts.Offset(r.at), delay, promise)
		}
		if rc.Gap != "" {
			fmt.Fprintf(&b, "| %s | | (gap) | | | | %s |\n", name, rc.Gap)
		}
		if rc.FalsePositiveWhy != "" {
			fmt.Fprintf(&b, "| %s | | (false positive) | | | | %s |\n", name, rc.FalsePositiveWhy)
		}
	}
	b.WriteString("\nMedian detection delay per alert (over the scenarios and tables above), against its promise:\n\n")
	b.WriteString("| Alert | Median delay | Replays | Promised |\n|---|---|---|---|\n")
	for _, a := range alertNames() {
		d := delays[a]
		if len(d) == 0 {
			fmt.Fprintf(&b, "| %s | not exercised by a scenario | 0 | %s |\n", a, promiseOf(a))
			continue
		}
		slices.Sort(d)
		med := d[len(d)/2]
		if len(d)%2 == 0 {
			med = (d[len(d)/2-1] + d[len(d)/2]) / 2
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", a, shortDuration(med), len(d), promiseOf(a))
	}
	return b.String()
}

// shortDuration prints 2h15m0s as 2h15m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "0s" {
		return "0"
	}
	return s
}

// sameMatrix compares two renderings of the README line by line, times
// within 2 minutes of each other: the exporter's collectors run on their
// own goroutines, so a first firing may move by a minute between runs.
func sameMatrix(a, b string) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if la[i] == lb[i] {
			continue
		}
		ca, cb := strings.Split(la[i], "|"), strings.Split(lb[i], "|")
		if len(ca) != len(cb) {
			return false
		}
		for j := range ca {
			x, y := strings.TrimSpace(ca[j]), strings.TrimSpace(cb[j])
			if x == y {
				continue
			}
			dx, okx := matrixTime(x)
			dy, oky := matrixTime(y)
			if !okx || !oky || (dx-dy).Abs() > 2*time.Minute {
				return false
			}
		}
	}
	return true
}

// matrixTime reads a matrix cell holding a time: +h:mm or a duration.
func matrixTime(s string) (time.Duration, bool) {
	if s == "0" {
		return 0, true
	}
	var h, m int
	if _, err := fmt.Sscanf(s, "+%d:%d", &h, &m); err == nil {
		return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

const (
	matrixBegin     = "<!-- matrix:begin -->"
	matrixEnd       = "<!-- matrix:end -->"
	validationBegin = "<!-- validation:begin -->"
	validationEnd   = "<!-- validation:end -->"
)

// replaceBetweenMarkers puts body between the markers begin and end of doc,
// adding them (a section headed heading at the end) when doc has none.
func replaceBetweenMarkers(doc, begin, end, heading, body string) (string, error) {
	matrixBegin, matrixEnd := begin, end
	i, j := strings.Index(doc, matrixBegin), strings.Index(doc, matrixEnd)
	switch {
	case i < 0 && j < 0:
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + heading + "\n\n" + matrixBegin + "\n" + body + matrixEnd + "\n", nil
	case i < 0 || j < i:
		return "", fmt.Errorf("the markers %s and %s are not in order", matrixBegin, matrixEnd)
	}
	return doc[:i+len(matrixBegin)] + "\n" + body + doc[j:], nil
}

// matrixRows returns the rows of the cross-talk matrix in doc (between its
// markers, the medians' table left out) by scenario, each scenario's rows
// joined by newlines in their order.
func matrixRows(doc string) map[string]string {
	rows := map[string]string{}
	body := between(doc, matrixBegin, matrixEnd)
	body, _, _ = strings.Cut(body, "\nMedian detection delay")
	for _, line := range strings.Split(body, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Scenario |") {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if rows[name] != "" {
			rows[name] += "\n"
		}
		rows[name] += line
	}
	return rows
}

// between returns the text of doc between the markers begin and end, or
// "" when they are missing.
func between(doc, begin, end string) string {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return ""
	}
	return doc[i+len(begin) : j]
}

// TestMatrixRows: rows grouped by scenario, in order, without the header
// or the medians' table.
func TestMatrixRows(t *testing.T) {
	doc := "intro\n" + matrixBegin + "\ntext\n\n| Scenario | Replayed | Alert |\n|---|---|---|\n| s | 8h | A |\n| s | 8h | B |\n| u | 3h | none |\n" +
		"\nMedian detection delay per alert:\n\n| Alert | Median delay |\n|---|---|\n| A | 6h |\n" + matrixEnd + "\n| s | after | end |\n"
	got := matrixRows(doc)
	want := map[string]string{"s": "| s | 8h | A |\n| s | 8h | B |", "u": "| u | 3h | none |"}
	if !maps.Equal(got, want) {
		t.Errorf("matrixRows = %q, want %q", got, want)
	}
}

// TestSameMatrix: a minute's jitter in a time passes, a changed table or
// alert does not.
func TestSameMatrix(t *testing.T) {
	base := "| s | 8h | A | t1 | +6:01 | 6h1m | 7h |\n| A | 6h1m | 1 | 7h |"
	for doc, want := range map[string]bool{
		base: true,
		"| s | 8h | A | t1 | +6:02 | 6h2m | 7h |\n| A | 6h2m | 1 | 7h |": true,
		"| s | 8h | A | t1 | +6:09 | 6h9m | 7h |\n| A | 6h9m | 1 | 7h |": false,
		"| s | 8h | A | t2 | +6:01 | 6h1m | 7h |\n| A | 6h1m | 1 | 7h |": false,
		"| s | 8h | B | t1 | +6:01 | 6h1m | 7h |\n| A | 6h1m | 1 | 7h |": false,
		"| s | 8h | A | t1 | +6:01 | 6h1m | 7h |":                        false,
	} {
		if got := sameMatrix(base, doc); got != want {
			t.Errorf("sameMatrix(%q) = %v, want %v", doc, got, want)
		}
	}
}

// replayStart is the replay start when neither the case nor the scenario
// gives one: a fixed UTC midnight, as `alerts test` uses.
var replayStart = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// evaluate replays the scenario (built-in name or file) from start for
// duration, with the exporter's collectors configured by collectors (YAML;
// empty for production cadences), and evaluates the rule files on it with
// promtool every minute.
func evaluate(t *testing.T, scenario string, start time.Time, duration time.Duration, collectors string, files []alerts.File, promtool string) *alerts.Timeline {
	t.Helper()
	sc := harnesstest.Scenario(t, scenario)
	t0 := time.Now()
	var series bytes.Buffer
	if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: duration, Step: time.Minute,
		Format: harness.FormatPromtool, Collectors: collectors}, &series); err != nil {
		t.Fatalf("%s: %v", scenario, err)
	}
	t1 := time.Now()
	tl, err := alerts.Evaluate(context.Background(), promtool, files, sc.Name, series.Bytes(), duration)
	if err != nil {
		t.Fatalf("%s: %v", scenario, err)
	}
	if *showFirings {
		for _, f := range tl.Firings {
			t.Logf("FIRING %s %v %v", f.Alert, f.Labels, f.Episodes)
		}
	}
	t.Logf("%s: replay %.1fs, promtool %.1fs, %d bytes of series in %d lines", scenario, t1.Sub(t0).Seconds(), time.Since(t1).Seconds(), series.Len(), bytes.Count(series.Bytes(), []byte("\n")))
	return tl
}
