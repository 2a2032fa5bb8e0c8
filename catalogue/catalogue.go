// Package catalogue is the single source of truth for every metric family the
// exporter emits: its name, type, help text, labels, unit and AWS source.
// Descriptors, the generated docs/metrics.md and the consistency tests all
// read this table; nothing else may define a metric family.
package catalogue

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Type is the Prometheus type of a family.
type Type string

// The family types the exporter uses.
const (
	Gauge     Type = "gauge"
	Counter   Type = "counter"
	Histogram Type = "histogram"
)

// Label names shared by many families.
const (
	LabelAccount   = "account"
	LabelRegion    = "region"
	LabelTable     = "table"
	LabelIndex     = "index"
	LabelOperation = "operation"
	LabelKind      = "kind"
	LabelCause     = "cause"
	LabelDimension = "dimension"
	LabelCollector = "collector"
	LabelService   = "service"
	LabelErrorCode = "error_code"
	LabelClass     = "class"
	LabelOutcome   = "outcome"
	// LabelAttribute is an attribute NAME (a schema fact), never a value.
	LabelAttribute = "attribute"
	LabelWithin    = "within"
)

// Family describes one metric family.
type Family struct {
	// Name is the full metric name, including the namespace prefix.
	Name string
	// Type is gauge or counter.
	Type Type
	// Help is the HELP text: a sentence ending in a period.
	Help string
	// Labels are the variable label names, in order.
	Labels []string
	// Unit is the unit of the value, in words, for the docs.
	Unit string
	// Source says where the value comes from (AWS API and field or metric).
	Source string
}

