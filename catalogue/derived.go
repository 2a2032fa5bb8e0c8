package catalogue

// Labels of the derived families.
const (
	// LabelWindow is the time window a derived value covers: 1d, 7d, 30d, or
	// for baselines 1w, 4w, surge, pre_surge.
	LabelWindow = "window"
	// LabelMode is a billing mode: on_demand or provisioned.
	LabelMode = "mode"
)

// Names of the derived families.
const (
	CapacityReadWriteRatio       = "dynamodb_capacity_read_write_ratio"
	CapacityReadWriteDrift       = "dynamodb_capacity_read_write_drift_ratio"
	CapacityReadWriteWeeklyDrift = "dynamodb_capacity_read_write_weekly_drift_ratio"
	// CapacityReadWriteBaselineDrift is the 7-day ratio against the 3 weeks before it.
	CapacityReadWriteBaselineDrift = "dynamodb_capacity_read_write_baseline_drift_ratio"
	CapacityPeakToAverage          = "dynamodb_capacity_peak_to_average_ratio"
	CapacityBaselineUnits          = "dynamodb_capacity_baseline_consumed_units"
	CapacitySurgeRetention         = "dynamodb_capacity_surge_retention_ratio"
	CapacitySurgePeakTimestamp     = "dynamodb_capacity_surge_peak_timestamp_seconds"
	CapacityCostDollars            = "dynamodb_capacity_cost_dollars"
	CapacityMonthlySwitchSaving    = "dynamodb_capacity_monthly_switch_saving_dollars"
	CapacityProvisionedSaving      = "dynamodb_capacity_monthly_provisioned_saving_dollars"
	CapacitySimulatedThrottled     = "dynamodb_capacity_simulated_throttled_units"
	CapacityTraceSeconds           = "dynamodb_capacity_cost_trace_seconds"
	CapacityRecommendationInfo     = "dynamodb_capacity_recommendation_info"
	// Warm throughput against the history's peak (collectors.SuddenPeak).
	CapacitySuddenPeakUnits = "dynamodb_capacity_sudden_peak_units_per_second"
	// The history's previous peak (collectors.WarmFigures.Peak30d).
	CapacityPeakConsumedUnits = "dynamodb_capacity_peak_consumed_units_per_second"
	warmSource                = "DynamoDB DescribeTable WarmThroughput, ProvisionedThroughput, OnDemandThroughput, billing mode; CloudWatch consumed history (the highest minute of 7 days, the highest hour of days 8 to 30)"
	// How a table's or GSI's peaks are best served (collectors.PeakFigures).
	CapacityPeakAdviceInfo          = "dynamodb_capacity_peak_advice_info"
	CapacityPeakScheduleMinCapacity = "dynamodb_capacity_peak_schedule_min_capacity_units"
	CapacityPeakScheduleThrottled   = "dynamodb_capacity_peak_schedule_throttled_units"
	CapacityPeakScheduleMonthlyCost = "dynamodb_capacity_peak_schedule_monthly_cost_dollars"
	peakSource                      = "CloudWatch ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits, 1-minute Sums of the last 28 whole UTC days (capacity.PeakTracker); Application Auto Scaling policies and scheduled actions; capacity package simulation of target tracking"
	peakNote                        = " docs/capacity.md, \"Serving a peak, four ways\"."
	// Storage and the table class (capacity.CompareClasses).
	CapacityStorageMonthlyCost      = "dynamodb_capacity_storage_monthly_cost_dollars"
	CapacityClassMonthlyCost        = "dynamodb_capacity_class_monthly_cost_dollars"
	CapacityClassSwitchSaving       = "dynamodb_capacity_class_monthly_switch_saving_dollars"
	CapacityClassRecommendationInfo = "dynamodb_capacity_class_recommendation_info"
	// The cost a year or two ahead (capacity.FitTrend, capacity.Project).
	CapacityProjectedMonthlyCost = "dynamodb_capacity_projected_monthly_cost_dollars"
	CapacityTrafficGrowth        = "dynamodb_capacity_traffic_growth_yearly_ratio"
	projectionSource             = "CloudWatch consumed history (daily totals of the held history, the longest cost window's hourly Sums), Application Auto Scaling settings, DescribeTable provisioning; capacity package trend fit (capacity.FitTrend) and cost model (capacity.Project) with built-in or configured prices"
	projectionNote               = " The trend is the seasonal Kendall slope (Theil–Sen within each day of the week) of the logarithm of the daily consumed units (reads plus writes of the table and its GSIs, whole UTC days with traffic) with Sen's 99% interval; growth is applied only when that interval excludes zero (trend growing or declining), compound, to every hour of the window; a flat trend projects today's figures. Recomputed once a UTC day. docs/capacity.md, \"The cost a year or two ahead\"."
	// The diagnosis of the simulated throttling of a provisioned table's
	// own auto-scaling policy (capacity.DiagnoseTable).
	CapacityDiagnosisThrottled     = "dynamodb_capacity_diagnosis_throttled_units"
	CapacityDiagnosisSaturated     = "dynamodb_capacity_diagnosis_saturated_seconds"
	CapacityDiagnosisLastThrottled = "dynamodb_capacity_diagnosis_last_throttled_timestamp_seconds"
	CapacitySimulatedScalingEvents = "dynamodb_capacity_simulated_scaling_events_per_day"
	CapacitySimulatedUtilization   = "dynamodb_capacity_simulated_utilization_ratio"
	// The billing-mode history of a base table (its provisioned-capacity
	// series) and the judgement of its latest switch.
	CapacityModeSwitches         = "dynamodb_capacity_mode_switches"
	CapacityModeSwitchTimestamp  = "dynamodb_capacity_mode_switch_timestamp_seconds"
	CapacityModeSwitchDailyCost  = "dynamodb_capacity_mode_switch_daily_cost_dollars"
	CapacityModeSwitchCostChange = "dynamodb_capacity_mode_switch_cost_change_ratio"
	modeHistorySource            = "CloudWatch ProvisionedReadCapacityUnits / ProvisionedWriteCapacityUnits history of the base table, hourly Average (published only while the table is provisioned), over the last 21 days"
	modeCostSource               = "CloudWatch provisioned-capacity and consumed history of the base table; capacity package built-in or configured prices"
	modeNote                     = " Base table only: a GSI follows its table's billing mode, and its cost is not counted. An hour with a provisioned-capacity sample counts as provisioned, one without as on-demand; a switch is dated at the first whole hour in the new mode."
	capacityHistorySource        = "CloudWatch ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits history, Sum (1-minute for 15 days, 5-minute to 63 days, hourly beyond)"
	capacityCostSource           = "CloudWatch consumed history, Application Auto Scaling settings, DescribeTable provisioning; capacity package cost model and built-in or configured prices"
	derivedNote                  = " Derived by the exporter from CloudWatch history, refreshed every collectors.capacity.interval; absent when not computable."
	costNote                     = " Throughput only (storage: dynamodb_capacity_storage_monthly_cost_dollars, dynamodb_capacity_class_monthly_cost_dollars); backups, streams and data transfer are out of scope."
	storageSource                = "DynamoDB DescribeTable: TableSizeBytes, IndexSizeBytes, TableClassSummary; capacity package built-in or configured storage prices"
	classSource                  = "CloudWatch consumed history, Application Auto Scaling settings, DescribeTable sizes and TableClassSummary; capacity package cost model (capacity.CompareClasses) and built-in or configured prices"
	storageNote                  = " Storage at the list price per GB-month (2^30 bytes) of the table's class, built in for us-east-1 only (elsewhere set collectors.capacity.prices[].storage_gb_month: absent until then); the free tier (25 GB per account and region) is not deducted. DescribeTable refreshes sizes about every six hours."
	diagnosisSource              = "CloudWatch consumed history, Application Auto Scaling policy (target, min, max, cooldowns), DescribeTable billing mode; capacity package auto-scaling simulation (capacity.DiagnoseTable)"
	diagnosisScope               = " Only for a PROVISIONED table, per table (index empty) or GSI, for a dimension its own auto-scaling policy scales; the simulation runs the policy the table has now over the whole window, also before a change of the policy within it; the window covers what dynamodb_capacity_cost_trace_seconds says (less for a younger table); a minute without a datapoint counts as no traffic."
)

