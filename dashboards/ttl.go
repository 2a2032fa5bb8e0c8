package dashboards

import (
	"fmt"

	c "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// neverExpiringClasses are the sample classes TTL never acts on: the ones
// the never-expiring estimate counts (catalogue: not a Number, milliseconds
// or finer, more than five years in the past, unparsable).
const neverExpiringClasses = `class=~"wrong_type|milliseconds|microseconds|nanoseconds|too_old|invalid_number"`

// ttlMissingRatio is the pack's share of the TTL sample without the TTL
// attribute (DynamoDBTTLAttributeMissingRising).
var ttlMissingRatio = rec("dynamodb:ttl_missing_items:ratio")

func ttlBoard() board {
	const liveData = "DynamoDBTTLDeletingLiveData"
	deletionBase := fmt.Sprintf("avg_over_time(%s[%s] offset 1h)", sel(ttlDeletedRate1h, selT), param(liveData, "deletion_baseline_window"))
	status := []panel{
		{kind: tablePanel, title: "TTL status and attribute", unit: unitInfo, merge: true, width: 6,
			description: "Time to Live setting of each table: status (ENABLED, ENABLING, DISABLED, DISABLING) and the attribute TTL reads. A change takes up to " +
				"an hour and a second change within it fails.",
			queries: []query{{expr: fmt.Sprintf("max by (%s, status, attribute) (%s)", byT, sel(c.TableTTLInfo, selT)), instant: true, column: "-"}}},
		{kind: statPanel, title: "Point-in-time recovery: how far back a restore can go", unit: unitSeconds, width: 6,
			description: "Per table, now minus the earliest time a point-in-time restore can go back to: the way back when TTL deletes live data " +
				"(DynamoDBTTLDeletingLiveData). 0 means point-in-time recovery (PITR) is off: deleted items cannot be restored. No value: the exporter " +
				"cannot read PITR (dynamodb:DescribeContinuousBackups denied). Read once an hour per table; confirm with " +
				"`aws dynamodb describe-continuous-backups` before a restore.",
			queries: []query{{expr: fmt.Sprintf("time() - %s\nor\n%s * 0", sel(c.TablePITREarliestRestorable, selT), sel(c.TablePITREnabled, selT)), instant: true, legend: "{{table}}"}}},
		{kind: timeSeries, title: "TTL deletions per minute against their baseline", unit: unitPerMinute, width: 12,
			lines: []float64{number(liveData, "min_deletions_per_second") * 60},
			description: fmt.Sprintf("Items TTL deleted per minute over the last hour, their baseline (mean of the hourly rates over %s, ending an hour ago) and "+
				"the alert level, %s times the baseline. Deletions far above the alert level and above the dashed line (min_deletions_per_second) while the "+
				"expired backlog cannot explain them mean a retention bug deleting live data (DynamoDBTTLDeletingLiveData): stop TTL. Zero while items expire "+
				"means TTL does not work.", param(liveData, "deletion_baseline_window"), param(liveData, "deletion_factor")),
			queries: []query{
				{expr: fmt.Sprintf("60 * %s", sel(ttlDeletedRate1h, selT)), legend: "deleted {{table}}"},
				{expr: "60 * " + deletionBase, legend: "baseline {{table}}"},
				{expr: fmt.Sprintf("60 * %s * %s", param(liveData, "deletion_factor"), deletionBase), legend: "alert level {{table}}"},
			}},
	}
	backlog := []panel{
		{kind: timeSeries, title: "Expired but not deleted (estimate and 95% interval)", unit: unitCount,
			description: "Items whose TTL has passed and that DynamoDB still stores, returns to reads and bills, estimated from the TTL sample with its 95% " +
				"interval (clustering by partition key counted). Deletion is late by design (typically within 48 hours); a backlog that keeps growing means " +
				"deletion falls behind or does not run.",
			queries: []query{
				{expr: sel(c.TTLExpiredItemsEstimate, selT), legend: "estimate {{table}}"},
				{expr: sel(c.TTLExpiredItemsLowerBound, selT), legend: "lower bound {{table}}"},
				{expr: sel(c.TTLExpiredItemsUpperBound, selT), legend: "upper bound {{table}}"},
			}},
		{kind: timeSeries, title: "Storage the expired items hold, in dollars a month", unit: unitUSD, stack: true,
			description: "What the expired-but-not-deleted items cost to store each month, in the table and in each GSI (an expired item stays in every " +
				"index it belongs to until deleted): the expired estimate times the mean billable size of the expired items the sample read whole, at the " +
				"list storage price of the table's class (built in for us-east-1; elsewhere set collectors.capacity.prices[].storage_gb_month). " +
				"Absent without a price or a measured size.",
			queries: []query{{expr: sel(c.TTLExpiredStorageMonthlyCost, selTI), legend: "{{table}} {{index}}"}}},
		{kind: timeSeries, title: "Oldest expired item: time since its expiry", unit: unitSeconds,
			lines: []float64{seconds("DynamoDBTTLNotDeleting", "deletion_grace"), seconds("DynamoDBTTLDeletionLagging", "max_deletion_lag")},
			description: fmt.Sprintf("How long ago the oldest expired item the last sample saw expired: how late deletion runs. The dashed lines are the pack's "+
				"deletion_grace (%s: with no deletion at all, DynamoDBTTLNotDeleting) and max_deletion_lag (%s: while TTL deletes, DynamoDBTTLDeletionLagging). "+
				"Absent when the sample held no expired item.", param("DynamoDBTTLNotDeleting", "deletion_grace"), param("DynamoDBTTLDeletionLagging", "max_deletion_lag")),
			queries: []query{{expr: fmt.Sprintf("time() - %s", sel(c.TTLOldestExpiredItemTimestamp, selT)), legend: "{{table}}"}}},
		{kind: timeSeries, title: "Never-expiring items by class", unit: unitCount, stack: true,
			description: "The never-expiring estimate split by why TTL ignores the value, in proportion to the sampled items of each class: wrong_type (a String " +
				"or other non-Number), milliseconds, microseconds or nanoseconds (read as seconds, the far future), too_old (more than five years in the past) " +
				"and invalid_number. These items are never deleted; fix the writer and clean them up by hand.",
			queries: []query{{expr: fmt.Sprintf("%[1]s\n  / on (%[2]s) group_left\nsum by (%[2]s) (%[1]s)\n  * on (%[2]s) group_left\n%[3]s",
				sel(c.TTLSampledItems, selT, neverExpiringClasses), byT, sel(c.TTLNeverExpiringItemsEstimate, selT)), legend: "{{table}} {{class}}"}}},
		{kind: timeSeries, title: "Never-expiring items (estimate and 95% interval)", unit: unitCount,
			lines: []float64{number("DynamoDBTTLValuesNeverExpire", "min_never_expiring_items")},
			description: "Estimated items whose TTL value TTL will never act on, with the 95% interval. A lower bound above the dashed line " +
				"(min_never_expiring_items) on a table with TTL enabled raises DynamoDBTTLValuesNeverExpire.",
			queries: []query{
				{expr: sel(c.TTLNeverExpiringItemsEstimate, selT), legend: "estimate {{table}}"},
				{expr: sel(c.TTLNeverExpiringItemsLowerBound, selT), legend: "lower bound {{table}}"},
				{expr: sel(c.TTLNeverExpiringItemsUpperBound, selT), legend: "upper bound {{table}}"},
			}},
		{kind: timeSeries, title: "Items carrying another epoch attribute", unit: unitPercent,
			lines: []float64{number("DynamoDBTTLAttributeNameMismatch", "min_candidate_share")},
			description: "Share of the table's items that lack the TTL attribute but carry another top-level Number holding an epoch time, by attribute: " +
				"the attribute writers likely meant. Above the dashed line (min_candidate_share) with TTL enabled, DynamoDBTTLAttributeNameMismatch fires: TTL never deletes these items.",
			queries: []query{{expr: sel(c.TTLCandidateAttributeItemsRatio, selT), legend: "{{table}} {{attribute}}"}}},
		{kind: timeSeries, title: "Expired items under the other attribute (estimate and 95% interval)", unit: unitCount,
			description: "Items lacking the TTL attribute whose candidate attribute already holds a past time: the backlog TTL would delete if it read that attribute.",
			queries: []query{
				{expr: sel(c.TTLCandidateExpiredItemsEstimate, selT), legend: "estimate {{table}} {{attribute}}"},
				{expr: sel(c.TTLCandidateExpiredItemsLowerBound, selT), legend: "lower bound {{table}} {{attribute}}"},
				{expr: sel(c.TTLCandidateExpiredItemsUpperBound, selT), legend: "upper bound {{table}} {{attribute}}"},
			}},
	}
	live := []panel{
		{kind: heatmapPanel, title: "Remaining lifetime of live items", unit: unitSeconds, width: 24,
			description: "Remaining lifetime (TTL value minus now) of the live items the sampler read in each hour, as a heatmap: each column is the distribution. " +
				"A retention that suddenly got shorter (a missing * 86400, a wrong time zone) moves the mass down; items near zero are about to expire.",
			queries: []query{{expr: fmt.Sprintf("sum by (le) (increase(%s_bucket{%s}[1h]))", c.TTLLiveItemRemainingLifetime, selT), legend: "{{le}}"}}},
	}
	sampler := []panel{
		{kind: timeSeries, title: "TTL sampler read cost per hour (RCU)", unit: unitCount, width: 8,
			description: "Read capacity units the TTL sampler's Scan calls consumed on the table in the last hour, as DynamoDB reported them: the cost of watching TTL health.",
			queries:     []query{{expr: fmt.Sprintf("increase(%s[1h])", sel(c.TTLSamplerConsumedReadUnitsTotal, selT)), legend: "{{table}}"}}},
		{kind: timeSeries, title: "TTL sampler outcomes per hour", unit: unitCount, width: 8, stack: true,
			description: "TTL samples in the last hour by outcome, per account and region: complete, partial (read budget ran out), skipped_budget (the hourly " +
				"budget was spent: raise collectors.ttl.budget), skipped_unknown_size (DynamoDB reports no size yet) and error.",
			queries: []query{{expr: fmt.Sprintf("sum by (account, region, outcome) (increase(%s[1h]))", sel(c.ExporterTTLSamplesTotal, selAR)), legend: "{{outcome}} {{account}} {{region}}"}}},
		{kind: timeSeries, title: "Time since the last TTL sample", unit: unitSeconds, width: 8,
			description: "Age of the TTL figures above: time since the table's last completed sample. It grows between samples and resets at each; " +
				"growing past the table interval means samples are skipped.",
			queries: []query{{expr: fmt.Sprintf("time() - %s", sel(c.TTLLastSampleTimestamp, selT)), legend: "{{table}}"}}},
	}
	return board{
		uid: TTLUID, title: "DynamoDB TTL health", file: "ttl-health.json",
		description: "Time to Live of the selected tables: status, how far back point-in-time recovery can restore, deletions against their baseline, expired-but-not-deleted and never-expiring estimates, oldest expired item, remaining lifetime of live items, and what the sampler costs.",
		rows: []row{
			{title: "Setting and deletions", panels: status},
			{title: "Backlog and values TTL ignores", panels: backlog},
			{title: "Live items", panels: live},
			{title: "Sampler", panels: sampler},
		},
		annotations: []annotation{alertAnnotation(selT)},
	}
}