// Names of every family, as constants so that code refers to them by name and
// the compiler catches typos.
const (
	ConsumedReadCapacityUnitsTotal     = "dynamodb_consumed_read_capacity_units_total"
	ConsumedWriteCapacityUnitsTotal    = "dynamodb_consumed_write_capacity_units_total"
	ThrottleEventsTotal                = "dynamodb_throttle_events_total"
	ThrottleEventsByCauseTotal         = "dynamodb_throttle_events_by_cause_total"
	ThrottledRequestsTotal             = "dynamodb_throttled_requests_total"
	SuccessfulRequestLatencyAverage    = "dynamodb_successful_request_latency_average_seconds"
	SuccessfulRequestLatencyP99        = "dynamodb_successful_request_latency_p99_seconds"
	SystemErrorsTotal                  = "dynamodb_system_errors_total"
	UserErrorsTotal                    = "dynamodb_user_errors_total"
	TTLDeletedItemsTotal               = "dynamodb_ttl_deleted_items_total"
	TTLDeletionRateDayEarlier          = "dynamodb_ttl_deletion_rate_day_earlier_items_per_second"
	TableInfo                          = "dynamodb_table_info"
	TableTTLInfo                       = "dynamodb_table_ttl_info"
	ProvisionedReadCapacityUnits       = "dynamodb_provisioned_read_capacity_units"
	ProvisionedWriteCapacityUnits      = "dynamodb_provisioned_write_capacity_units"
	ProvisionedDecreasesToday          = "dynamodb_provisioned_capacity_decreases_today"
	Items                              = "dynamodb_items"
	SizeBytes                          = "dynamodb_size_bytes"
	LastSwitchToOnDemandTimestamp      = "dynamodb_last_switch_to_on_demand_timestamp_seconds"
	TableCreationTimestamp             = "dynamodb_table_creation_timestamp_seconds"
	OnDemandMaxReadRequestUnits        = "dynamodb_on_demand_max_read_request_units"
	OnDemandMaxWriteRequestUnits       = "dynamodb_on_demand_max_write_request_units"
	WarmThroughputUnits                = "dynamodb_warm_throughput_units_per_second"
	TableGlobalInfo                    = "dynamodb_table_global_info"
	TableReplicaInfo                   = "dynamodb_table_replica_info"
	ReplicationLatency                 = "dynamodb_replication_latency_seconds"
	TablePITREnabled                   = "dynamodb_table_pitr_enabled"
	TablePITREarliestRestorable        = "dynamodb_table_pitr_earliest_restorable_timestamp_seconds"
	TablePITRRecoveryPeriod            = "dynamodb_table_pitr_recovery_period_seconds"
	GSIBackfillProgress                = "dynamodb_gsi_backfill_progress_ratio"
	GSIBackfillConsumedWriteUnitsTotal = "dynamodb_gsi_backfill_consumed_write_capacity_units_total"
	GSIBackfillThrottleEventsTotal     = "dynamodb_gsi_backfill_throttle_events_total"
	QuotaAccountMaxCapacityUnits       = "dynamodb_quota_account_max_capacity_units"
	AccountProvisionedUtilization      = "dynamodb_account_provisioned_capacity_utilization_ratio"
	QuotaTableMaxCapacityUnits         = "dynamodb_quota_table_max_capacity_units"
	AutoScalingMaxOverTableQuota       = "dynamodb_autoscaling_max_over_table_quota_ratio"
	AutoScalingMinCapacityUnits        = "dynamodb_autoscaling_min_capacity_units"
	AutoScalingMaxCapacityUnits        = "dynamodb_autoscaling_max_capacity_units"
	AutoScalingTargetUtilization       = "dynamodb_autoscaling_target_utilization_ratio"
	AutoScalingScaleInCooldown         = "dynamodb_autoscaling_scale_in_cooldown_seconds"
	AutoScalingScaleOutCooldown        = "dynamodb_autoscaling_scale_out_cooldown_seconds"
	AutoScalingScaleInDisabled         = "dynamodb_autoscaling_scale_in_disabled"
	AutoScalingScheduledActions        = "dynamodb_autoscaling_scheduled_actions"
	TTLSampledItems                    = "dynamodb_ttl_sampled_items"
	TTLExpiredItemsEstimate            = "dynamodb_ttl_expired_items_estimate"
	TTLExpiredItemsLowerBound          = "dynamodb_ttl_expired_items_lower_bound"
	TTLExpiredItemsUpperBound          = "dynamodb_ttl_expired_items_upper_bound"
	TTLNeverExpiringItemsEstimate      = "dynamodb_ttl_never_expiring_items_estimate"
	TTLNeverExpiringItemsLowerBound    = "dynamodb_ttl_never_expiring_items_lower_bound"
	TTLNeverExpiringItemsUpperBound    = "dynamodb_ttl_never_expiring_items_upper_bound"
	TTLOldestExpiredItemTimestamp      = "dynamodb_ttl_oldest_expired_item_timestamp_seconds"
	TTLExpiredStorageMonthlyCost       = "dynamodb_ttl_expired_items_storage_monthly_cost_dollars"
	TTLCandidateAttributeItemsRatio    = "dynamodb_ttl_candidate_attribute_items_ratio"
	TTLCandidateExpiredItemsEstimate   = "dynamodb_ttl_candidate_attribute_expired_items_estimate"
	TTLCandidateExpiredItemsLowerBound = "dynamodb_ttl_candidate_attribute_expired_items_lower_bound"
	TTLCandidateExpiredItemsUpperBound = "dynamodb_ttl_candidate_attribute_expired_items_upper_bound"
	TTLCandidateFutureItemsRatio       = "dynamodb_ttl_candidate_attribute_future_items_ratio"
	TTLLiveItemRemainingLifetime       = "dynamodb_ttl_live_item_remaining_lifetime_seconds"
	TTLLatestLiveExpiryTimestamp       = "dynamodb_ttl_latest_live_item_expiry_timestamp_seconds"
	TTLLiveItemsNearLatestExpiry       = "dynamodb_ttl_sampled_live_items_near_latest_expiry"
	TTLForeseenExpiredItemsTotal       = "dynamodb_ttl_foreseen_expired_items_total"
	TTLExpiryRateEstimate              = "dynamodb_ttl_expiry_rate_estimate_items_per_second"
	TTLSamplerConsumedReadUnitsTotal   = "dynamodb_ttl_sampler_consumed_read_capacity_units_total"
	TTLLastSampleTimestamp             = "dynamodb_ttl_last_sample_timestamp_seconds"
	ExporterTTLSamplesTotal            = "dynamodb_exporter_ttl_samples_total"
	ExporterAWSRequestsTotal           = "dynamodb_exporter_aws_requests_total"
	ExporterAWSRequestErrorsTotal      = "dynamodb_exporter_aws_request_errors_total"
	ExporterCollectorDuration          = "dynamodb_exporter_collector_duration_seconds"
	ExporterCollectorLastSuccess       = "dynamodb_exporter_collector_last_success_timestamp_seconds"
	ExporterCollectorSuccess           = "dynamodb_exporter_collector_success"
	ExporterCollectorErrorsTotal       = "dynamodb_exporter_collector_errors_total"
	ExporterCloudWatchMetricsTotal     = "dynamodb_exporter_cloudwatch_metrics_requested_total"
	ExporterCloudWatchSeries           = "dynamodb_exporter_cloudwatch_series"
	ExporterCloudWatchRevisionsTotal   = "dynamodb_exporter_cloudwatch_revisions_total"
	ExporterCloudWatchUnretractedTotal = "dynamodb_exporter_cloudwatch_unretracted_total"
	ExporterTables                     = "dynamodb_exporter_tables"
	ExporterPITRUnreadTables           = "dynamodb_exporter_pitr_unread_tables"
	ExporterBuildInfo                  = "dynamodb_exporter_build_info"
)

// pitrNote says how stale the PITR families may be.
const pitrNote = " Read once an hour per table (the setting changes rarely and DescribeContinuousBackups is limited to 10 calls a second), at most 5 reads a second per account and region: after a start, a large estate's tables are read over the first runs (dynamodb_exporter_pitr_unread_tables counts those not read yet)."

// backfillNote says when the index-build families exist.
const backfillNote = " Present only while DescribeTable reports the index CREATING (CloudWatch is asked for the index-build metrics only then); gone once the index is ACTIVE."

// limitsNote says how stale the quota families may be.
const limitsNote = " Read once an hour per account and region (quotas change only when AWS grants an increase)."

// backgroundNote ends the help of every family filled from AWS in the
// background: scrapes never call AWS.
const backgroundNote = " Collected in the background, not at scrape time."

var (
	tableLabels     = []string{LabelAccount, LabelRegion, LabelTable}
	indexLabels     = []string{LabelAccount, LabelRegion, LabelTable, LabelIndex}
	operationLabels = []string{LabelAccount, LabelRegion, LabelTable, LabelOperation}
	scalingLabels   = []string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension}
)