var (
	derivedIndexWindowLabels = []string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelWindow}
	derivedTableWindowLabels = []string{LabelAccount, LabelRegion, LabelTable, LabelWindow}
)

// derivedFamilies are computed by the exporter from CloudWatch history:
// read/write-ratio drift, peak-to-average, surge retention and the
// capacity-mode cost what-if.
var derivedFamilies = []Family{
	{CapacityReadWriteRatio, Gauge,
		"Consumed read capacity units divided by consumed write capacity units over the window (1d or the rolling 7d); index is empty for the base table; absent without writes." + derivedNote,
		derivedIndexWindowLabels, "ratio", capacityHistorySource},
	{CapacityReadWriteDrift, Gauge,
		"Drift of the read/write ratio: the 1-day ratio divided by the rolling 7-day ratio, minus 1; review the capacity mode beyond plus or minus 0.3." + derivedNote,
		indexLabels, "ratio", capacityHistorySource},
	{CapacityReadWriteWeeklyDrift, Gauge,
		"Drift of the read/write ratio from the same day a week earlier: the 1-day ratio divided by the 1-day ratio of the day that ended 7 days ago, minus 1; a weekly cycle (a weekend with another read/write mix) keeps it near 0 while the 1-day against 7-day drift swings every weekend; absent with less than 8 days of history." + derivedNote,
		indexLabels, "ratio", capacityHistorySource},
	{CapacityReadWriteBaselineDrift, Gauge,
		"Drift of the 7-day read/write ratio from its 4-week baseline: the ratio over the last 7 days divided by the ratio of the 3 weeks before them, minus 1; a mix change shows here for three weeks (review capacity at ±0.3); absent with less than 28 days of history." + derivedNote,
		indexLabels, "ratio", capacityHistorySource},
	{CapacityPeakToAverage, Gauge,
		"Peak-to-average ratio of consumed capacity over the window (7d), by dimension (read or write): the collectors.capacity.peak_percentile (default 99th) percentile of 1-minute rates divided by their mean." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, LabelWindow}, "ratio", capacityHistorySource},
	{CapacityBaselineUnits, Gauge,
		"Baseline traffic, read plus write capacity units per second, as the median of hourly rates: window 1w (last whole week), 4w (last 4 weeks), surge (the surge week) or pre_surge (up to 4 weeks before it)." + derivedNote,
		derivedIndexWindowLabels, "capacity units per second", capacityHistorySource},
	{CapacitySurgeRetention, Gauge,
		"Current 4-week baseline divided by the baseline of the last surge week (a week at least collectors.capacity.surge_factor times the weeks before it); 0.7 or more four to eight weeks after the surge means a permanent shift; absent when the history shows no surge." + derivedNote,
		indexLabels, "ratio", capacityHistorySource},
	{CapacitySurgePeakTimestamp, Gauge,
		"Start of the busiest hour of the last surge week, as Unix seconds; time() minus it is the time since the peak; absent when the history shows no surge." + derivedNote,
		indexLabels, "seconds since epoch", capacityHistorySource},
	{CapacityCostDollars, Gauge,
		"Throughput cost in USD of the table and its GSIs over the window (7d or 30d) of actual consumption, in each billing mode (on_demand or provisioned, the latter simulating target-tracking auto-scaling)." + costNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWindow, LabelMode}, "USD", capacityCostSource},
	{CapacityMonthlySwitchSaving, Gauge,
		"Monthly saving in USD of switching the table to the other billing mode, from the window's consumption scaled to 730 hours; negative when switching costs more." + costNote + derivedNote,
		derivedTableWindowLabels, "USD per month", capacityCostSource},
	{CapacityProvisionedSaving, Gauge,
		"Monthly on-demand cost minus monthly provisioned cost in USD, from the window's consumption scaled to 730 hours, whatever the table's current mode: positive when provisioned with auto-scaling is cheaper, negative when on-demand is; unlike the switch saving its sign does not change when the table switches mode. On an on-demand table the provisioned side simulates the auto-scaling policy's target with default bounds." + costNote + derivedNote,
		derivedTableWindowLabels, "USD per month", capacityCostSource},
	{CapacitySimulatedThrottled, Gauge,
		"Request units the provisioned auto-scaling simulation throttles over the window, by dimension, counting the scale-out delay (collectors.capacity.scale_out_delay) and burst capacity." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWindow, LabelDimension}, "request units", capacityCostSource},
	{CapacityTraceSeconds, Gauge,
		"Length of consumption history the window's cost what-if used; shorter than the window for a table younger than it." + derivedNote,
		derivedTableWindowLabels, "seconds", capacityCostSource},
	{CapacityRecommendationInfo, Gauge,
		"Billing-mode recommendation from the window's cost what-if as labels; the value is always 1. recommendation is keep, switch_to_on_demand or switch_to_provisioned; reason_code is cheaper, saving_below_minimum, simulated_throttling or traffic_below_minimum." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWindow, "recommendation", "reason_code"}, "info", capacityCostSource},
	{CapacitySuddenPeakUnits, Gauge,
		"Largest per-second demand (dimension: read or write units) the table (index empty) or GSI can take today all at once without throttling, the burst capacity of a provisioned table aside: provisioned, its provisioned capacity; on-demand, the largest of the new-table value (12,000 read, 4,000 write units), twice the highest per-second demand of the last 30 days (on-demand absorbs up to twice its previous peak at once) and its warm throughput while ACTIVE (ignored while UPDATING), capped by its on-demand maximum. The account's per-table quota (40,000 by default, adjustable) is not applied; hot keys throttle a partition sooner. Compare with dynamodb_warm_throughput_units_per_second: a peak beyond both needs pre-warming (UpdateTable WarmThroughput)." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension}, "units per second", warmSource},
	{CapacityPeakConsumedUnits, Gauge,
		"Highest per-second consumed capacity (dimension: read or write units) of the table (index empty) or GSI over the last 30 days: the highest minute of the last 7 days and the highest hourly mean of the 23 days before them (a lower bound of their minutes). This is the \"previous peak\" an on-demand table absorbs twice of at once (dynamodb_capacity_sudden_peak_units_per_second); DynamoDBOnDemandFlashCrowd compares live demand with it, from the exporter's first capacity cycle." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension}, "units per second", capacityHistorySource},
	{CapacityPeakAdviceInfo, Gauge,
		"How the peaks of the table (index empty) or GSI are best served, per dimension (read or write), as labels; the value is always 1. peak_kind is recurring (the peak starts in the same hour of the UTC day on at least 5 of the last 7 days, or of one weekday on at least 3 of the last 4 weeks), ramping (not recurring, and rising from half to full over more minutes than target tracking reacts: 2 minutes above target plus the scale-out delay), flash (faster than that), steady (no day's peak reaches twice its median hourly rate and 1 unit/s above it) or unknown (fewer than 7 whole days of minutes held). recommendation is add_scheduled_scaling (reason_code recurring_peak: the proposed scheduled actions avoid throttled units in the what-if), target_tracking (recurring_peak_served: the policy and its scheduled actions already serve it; ramping_peak), pre_warm_before_events (flash_peak) or none (steady, short_history, recurring_peak_unjudged: the what-if of a new proposal has run less than a day, recurring_peak_no_policy: fixed provisioned capacity)." + peakNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, "peak_kind", "recommendation", "reason_code"}, "info", peakSource},
	{CapacityPeakScheduleMinCapacity, Gauge,
		"MinCapacity the proposed scheduled action raises the dimension (read or write) of the table (index empty) or GSI to before its recurring peak: the highest peak of the recurring days over the policy's target utilization, rounded up, at most its maximum; absent without a recurring peak on a dimension with an auto-scaling policy (on-demand tables: the default policy). The report gives the exact put-scheduled-action commands." + peakNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension}, "capacity units", peakSource},
	{CapacityPeakScheduleThrottled, Gauge,
		"Request units the simulation of the dimension's auto-scaling policy throttles over the what-if's minutes (the last 7 days at most; since the proposal stands when it is newer), without (schedule=\"without\": the policy and its existing scheduled actions) and with the proposed scheduled actions (schedule=\"with\"); absent without a proposal." + peakNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, "schedule"}, "request units", peakSource},
	{CapacityPeakScheduleMonthlyCost, Gauge,
		"Provisioned cost in USD a month of the dimension without and with the proposed scheduled actions (schedule label as dynamodb_capacity_peak_schedule_throttled_units), from the simulated capacity over the what-if's minutes scaled to 730 hours; absent without a proposal or a price." + peakNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, "schedule"}, "USD per month", peakSource},
	{CapacityStorageMonthlyCost, Gauge,
		"Storage cost in USD a month of the table (index empty) or GSI at its current size and the price of the table's class (every index uses its table's class); absent when DescribeTable reports no class or size, or without a storage price." + storageNote + derivedNote,
		indexLabels, "USD per month", storageSource},
	{CapacityClassMonthlyCost, Gauge,
		"Monthly cost in USD of the table and its GSIs in each table class (table_class: STANDARD or STANDARD_INFREQUENT_ACCESS, whichever the table has), by component: throughput (the window's consumption in the table's current billing mode, priced in that class, scaled to 730 hours) or storage (today's size in that class). Only the longest cost window computed (window: 30d, or 7d for a younger table)." + storageNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWindow, "table_class", "component"}, "USD per month", classSource},
	{CapacityClassSwitchSaving, Gauge,
		"Monthly saving in USD of switching the table to the other table class: its monthly cost (throughput plus storage) in its class minus that in the other; negative when switching costs more. Standard-IA is cheaper exactly when storage exceeds (t-1)/((t-1)+(1-s)) of the Standard cost, s and t its storage and throughput prices over Standard's: 5/17 (29.4%) at the list prices, which AWS's guide rounds to storage above 50% of the throughput cost." + storageNote + derivedNote,
		derivedTableWindowLabels, "USD per month", classSource},
	{CapacityClassRecommendationInfo, Gauge,
		"Table-class recommendation as labels; the value is always 1. recommendation is keep, switch_to_standard_ia or switch_to_standard with reason_code cheaper, saving_below_minimum (the other class saves less than collectors.capacity.min_monthly_saving) or recent_class_change (the class changed within 30 days: AWS allows two class updates in a trailing 30 days and DescribeTable shows the latest only); or none, with window empty, when no comparison is made, reason_code class_not_reported (DescribeTable has no TableClassSummary), unknown_class, no_price or size_not_reported: count them by reason_code. The switch is online." + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelWindow, "recommendation", "reason_code"}, "info", classSource},
	{CapacityProjectedMonthlyCost, Gauge,
		"Projected monthly throughput cost in USD of the table and its GSIs in each billing mode (mode: on_demand or provisioned, the latter simulating target-tracking auto-scaling as dynamodb_capacity_cost_dollars does) at the horizon (12mo or 24mo): the longest cost window's figures (30d, or 7d for a younger table) with the traffic grown by the trend, priced by the same cost model at the prices of the table's class. Absent with fewer than 14 days with traffic (dynamodb_capacity_traffic_growth_yearly_ratio says history_too_short) or without prices." + projectionNote + costNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "horizon", LabelMode}, "USD per month", projectionSource},
	{CapacityTrafficGrowth, Gauge,
		"Growth a year of the table's consumed units that the cost projection applies, as a ratio minus 1 (0.25: 25% more traffic in 12 months), by trend: growing or declining (the fitted growth), flat (0: the interval holds zero, no growth claimed from noise) or history_too_short (0: fewer than 14 whole days with traffic, no projection). The fitted estimate and its interval, and the month the cheaper mode changes within 24 months, are in capacity report." + projectionNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "trend"}, "ratio", projectionSource},
	{CapacityDiagnosisThrottled, Gauge,
		"Request units the simulation of the table's current auto-scaling policy throttles over the window (7d or 30d), by dimension and cause: at_max, in minutes when capacity was held at the auto-scaling maximum below what the policy wanted (the maximum is too low); target, only for a target utilization above 70%, the units outside those minutes that the same policy at a 70% target does not throttle in the same minute (the target leaves too little headroom); reaction, the rest, demand rising faster than auto-scaling reacts (2 minutes above target, then collectors.capacity.scale_out_delay) even at a reasonable target. A cause without throttled units has no series: absent means none. The history is consumed capacity, already capped by the table's real throttling: demand the table refused is not in it, so a policy that served its own history throttles little or nothing here (its real throttling is in dynamodb_throttle_events_total; dynamodb_capacity_diagnosis_saturated_seconds is the signal that survives the cap)." + diagnosisScope + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelWindow, LabelDimension, LabelCause}, "request units", diagnosisSource},
	{CapacityDiagnosisSaturated, Gauge,
		"Time, in seconds (whole minutes times 60: the base unit of a duration), of the minutes of the window (7d or 30d) whose consumed demand reached the capacity the simulation of the table's current auto-scaling policy had in effect (at or above it once the simulated burst held less than a minute of that capacity: demand the burst still covers was served; every throttled minute too), by dimension and cause: at_max, the minute's capacity was held at the auto-scaling maximum below what the policy wanted; target, only for a target utilization above 70%, the same minute is not saturated under the same policy at a 70% target; reaction, the rest, saturated even at a reasonable target. Why: the history is consumed capacity, what the table served; on a table that really throttled the refused demand is missing, so the simulation of the same policy over it throttles almost nothing (dynamodb_capacity_diagnosis_throttled_units stays empty exactly where the failure is), but the served demand shows up pinned at the capacity: saturated minutes are where a capped history shows its throttling. A cause without saturated minutes has no series: absent means none; divide by 60 for the minutes." + diagnosisScope + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelWindow, LabelDimension, LabelCause}, "seconds", diagnosisSource},
	{CapacityDiagnosisLastThrottled, Gauge,
		"Start, as Unix seconds, of the latest simulated minute of the window with throttled units or a saturated minute of the cause (at_max, target or reaction; see dynamodb_capacity_diagnosis_throttled_units and dynamodb_capacity_diagnosis_saturated_seconds), emitted with either; time() minus it is how long ago the evidence is." + diagnosisScope + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelWindow, LabelDimension, LabelCause}, "seconds since epoch", diagnosisSource},
	{CapacitySimulatedScalingEvents, Gauge,
		"Scaling decisions (scale-outs plus scale-ins) per day of the simulation of the table's current auto-scaling policy over the window (7d); many decisions while dynamodb_capacity_simulated_utilization_ratio stays low mean a policy too sensitive for the traffic." + diagnosisScope + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, LabelWindow}, "decisions per day", diagnosisSource},
	{CapacityModeSwitches, Gauge,
		"Billing-mode switches of the table seen in its provisioned-capacity history within the window (1d, 3d, 7d or 14d, ending at the last whole hour held), by direction (to: on_demand or provisioned). Unlike dynamodb_last_switch_to_on_demand_timestamp_seconds (DescribeTable keeps only the latest switch to on-demand), it counts the switches made before the exporter started, both ways. A direction without a switch in the window has no series: absent means none." + modeNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "to", LabelWindow}, "switches", modeHistorySource},
	{CapacityModeSwitchTimestamp, Gauge,
		"Time, as Unix seconds, of the latest billing-mode switch at least a day and at most 14 days old (the one judged by dynamodb_capacity_mode_switch_cost_change_ratio), by direction (to: on_demand or provisioned); absent when there is none." + modeNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "to"}, "seconds since epoch", modeHistorySource},
	{CapacityModeSwitchDailyCost, Gauge,
		"Throughput cost per day actually paid around the switch of dynamodb_capacity_mode_switch_timestamp_seconds, by period: before (the 7 days before it, fewer when the history is shorter) or since (from it to the last whole hour held); provisioned hours at the provisioned capacity paid, on-demand hours at the on-demand price of the units consumed." + modeNote + costNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, "period"}, "USD per day", modeCostSource},
	{CapacityModeSwitchCostChange, Gauge,
		"Cost per unit of traffic since the switch of dynamodb_capacity_mode_switch_timestamp_seconds over the cost per unit of traffic in the 7 days before it, minus 1: the cost paid divided by the on-demand price of the units consumed, in each period, so that a change of traffic is not taken for a change of price. Positive when the switch made the table dearer for the same traffic (0.2: 20% dearer); absent without a judged switch or without traffic on either side." + modeNote + costNote + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable}, "ratio", modeCostSource},
	{CapacitySimulatedUtilization, Gauge,
		"Consumed capacity units over the simulated provisioned capacity of the table's current auto-scaling policy, over the window (7d): the utilization the policy achieves for the traffic, to read against its target." + diagnosisScope + derivedNote,
		[]string{LabelAccount, LabelRegion, LabelTable, LabelIndex, LabelDimension, LabelWindow}, "ratio", diagnosisSource},
}