// families is the catalogue, in the order the docs show: the AWS-sourced
// families, the derived ones (derived.go), then the exporter's own.
var families = concat(awsFamilies, derivedFamilies, exporterFamilies, capacityFetchFamilies)

func concat(parts ...[]Family) []Family {
	var out []Family
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// awsFamilies are read from AWS. Keep them grouped by source.
var awsFamilies = []Family{
	// CloudWatch, AWS/DynamoDB namespace.
	{ConsumedReadCapacityUnitsTotal, Counter,
		"Read capacity units consumed since the exporter started watching the table or index: the sum of CloudWatch's 1-minute Sums, every minute fetched once and none skipped, so rate() gives units per second over any window; index is empty for the base table." + backgroundNote,
		indexLabels, "capacity units", "CloudWatch ConsumedReadCapacityUnits, Sum"},
	{ConsumedWriteCapacityUnitsTotal, Counter,
		"Write capacity units consumed since the exporter started watching the table or index: the sum of CloudWatch's 1-minute Sums, every minute fetched once and none skipped, so rate() gives units per second over any window; index is empty for the base table." + backgroundNote,
		indexLabels, "capacity units", "CloudWatch ConsumedWriteCapacityUnits, Sum"},
	{ThrottleEventsTotal, Counter,
		"Throttle events by kind (read or write) since the exporter started watching the table; stays flat while CloudWatch proves there were none." + backgroundNote,
		append(append([]string{}, indexLabels...), LabelKind), "events", "CloudWatch ReadThrottleEvents / WriteThrottleEvents, Sum"},
	{ThrottleEventsByCauseTotal, Counter,
		"Throttle events by kind and cause (key_range_throughput, provisioned_throughput, account_limit, max_on_demand_throughput) since the exporter started watching the table; a cause that cannot occur in the table's billing mode has no series (provisioned_throughput: provisioned tables; account_limit, max_on_demand_throughput: on-demand tables)." + backgroundNote,
		append(append([]string{}, indexLabels...), LabelKind, LabelCause), "events",
		"CloudWatch {Read,Write}{KeyRangeThroughput,ProvisionedThroughput,AccountLimit,MaxOnDemandThroughput}ThrottleEvents, Sum"},
	{ThrottledRequestsTotal, Counter,
		"Requests throttled by DynamoDB, by operation, since the exporter started watching the table." + backgroundNote,
		operationLabels, "requests", "CloudWatch ThrottledRequests, Sum"},
	{SuccessfulRequestLatencyAverage, Gauge,
		"Average latency of successful requests by operation during the latest CloudWatch minute with requests among those last fetched (the slow polling tier fetches them every collectors.cloudwatch.slow_interval, 10m by default)." + backgroundNote,
		operationLabels, "seconds", "CloudWatch SuccessfulRequestLatency, Average (ms / 1000)"},
	{SuccessfulRequestLatencyP99, Gauge,
		"99th percentile latency of successful requests by operation during the latest CloudWatch minute with requests among those last fetched (the slow polling tier fetches them every collectors.cloudwatch.slow_interval, 10m by default)." + backgroundNote,
		operationLabels, "seconds", "CloudWatch SuccessfulRequestLatency, p99 (ms / 1000)"},
	{SystemErrorsTotal, Counter,
		"Requests that failed with an HTTP 500 from DynamoDB, by operation, since the exporter started watching the table." + backgroundNote,
		operationLabels, "requests", "CloudWatch SystemErrors, Sum"},
	{UserErrorsTotal, Counter,
		"Requests in the account and region that failed with an HTTP 400, since the exporter started; AWS publishes this only per region." + backgroundNote,
		[]string{LabelAccount, LabelRegion}, "requests", "CloudWatch UserErrors, Sum"},
	// The build of an index added to an existing table: requested only
	// while DescribeTable reports the index CREATING (backfillNote).
	{GSIBackfillProgress, Gauge,
		"Progress of the build of a global secondary index being added to the table, from 0 to 1: the share of the table's items processed." + backfillNote + backgroundNote,
		indexLabels, "ratio", "CloudWatch OnlineIndexPercentageProgress (Maximum) / 100"},
	{GSIBackfillConsumedWriteUnitsTotal, Counter,
		"Write capacity units the build of a global secondary index being added to the table consumed since the exporter started watching it; not part of the index's dynamodb_consumed_write_capacity_units_total." + backfillNote + backgroundNote,
		indexLabels, "capacity units", "CloudWatch OnlineIndexConsumedWriteCapacity, Sum"},
	{GSIBackfillThrottleEventsTotal, Counter,
		"Write throttle events while a global secondary index being added to the table is built, since the exporter started watching it: the build and the table's writes share the new index's write capacity, so they hold back the base table's writes too; not part of dynamodb_throttle_events_total; stays flat while CloudWatch proves there were none." + backfillNote + backgroundNote,
		indexLabels, "events", "CloudWatch OnlineIndexThrottleEvents, Sum"},

	{TTLDeletedItemsTotal, Counter,
		"Items deleted by Time to Live since the exporter started watching the table." + backgroundNote,
		tableLabels, "items", "CloudWatch TimeToLiveDeletedItemCount, Sum"},
	{TTLDeletionRateDayEarlier, Gauge,
		"Items TTL deleted per second over the hour that ended 24 hours ago (the same hour a day earlier), read from CloudWatch's history once an hour for each table whose TTL deletions CloudWatch lists: a table's daily cycle of deletions, known from the exporter's first cycle, where Prometheus holds a day of dynamodb_ttl_deleted_items_total only a day after the exporter started." + backgroundNote,
		tableLabels, "items per second", "CloudWatch TimeToLiveDeletedItemCount, Sum of 5-minute periods, 25 to 23 hours ago"},

	// DescribeTable and DescribeTimeToLive.
	{TableInfo, Gauge,
		"Facts about a table as labels; the value is always 1. billing_mode is PROVISIONED, PAY_PER_REQUEST or unknown (a value this build does not know)." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "billing_mode", "table_class", "status"}, "info",
		"DynamoDB DescribeTable: BillingModeSummary, TableClassSummary, TableStatus"},
	{TableTTLInfo, Gauge,
		"Time to Live setting of a table as labels; the value is always 1. status is ENABLED, ENABLING, DISABLED, DISABLING or unknown (a value this build does not know)." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "status", "attribute"}, "info",
		"DynamoDB DescribeTimeToLive: TimeToLiveStatus, AttributeName"},
	{ProvisionedReadCapacityUnits, Gauge,
		"Provisioned read capacity units of a provisioned table or index; absent for on-demand tables." + backgroundNote,
		indexLabels, "capacity units per second", "DynamoDB DescribeTable: ProvisionedThroughput.ReadCapacityUnits"},
	{ProvisionedWriteCapacityUnits, Gauge,
		"Provisioned write capacity units of a provisioned table or index; absent for on-demand tables." + backgroundNote,
		indexLabels, "capacity units per second", "DynamoDB DescribeTable: ProvisionedThroughput.WriteCapacityUnits"},
	{ProvisionedDecreasesToday, Gauge,
		"Provisioned throughput decreases of the table or index during the current UTC day." + backgroundNote,
		indexLabels, "decreases", "DynamoDB DescribeTable: ProvisionedThroughput.NumberOfDecreasesToday"},
	{Items, Gauge,
		"Items in the table or index as DynamoDB reports them; AWS refreshes this about every six hours." + backgroundNote,
		indexLabels, "items", "DynamoDB DescribeTable: ItemCount"},
	{SizeBytes, Gauge,
		"Storage size of the table or index as DynamoDB reports it; AWS refreshes this about every six hours." + backgroundNote,
		indexLabels, "bytes", "DynamoDB DescribeTable: TableSizeBytes, IndexSizeBytes"},
	{TableCreationTimestamp, Gauge,
		"Time the table was created, as Unix seconds: its age bounds the history any figure can hold, and its items over its age are its mean net growth (used by DynamoDBTTLRetentionBehindWrites at the first evaluation)." + backgroundNote,
		tableLabels, "seconds since epoch", "DynamoDB DescribeTable: CreationDateTime"},
	{LastSwitchToOnDemandTimestamp, Gauge,
		"Time of the table's last switch to on-demand (PAY_PER_REQUEST), as Unix seconds; absent if it never switched." + backgroundNote,
		tableLabels, "seconds since epoch", "DynamoDB DescribeTable: BillingModeSummary.LastUpdateToPayPerRequestDateTime"},
	{OnDemandMaxReadRequestUnits, Gauge,
		"Maximum read request units per second configured for an on-demand table or index; absent when unlimited." + backgroundNote,
		indexLabels, "request units per second", "DynamoDB DescribeTable: OnDemandThroughput.MaxReadRequestUnits"},
	{OnDemandMaxWriteRequestUnits, Gauge,
		"Maximum write request units per second configured for an on-demand table or index; absent when unlimited." + backgroundNote,
		indexLabels, "request units per second", "DynamoDB DescribeTable: OnDemandThroughput.MaxWriteRequestUnits"},

	{WarmThroughputUnits, Gauge,
		"Warm throughput of the table (index empty) or GSI: the read or write units per second (dimension) it can serve at once, as DynamoDB reports it (it grows with provisioned capacity and on-demand peaks and never decreases; UpdateTable WarmThroughput raises it, at a charge). status is ACTIVE, UPDATING (a raise in progress: the value may still change) or another status AWS reports. Absent when DescribeTable has no WarmThroughput (answers before November 2024, some regions and endpoints)." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, "status"}, "units per second",
		"DynamoDB DescribeTable: WarmThroughput.ReadUnitsPerSecond, WriteUnitsPerSecond, Status (table and each GlobalSecondaryIndexes[].WarmThroughput)"},

	// Global tables: DescribeTable's GlobalTableVersion and Replicas.
	{TableGlobalInfo, Gauge,
		"The table is a replica of a global table: version is DescribeTable's GlobalTableVersion (2019.11.21; 2017.11.29 for a legacy global table, whose replicas DescribeTable does not list), consistency its MultiRegionConsistency (EVENTUAL or STRONG; empty when the answer has no such field); the value is always 1. The global table is the table name in every replica region (a global table's replicas share its name): group by account and table across regions. Absent for a table of one region." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "version", "consistency"}, "info",
		"DynamoDB DescribeTable: GlobalTableVersion, MultiRegionConsistency"},
	{TableReplicaInfo, Gauge,
		"One series per other replica of a global table, as DescribeTable in this region lists it: replica_region holds the replica, status its ReplicaStatus (ACTIVE, CREATING, UPDATING, DELETING, REGION_DISABLED, INACCESSIBLE_ENCRYPTION_CREDENTIALS, ...); the value is always 1. A replica in a region the exporter does not read is listed too. Absent for a table of one region and for a legacy (2017.11.29) global table." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "replica_region", "status"}, "info",
		"DynamoDB DescribeTable: Replicas[].RegionName, ReplicaStatus"},
	{ReplicationLatency, Gauge,
		"Time a write made to this region's replica takes to appear in the replica of receiving_region (global tables): the latest 1-minute Average, polled on the slow tier. DynamoDB publishes it in the writing region for each receiving region, only in minutes with replicated writes; it should be fairly constant, and a rising value means the receiving replica falls behind (AWS, \"Monitoring global tables\")." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "receiving_region"}, "seconds",
		"CloudWatch ReplicationLatency (Average; dimensions TableName, ReceivingRegion) / 1000"},

	// DescribeContinuousBackups, read once an hour per table (pitrNote).
	{TablePITREnabled, Gauge,
		"1 if point-in-time recovery (PITR) is ENABLED on the table, else 0; absent when the exporter could not read it (dynamodb:DescribeContinuousBackups denied: see dynamodb_exporter_aws_request_errors_total)." + pitrNote + backgroundNote,
		tableLabels, "boolean", "DynamoDB DescribeContinuousBackups: PointInTimeRecoveryDescription.PointInTimeRecoveryStatus"},
	{TablePITREarliestRestorable, Gauge,
		"Earliest time a point-in-time restore of the table can go back to, as Unix seconds: AWS's answer, moved forward to now minus the recovery period between two reads; time() minus it is how far back a restore can go; absent while PITR is off." + pitrNote + backgroundNote,
		tableLabels, "seconds since epoch", "DynamoDB DescribeContinuousBackups: PointInTimeRecoveryDescription.EarliestRestorableDateTime, RecoveryPeriodInDays"},
	{TablePITRRecoveryPeriod, Gauge,
		"Recovery period of the table's point-in-time recovery: how far back a restore can go once PITR has been on that long (1 to 35 days); absent while PITR is off." + pitrNote + backgroundNote,
		tableLabels, "seconds", "DynamoDB DescribeContinuousBackups: PointInTimeRecoveryDescription.RecoveryPeriodInDays × 86400"},

	{AccountProvisionedUtilization, Gauge,
		"Provisioned capacity of every provisioned table and GSI of the account in the region over the account-level quota (dynamodb_quota_account_max_capacity_units), as a ratio, by dimension (read or write): AWS's own figure, exact whatever tables the exporter monitors; UpdateTable and auto-scaling cannot pass 1. Latest 1-minute Maximum, polled on the slow tier." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelDimension}, "ratio", "CloudWatch AWS/DynamoDB AccountProvisionedReadCapacityUtilization, AccountProvisionedWriteCapacityUtilization (Maximum, no dimensions) / 100"},

	// DescribeLimits, read once an hour per account and region (limitsNote).
	{QuotaAccountMaxCapacityUnits, Gauge,
		"Account-level quota on provisioned capacity in the region: the most read or write capacity units (dimension) all provisioned tables and their global secondary indexes may have together; on-demand tables do not count. The account's provisioned share of it is dynamodb_account_provisioned_capacity_utilization_ratio. Absent until DescribeLimits has answered (dynamodb:DescribeLimits denied: see dynamodb_exporter_aws_request_errors_total)." + limitsNote + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelDimension}, "capacity units per second", "DynamoDB DescribeLimits: AccountMaxReadCapacityUnits, AccountMaxWriteCapacityUnits"},
	{QuotaTableMaxCapacityUnits, Gauge,
		"Table-level quota in the region: the most read or write capacity units (dimension) any one provisioned table or global secondary index may have, and the most request units per second an on-demand table or index can reach. Auto-scaling cannot scale a table above it. Absent until DescribeLimits has answered." + limitsNote + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelDimension}, "capacity units per second", "DynamoDB DescribeLimits: TableMaxReadCapacityUnits, TableMaxWriteCapacityUnits"},

	// Application Auto Scaling.
	{AutoScalingMaxOverTableQuota, Gauge,
		"Auto-scaling maximum of the table or index divided by the table-level quota (dynamodb_quota_table_max_capacity_units), present only while above 1: the quota, not the configured maximum, caps how far auto-scaling can go, and UpdateTable above it is refused (LimitExceededException). Absent while within the quota or while the quota is unknown." + backgroundNote,
		scalingLabels, "ratio", "Application Auto Scaling DescribeScalableTargets: MaxCapacity / DynamoDB DescribeLimits: TableMax*CapacityUnits"},
	{AutoScalingMinCapacityUnits, Gauge,
		"Minimum capacity of the auto-scaling target; dimension is read or write." + backgroundNote,
		scalingLabels, "capacity units per second", "Application Auto Scaling DescribeScalableTargets: MinCapacity"},
	{AutoScalingMaxCapacityUnits, Gauge,
		"Maximum capacity of the auto-scaling target; dimension is read or write." + backgroundNote,
		scalingLabels, "capacity units per second", "Application Auto Scaling DescribeScalableTargets: MaxCapacity"},
	{AutoScalingTargetUtilization, Gauge,
		"Target utilization of the target-tracking policy, as a ratio (0.7 for 70%)." + backgroundNote,
		scalingLabels, "ratio", "Application Auto Scaling DescribeScalingPolicies: TargetValue / 100"},
	{AutoScalingScaleInCooldown, Gauge,
		"Scale-in cooldown of the target-tracking policy." + backgroundNote,
		scalingLabels, "seconds", "Application Auto Scaling DescribeScalingPolicies: ScaleInCooldown"},
	{AutoScalingScaleOutCooldown, Gauge,
		"Scale-out cooldown of the target-tracking policy." + backgroundNote,
		scalingLabels, "seconds", "Application Auto Scaling DescribeScalingPolicies: ScaleOutCooldown"},
	{AutoScalingScaleInDisabled, Gauge,
		"1 if the target-tracking policy never scales in, else 0." + backgroundNote,
		scalingLabels, "boolean", "Application Auto Scaling DescribeScalingPolicies: DisableScaleIn"},
	{AutoScalingScheduledActions, Gauge,
		"Number of Application Auto Scaling scheduled actions on the table's or index's scalable target (dimension read or write): each sets the target's minimum and/or maximum at the times its schedule names, and the capacity what-if simulates them. Absent when the dimension has none, and absent everywhere while the exporter cannot read them (application-autoscaling:DescribeScheduledActions denied: see dynamodb_exporter_aws_request_errors_total; the scaling policies are still read and used)." + backgroundNote,
		scalingLabels, "actions", "Application Auto Scaling DescribeScheduledActions: count per resource and scalable dimension"},

	// TTL health sampler: Scan of random parallel-scan segments.
	{TTLSampledItems, Gauge,
		"Items read by the last completed TTL sample of the table, by class: live, expired (past, still present), missing (no TTL attribute), wrong_type, milliseconds, microseconds, nanoseconds, far_future, too_old, invalid_number." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelClass}, "items", "DynamoDB Scan (sampled segments), classified by the exporter"},
	{TTLExpiredItemsEstimate, Gauge,
		"Estimated items whose TTL has passed but that DynamoDB has not deleted yet (sample fraction times the table's item count)." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLExpiredItemsLowerBound, Gauge,
		"Lower bound of the 95% interval of the expired-but-not-deleted item estimate; the interval accounts for clustering by partition key." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLExpiredItemsUpperBound, Gauge,
		"Upper bound of the 95% interval of the expired-but-not-deleted item estimate." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLNeverExpiringItemsEstimate, Gauge,
		"Estimated items whose TTL value TTL will never act on: not a Number, in milliseconds, microseconds or nanoseconds, more than five years in the past, or unparsable." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLNeverExpiringItemsLowerBound, Gauge,
		"Lower bound of the 95% interval of the never-expiring item estimate." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLNeverExpiringItemsUpperBound, Gauge,
		"Upper bound of the 95% interval of the never-expiring item estimate." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLOldestExpiredItemTimestamp, Gauge,
		"TTL value (the expiry time, Unix seconds) of the oldest expired item the last sample saw; time() minus it is how late deletion runs; absent when the sample held no expired item." + backgroundNote,
		tableLabels, "seconds since epoch", "DynamoDB Scan sample"},
	{TTLExpiredStorageMonthlyCost, Gauge,
		"Storage cost in USD a month of the items whose TTL has passed but that DynamoDB has not deleted yet, in the table (index empty) and in each GSI: the expired-item estimate times the mean billable size of the expired items the sample read whole (their attributes as DynamoDB sizes them, plus 100 bytes of per-item overhead; in a GSI only the items carrying its key attributes, with its projection), at the list price per GB-month (2^30 bytes) of the table's class (built in for us-east-1 only; elsewhere set collectors.capacity.prices[].storage_gb_month). Absent without a storage price, a reported table class, or an expired item read whole while some are estimated; a GSI whose projection DescribeTable does not state has no series." + backgroundNote,
		indexLabels, "USD per month", "DynamoDB Scan sample (whole items), DescribeTable ItemCount, KeySchema, GSI projections and TableClassSummary; capacity package storage prices"},
	{TTLCandidateAttributeItemsRatio, Gauge,
		"Estimated share of the table's items that lack the TTL attribute but carry attribute, another top-level Number holding an epoch time (seconds, or milliseconds) from five years ago to 20 years ahead: the likely intended TTL attribute, so TTL never deletes these items. Looked for among the sampled items that lack the TTL attribute, however few (the collector's samples read whole items, at the same read cost as the keys alone); attribute is named only when at least half of the sampled items without the TTL attribute carry it, and not when it never holds a future time while its latest value is about as close to now as its latest values are to each other (a creation or update time tracking the clock, such as updated_at on items kept for good). Absent when no attribute qualifies." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelAttribute}, "ratio", "DynamoDB Scan sample (whole items), classified by the exporter"},
	{TTLCandidateExpiredItemsEstimate, Gauge,
		"Estimated items that lack the TTL attribute and whose candidate attribute holds a time already past (within five years): the backlog TTL would delete if it were enabled on that attribute, and never deletes as things are." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelAttribute}, "items", "DynamoDB Scan sample (whole items) and DescribeTable ItemCount"},
	{TTLCandidateExpiredItemsLowerBound, Gauge,
		"Lower bound of the 95% interval of the candidate attribute's expired-item estimate; the interval accounts for clustering by partition key." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelAttribute}, "items", "DynamoDB Scan sample (whole items) and DescribeTable ItemCount"},
	{TTLCandidateExpiredItemsUpperBound, Gauge,
		"Upper bound of the 95% interval of the candidate attribute's expired-item estimate." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelAttribute}, "items", "DynamoDB Scan sample (whole items) and DescribeTable ItemCount"},
	{TTLCandidateFutureItemsRatio, Gauge,
		"Share of the sampled items carrying the candidate attribute whose value lies in the future: above 0, a writer still writes expiries under that name; 0, every value has passed (a writer since fixed left them: they need a backfill, not a code fix)." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelAttribute}, "ratio", "DynamoDB Scan sample (whole items), classified by the exporter"},
	{TTLLiveItemRemainingLifetime, Histogram,
		"Remaining lifetime (TTL value minus now) of the live items the sampler has read since the exporter started; a retention that suddenly got shorter moves it down." + backgroundNote,
		tableLabels, "seconds", "DynamoDB Scan sample"},
	{TTLLatestLiveExpiryTimestamp, Gauge,
		"TTL value (the expiry time, Unix seconds) of the live item expiring last that the last sample read: with writes at a steady retention it advances with the clock; it stops while new items get a shorter retention than the old ones (a retention bug) or no new item is written; absent when the sample held no live item." + backgroundNote,
		tableLabels, "seconds since epoch", "DynamoDB Scan sample"},
	{TTLLiveItemsNearLatestExpiry, Gauge,
		"Live items the last sample read whose TTL value lies within `within` (1h, 1d) below the latest live expiry, that one included: the density of the newest long-lived items (how many sampled items a writer still writing at that retention adds per day), and, when most of the last day's sit in the last hour, an expiry rounded to a calendar boundary (every item of the day or month expiring at one time)." + backgroundNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWithin}, "items", "DynamoDB Scan sample"},
	{TTLForeseenExpiredItemsTotal, Counter,
		"Estimated items whose TTL time has passed since the exporter started watching the table, counted as it passes, among those an earlier sample saw live at least half the table's retention (the latest live expiry minus that sample's time), or a day, before they expired, and those the first sample after the exporter started saw live (written before it started): items ending the lifetime they were written with (a batch of tokens expiring as designed); an item written with a lifetime cut short to under a day (a retention bug) is never seen that early and never counted. Expiries more than 2 days ahead are not kept." + backgroundNote,
		tableLabels, "items", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLExpiryRateEstimate, Gauge,
		"Estimated rate at which the table's live items expire over the days ahead, in items per second: the live expiries the last sample read within the fewest whole days holding 100 of them (a writer's daily cycle averages out; within the span to the latest expiry when every one expires sooner), scaled to the table's items; within about 10% with 100 sampled items; when fewer than 30 expire within 30 days (items that live months), those few over 30 days, zero included (rough, but small whatever its error); absent when the sample read fewer than 30 live items. In steady state TTL deletes at this rate; a retention bug makes it delete well above it (items written too short-lived for any sample to see), a batch ending the lifetime it was written with briefly too (dynamodb_ttl_foreseen_expired_items_total tells it)." + backgroundNote,
		tableLabels, "items per second", "DynamoDB Scan sample and DescribeTable ItemCount"},
	{TTLSamplerConsumedReadUnitsTotal, Counter,
		"Read capacity units the TTL sampler's Scan calls consumed on the table, as DynamoDB reported them." + backgroundNote,
		tableLabels, "capacity units", "DynamoDB Scan ConsumedCapacity"},
	{TTLLastSampleTimestamp, Gauge,
		"Time the last TTL sample of the table completed, as Unix seconds." + backgroundNote,
		tableLabels, "seconds since epoch", "exporter"},
}

// exporterFamilies describe the exporter itself.
var exporterFamilies = []Family{
	{ExporterTTLSamplesTotal, Counter,
		"TTL samples attempted, by outcome: complete, partial (read budget ran out; the segments read form the sample), skipped_budget (account budget for the hour spent), skipped_unknown_size (DynamoDB reports no item count or size yet, as for up to six hours after a table is created or imported, and the table is larger than one sample) or error.",
		[]string{LabelAccount, LabelRegion, LabelOutcome}, "samples", "exporter"},
	{ExporterAWSRequestsTotal, Counter,
		"AWS API calls made by the exporter, by service and operation.",
		[]string{LabelAccount, LabelRegion, LabelService, LabelOperation}, "requests", "exporter"},
	{ExporterAWSRequestErrorsTotal, Counter,
		"AWS API calls made by the exporter that failed, by service, operation and AWS error code.",
		[]string{LabelAccount, LabelRegion, LabelService, LabelOperation, LabelErrorCode}, "requests", "exporter"},
	{ExporterCollectorDuration, Gauge,
		"Duration of the collector's last run.",
		[]string{LabelCollector}, "seconds", "exporter"},
	{ExporterCollectorLastSuccess, Gauge,
		"Time the collector last completed a run without any error for the account and region, as Unix seconds.",
		[]string{LabelCollector, LabelAccount, LabelRegion}, "seconds since epoch", "exporter"},
	{ExporterCollectorSuccess, Gauge,
		"1 if the collector's last run completed without any error for the account and region, else 0 (it keeps serving what it knew there).",
		[]string{LabelCollector, LabelAccount, LabelRegion}, "boolean", "exporter"},
	{ExporterCollectorErrorsTotal, Counter,
		"Errors met by the collector (a failed AWS call, a table that could not be read), counted one by one.",
		[]string{LabelCollector}, "errors", "exporter"},
	{ExporterCloudWatchMetricsTotal, Counter,
		"Metrics requested from CloudWatch GetMetricData, counted per API call: this drives the CloudWatch bill ($0.01 per 1,000 at list price).",
		[]string{LabelAccount, LabelRegion}, "metrics", "exporter"},
	{ExporterCloudWatchSeries, Gauge,
		"CloudWatch series in the last collection plan: queried (listed as recently active) or proven_zero (absent from ListMetrics with RecentlyActive=PT3H, so not requested).",
		[]string{LabelAccount, LabelRegion, "state"}, "series", "exporter"},
	{ExporterCloudWatchRevisionsTotal, Counter,
		"CloudWatch datapoints of a counter answered again with another value for a minute already counted (CloudWatch revises late minutes), by direction: up (the difference is added) or down (a counter cannot go down: the difference stays counted, see dynamodb_exporter_cloudwatch_unretracted_total).",
		[]string{LabelAccount, LabelRegion, "direction"}, "datapoints", "exporter"},
	{ExporterCloudWatchUnretractedTotal, Counter,
		"What counters over-count because CloudWatch revised a datapoint downward after it was counted, in the unit of the counter family named by metric (capacity units or events): subtract it from that family's increase for the exact figure.",
		[]string{LabelAccount, LabelRegion, "metric"}, "units or events", "exporter"},
	{ExporterTables, Gauge,
		"Tables monitored after the name and tag filters.",
		[]string{LabelAccount, LabelRegion}, "tables", "exporter"},
	{ExporterPITRUnreadTables, Gauge,
		"Monitored tables whose point-in-time recovery status has never been read: DescribeContinuousBackups is paced at 5 calls a second per account and region (half of AWS's 10), so after a start a large estate's tables are read over several runs (each run reads about 5 a second while it describes the tables); a table whose only read failed (throttled, a network error: dynamodb_exporter_aws_request_errors_total says why) counts too, a denied one does not (it is not retried within the hour). Their dynamodb_table_pitr_* families are absent meanwhile.",
		[]string{LabelAccount, LabelRegion}, "tables", "exporter"},
	{ExporterBuildInfo, Gauge,
		"A metric with a constant '1' value labeled by version, revision, branch, goversion from which dynamodb_exporter was built, and the goos and goarch for the build.",
		[]string{"version", "revision", "branch", "goversion", "goos", "goarch", "tags"}, "info", "exporter"},
}

var byName = func() map[string]Family {
	m := make(map[string]Family, len(families))
	for _, f := range families {
		if _, dup := m[f.Name]; dup {
			panic(fmt.Sprintf("catalogue: family %q defined twice", f.Name))
		}
		m[f.Name] = f
	}
	return m
}()

var descs = func() map[string]*prometheus.Desc {
	m := make(map[string]*prometheus.Desc, len(families))
	for _, f := range families {
		m[f.Name] = prometheus.NewDesc(f.Name, f.Help, f.Labels, nil)
	}
	return m
}()

// All returns every family, in catalogue order.
func All() []Family {
	out := make([]Family, len(families))
	copy(out, families)
	return out
}

// Lookup returns the family with the given name.
func Lookup(name string) (Family, bool) {
	f, ok := byName[name]
	return f, ok
}

// Desc returns the descriptor of a catalogued family. It panics on a name that
// is not in the catalogue: that is a programming error caught by every test.
func Desc(name string) *prometheus.Desc {
	d, ok := descs[name]
	if !ok {
		panic(fmt.Sprintf("catalogue: no family named %q", name))
	}
	return d
}

// ValueType returns the prometheus value type of a catalogued family.
func ValueType(name string) prometheus.ValueType {
	f, ok := byName[name]
	if !ok {
		panic(fmt.Sprintf("catalogue: no family named %q", name))
	}
	if f.Type == Counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}

// StandardPrefixes are the name prefixes of the standard families the
// client library adds (Go runtime, process, promhttp handler). They are not
// part of the catalogue and are documented as such.
var StandardPrefixes = []string{"go_", "process_", "promhttp_"}

// IsStandard reports whether name is one of the client library's standard families.
func IsStandard(name string) bool {
	for _, p := range StandardPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Names returns the names of every family, sorted.
func Names() []string {
	out := make([]string, 0, len(families))
	for _, f := range families {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

// DescribeAll sends every catalogued descriptor to ch.
func DescribeAll(ch chan<- *prometheus.Desc) {
	for _, f := range families {
		ch <- descs[f.Name]
	}
}

// MustHistogram builds a constant histogram of a catalogued histogram
// family from cumulative bucket counts.
func MustHistogram(name string, count uint64, sum float64, buckets map[float64]uint64, labelValues ...string) prometheus.Metric {
	return prometheus.MustNewConstHistogram(Desc(name), count, sum, buckets, labelValues...)
}
