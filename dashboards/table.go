package dashboards

import (
	"fmt"

	c "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// capacityPanel draws consumed against provisioned capacity of one
// dimension, with the auto-scaling target and maximum as lines.
func capacityPanel(dim, units, consumed, provisioned string) panel {
	return panel{kind: timeSeries, title: fmt.Sprintf("%s capacity (%s/s): consumed, provisioned, auto-scaling target and max", title(dim), units), unit: unitPerSecond,
		description: fmt.Sprintf("Consumed %[1]s capacity units (%[2]s) per second (average over the rate window) against provisioned capacity. "+
			"The target line is provisioned capacity times the auto-scaling target utilization: consumed above it for 2 minutes makes auto-scaling scale out. "+
			"The max line is the auto-scaling maximum: provisioned capacity cannot go above it, so consumed pressing on max means the maximum is too low. "+
			"On-demand tables show consumed only.", dim, units),
		queries: []query{
			{expr: fmt.Sprintf("sum by (%s) (%s)", byTI, sel(consumed, selTI)), legend: "consumed {{table}} {{index}}"},
			{expr: sel(provisioned, selTI), legend: "provisioned {{table}} {{index}}"},
			{expr: fmt.Sprintf("%s\n  * on (%s)\n%s", sel(provisioned, selTI), byTI, sel(c.AutoScalingTargetUtilization, selTI, `dimension="`+dim+`"`)),
				legend: "auto-scaling target {{table}} {{index}}"},
			{expr: sel(c.AutoScalingMaxCapacityUnits, selTI, `dimension="`+dim+`"`), legend: "auto-scaling max {{table}} {{index}}"},
		}}
}

// scheduledPanel is the title of the table dashboard's panel of scheduled
// actions.
const scheduledPanel = "Auto-scaling scheduled actions"

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func tableBoard() board {
	latencyBase := fmt.Sprintf("quantile_over_time(0.5, %s[%s] offset 1h)",
		sel(c.SuccessfulRequestLatencyP99, selT), param("DynamoDBLatencyAboveBaseline", "latency_baseline_window"))
	drift := number("DynamoDBReadWriteRatioDrift", "max_drift")
	ratio7d := sel(c.CapacityReadWriteRatio, selTI, `window="7d"`)
	capacity := []panel{
		capacityPanel("read", "RCU", consumedReadRate, c.ProvisionedReadCapacityUnits),
		capacityPanel("write", "WCU", consumedWriteRate, c.ProvisionedWriteCapacityUnits),
		{kind: timeSeries, title: "Throttle events by cause", unit: unitPerSec,
			lines: []float64{number("DynamoDBProvisionedThroughputThrottling", "min_throttles_per_second")},
			description: "Throttle events per second (average over the rate window) by kind (read, write) and cause. provisioned_throughput: capacity or auto-scaling " +
				"did not follow; key_range_throughput: a hot partition (3,000 RCU or 1,000 WCU per partition), which no mode fixes; max_on_demand_throughput: the " +
				"table's on-demand maximum; account_limit: the account's quota. The dashed line is the pack's min_throttles_per_second.",
			queries: []query{{expr: fmt.Sprintf("sum by (%s, kind, cause) (%s)", byTI, sel(throttleRate, selTI)), legend: "{{index}} {{kind}} {{cause}}"}}},
		{kind: timeSeries, title: "Utilization against the auto-scaling target", unit: unitPercent,
			lines: []float64{number("DynamoDBTargetUtilizationTooHigh", "max_target_utilization")},
			description: "Consumed over provisioned capacity, read and write, with the auto-scaling target utilization. Utilization hovers near the target when " +
				"auto-scaling works; above it for long, scaling lags or is capped by max. The dashed line is the pack's max_target_utilization: " +
				"a target above it leaves no room for scaling delay (keep about 70%).",
			queries: []query{
				{expr: sel(readUtilization, selTI), legend: "read {{index}}"},
				{expr: sel(writeUtilization, selTI), legend: "write {{index}}"},
				{expr: sel(c.AutoScalingTargetUtilization, selTI), legend: "target {{dimension}} {{index}}"},
			}},
		{kind: timeSeries, title: scheduledPanel, unit: unitCount, width: 24, height: 6,
			description: "Number of Application Auto Scaling scheduled actions on each scalable target of the table and its indexes (read, write): each sets " +
				"the target's minimum and/or maximum at the times its schedule names (for instance cron(15 19 * * ? *) raising the write minimum before an " +
				"evening peak, and a later action lowering it); target tracking then acts within the new bounds, and the cost what-if includes them. " +
				"No line: no scheduled action, or application-autoscaling:DescribeScheduledActions denied (counted in the exporter's AWS request errors).",
			queries: []query{{expr: sel(c.AutoScalingScheduledActions, selTI), legend: "{{dimension}} {{index}}"}}},
		{kind: tablePanel, title: "How the peaks are best served", unit: unitCount, merge: true, width: 24,
			description: "Per table or GSI and dimension, the kind of its peaks over the last 7 whole UTC days (recurring: the same hour on at least 5 days; " +
				"ramping: slower than target tracking reacts; flash: faster; steady; unknown: under 7 days of minutes) and what serves them: " +
				"add_scheduled_scaling with the proposed MinCapacity (the report gives the put-scheduled-action commands), target_tracking, " +
				"pre_warm_before_events, or none. The what-if columns are the throttled units of the policy's simulation without and with the proposed " +
				"actions (a history capped by real throttling shows little: the advice also counts its minutes at capacity; docs/capacity.md, \"Serving a peak, four ways\").",
			queries: []query{
				{expr: fmt.Sprintf("max by (%s, dimension, peak_kind, recommendation, reason_code) (%s)", byTI, sel(c.CapacityPeakAdviceInfo, selTI)), instant: true, column: "-", unit: unitInfo},
				{expr: fmt.Sprintf("max by (%s, dimension) (%s)", byTI, sel(c.CapacityPeakScheduleMinCapacity, selTI)), instant: true, column: "Proposed MinCapacity"},
				{expr: fmt.Sprintf("max by (%s, dimension) (%s)", byTI, sel(c.CapacityPeakScheduleThrottled, selTI, `schedule="without"`)), instant: true, column: "Throttled units without"},
				{expr: fmt.Sprintf("max by (%s, dimension) (%s)", byTI, sel(c.CapacityPeakScheduleThrottled, selTI, `schedule="with"`)), instant: true, column: "Throttled units with"},
			}},
		{kind: timeSeries, title: "Sudden peak taken without throttling, warm throughput, previous peak and demand (units/s)", unit: unitPerSecond, width: 24,
			description: "The largest per-second demand the table or GSI takes all at once without throttling today (sudden peak): provisioned, its provisioned " +
				"capacity; on-demand, the largest of the new-table 12,000 read / 4,000 write units, twice the highest per-second demand of the last 30 days " +
				"and its warm throughput while ACTIVE, capped by its on-demand maximum. Warm throughput is what DescribeTable reports (it grows with use and " +
				"never falls; no line in older API answers). The previous peak is the highest per-second consumed of the last 30 days (on-demand takes twice it at once), and consumed demand below for comparison. A planned event above the sudden peak needs pre-warming " +
				"(UpdateTable WarmThroughput, charged; runbook DynamoDBOnDemandFlashCrowd, Pre-warming).",
			queries: []query{
				{expr: sel(c.CapacitySuddenPeakUnits, selTI), legend: "sudden peak {{dimension}} {{index}}"},
				{expr: sel(c.WarmThroughputUnits, selTI), legend: "warm {{dimension}} {{index}} ({{status}})"},
				{expr: sel(c.CapacityPeakConsumedUnits, selTI), legend: "previous peak {{dimension}} {{index}}"},
				{expr: fmt.Sprintf("sum by (%s) (%s)", byTI, sel(consumedReadRate, selTI)), legend: "consumed read {{index}}"},
				{expr: fmt.Sprintf("sum by (%s) (%s)", byTI, sel(consumedWriteRate, selTI)), legend: "consumed write {{index}}"},
			}},
	}
	builds := "[$__rate_interval]"
	capacity = append(capacity,
		panel{kind: timeSeries, title: "Index build (backfill): progress", unit: unitPercent,
			description: "Progress of the build of each global secondary index being added to the table (CloudWatch OnlineIndexPercentageProgress), " +
				"present only while DescribeTable reports the index CREATING: the exporter asks CloudWatch for it only then. A build slowed by throttling " +
				"climbs slowly (next panel); the line ends when the index is ACTIVE.",
			queries: []query{{expr: sel(c.GSIBackfillProgress, selTI), legend: "{{index}}"}}},
		panel{kind: timeSeries, title: "Index build (backfill): write units consumed and throttle events per second", unit: unitPerSec,
			lines: []float64{number("DynamoDBGSIBackfillThrottling", "min_throttles_per_second")},
			description: "Write capacity units the build consumes and its write throttle events, per second (CloudWatch OnlineIndexConsumedWriteCapacity and " +
				"OnlineIndexThrottleEvents): the build and the table's writes share the new index's write capacity, so a build that throttles holds back " +
				"the table's writes too (alert DynamoDBGSIBackfillThrottling; the dashed line is its min_throttles_per_second). Present only while an index is built.",
			queries: []query{
				{expr: fmt.Sprintf("rate(%s%s)", sel(c.GSIBackfillConsumedWriteUnitsTotal, selTI), builds), legend: "consumed {{index}}"},
				{expr: fmt.Sprintf("rate(%s%s)", sel(c.GSIBackfillThrottleEventsTotal, selTI), builds), legend: "throttled {{index}}"},
			}},
	)
	latency := []panel{
		{kind: timeSeries, title: "p99 latency against its own baseline", unit: unitSeconds, width: 24,
			lines: []float64{number("DynamoDBLatencyAboveBaseline", "min_latency_seconds")},
			description: fmt.Sprintf("Server-side p99 latency of successful requests by operation (last complete CloudWatch minute), its baseline "+
				"(median p99 over %s ending an hour ago) and the alert level, %s times the baseline. p99 above the alert level and above the dashed "+
				"line (min_latency_seconds) for 15 minutes raises DynamoDBLatencyAboveBaseline: on an on-demand table a hot partition shows here before it throttles. "+
				"Client-side retries and network are not in it.",
				param("DynamoDBLatencyAboveBaseline", "latency_baseline_window"), param("DynamoDBLatencyAboveBaseline", "latency_factor")),
			queries: []query{
				{expr: sel(c.SuccessfulRequestLatencyP99, selT), legend: "p99 {{operation}}"},
				{expr: latencyBase, legend: "baseline {{operation}}"},
				{expr: fmt.Sprintf("%s * %s", param("DynamoDBLatencyAboveBaseline", "latency_factor"), latencyBase), legend: "alert level {{operation}}"},
			}},
		{kind: timeSeries, title: "Global table: replication latency to each receiving region", unit: unitSeconds, width: 24,
			description: "Time a write made to this region's replica takes to appear in the replica of each receiving region (CloudWatch ReplicationLatency, " +
				"Average, polled every 10 minutes), for a global table; no line for a table of one region. It should be fairly constant; a rising line means " +
				"the receiving replica falls behind: check its write capacity (every write is a replicated write there) and whether its region is degraded " +
				"(docs/global-tables.md, Runbook).",
			queries: []query{{expr: sel(c.ReplicationLatency, selT), legend: "to {{receiving_region}}"}}},
	}
	shape := []panel{
		{kind: timeSeries, title: "Read/write ratio: 1 day against 7 days, with the review band", unit: unitRatio,
			description: fmt.Sprintf("Consumed read units over consumed write units over the last day and the rolling 7 days, with the band of plus or minus %.0f%% "+
				"around the 7-day value. The 1-day ratio leaving the band means the workload changed (a new report, push or query): review the capacity mode.", drift*100),
			queries: []query{
				{expr: sel(c.CapacityReadWriteRatio, selTI, `window="1d"`), legend: "1 day {{index}}"},
				{expr: ratio7d, legend: "7 days {{index}}"},
				{expr: fmt.Sprintf("%s * %g", ratio7d, 1+drift), legend: "band high {{index}}"},
				{expr: fmt.Sprintf("%s * %g", ratio7d, 1-drift), legend: "band low {{index}}"},
			}},
		{kind: timeSeries, title: "Peak-to-average (7 days)", unit: unitRatio,
			description: "Peak (99th percentile of 1-minute rates) over mean consumed capacity in the last 7 days, read and write. Flat, sustained traffic " +
				"(low values) suits provisioned capacity with auto-scaling; spiky traffic suits on-demand. Not a rule on its own: read it with the cost what-if.",
			queries: []query{{expr: sel(c.CapacityPeakToAverage, selTI), legend: "{{dimension}} {{index}}"}}},
		{kind: timeSeries, title: "Baselines (capacity units/s): last week, last 4 weeks, surge week", unit: unitPerSecond,
			description: "Median of hourly consumed rates (read plus write units per second) over the last whole week (1w), the last 4 weeks (4w), the surge week " +
				"and the weeks before it (pre_surge). A 4-week baseline near the surge week's long after the surge is a permanent shift.",
			queries: []query{{expr: sel(c.CapacityBaselineUnits, selTI), legend: "{{window}} {{index}}"}}},
		{kind: timeSeries, title: "Surge retention", unit: unitPercent,
			lines: []float64{number("DynamoDBSurgeBecameBaseline", "min_retention")},
			description: fmt.Sprintf("Current 4-week baseline over the surge week's baseline. At or above the dashed line (%s of the surge) %s weeks or more after the surge peak, "+
				"the surge became the baseline: on an on-demand table chosen for the spike, review the mode. Absent when the history shows no surge.",
				param("DynamoDBSurgeBecameBaseline", "min_retention"), param("DynamoDBSurgeBecameBaseline", "min_weeks_after_surge")),
			queries: []query{{expr: sel(c.CapacitySurgeRetention, selTI), legend: "{{index}}"}}},
	}
	cost := []panel{
		{kind: timeSeries, title: "Monthly cost in each mode (30-day what-if)", unit: unitUSD,
			description: "Throughput cost per month of the table and its indexes from the last 30 days of actual consumption, on demand and provisioned (simulating " +
				"target-tracking auto-scaling), scaled to 730 hours by the history available. The lower line is the cheaper mode. Storage, backups and streams are not in it.",
			queries: []query{{expr: fmt.Sprintf("%s\n  * %d / ignoring (mode) group_left\n%s",
				sel(c.CapacityCostDollars, selT, costWindow), secondsPerMonth, sel(c.CapacityTraceSeconds, selT, costWindow)), legend: "{{mode}}"}}},
		{kind: timeSeries, title: "Monthly saving of provisioned capacity over on-demand", unit: unitUSD,
			lines: []float64{number("DynamoDBOnDemandSustainedWorkload", "min_monthly_spend_dollars")},
			description: "On-demand cost minus provisioned cost (with auto-scaling) per month, from the last 7 and 30 days, whatever the table's current mode: " +
				"positive when provisioned is cheaper. Its sign does not flip when the table switches mode, so it stays readable on a table that churns (see the annotations). " +
				"The dashed line is the pack's min_monthly_spend_dollars.",
			queries: []query{{expr: sel(c.CapacityProvisionedSaving, selT), legend: "{{window}}"}}},
		{kind: timeSeries, title: "Billing-mode switches in the history, and the latest switch's cost per day", unit: unitUSD,
			description: "From the base table's provisioned-capacity history (CloudWatch publishes it only while the table is provisioned): the cost paid per day in the 7 days " +
				"before the latest billing-mode switch (before) and since it (since), when the switch is 1 to 14 days old, provisioned hours at the capacity paid and on-demand hours " +
				"at the on-demand price of the units consumed (base table only); and the switches to on-demand and to provisioned within 7 days. " +
				"A since line above the before line with the same traffic is DynamoDBModeSwitchRegressed; several switches to on-demand within the churn window is DynamoDBBillingModeChurn.",
			queries: []query{
				{expr: sel(c.CapacityModeSwitchDailyCost, selT), legend: "{{period}}"},
				{expr: sel(c.CapacityModeSwitches, selT, `window="7d"`), legend: "switches to {{to}} (7d)", unit: unitCount}}},
		{kind: tablePanel, title: "Recommendation", unit: unitInfo, merge: true,
			description: "The exporter's billing-mode recommendation per window: keep, switch_to_on_demand or switch_to_provisioned, with its reason: cheaper, " +
				"saving_below_minimum, simulated_throttling (provisioned would throttle) or traffic_below_minimum (not worth the effort).",
			queries: []query{{expr: fmt.Sprintf("max by (%s, window, recommendation, reason_code) (%s)", byT, sel(c.CapacityRecommendationInfo, selT)), instant: true, column: "-"}}},
		{kind: timeSeries, title: "Monthly cost in each table class: throughput and storage", unit: unitUSD,
			description: "The table's monthly cost in STANDARD and in STANDARD_INFREQUENT_ACCESS, by component: throughput (the longest cost window's consumption " +
				"in the table's current billing mode, priced in that class) and storage (today's size of the table and its GSIs in that class). " +
				"Standard-IA stores for about 60% less and charges about 25% more for throughput: it is cheaper exactly when storage exceeds 5/17 of the " +
				"Standard cost at the list prices. Storage prices are built in for us-east-1 only; the free tier is not deducted.",
			queries: []query{
				{expr: sel(c.CapacityClassMonthlyCost, selT), legend: "{{table_class}} {{component}}"},
				{expr: sel(c.CapacityStorageMonthlyCost, selTI), legend: "storage {{index}} (its class)"},
			}},
		{kind: tablePanel, title: "Table class recommendation", unit: unitUSD, merge: true,
			description: "The table-class recommendation (keep, switch_to_standard_ia or switch_to_standard) with its reason (cheaper, saving_below_minimum, " +
				"or recent_class_change: AWS allows two class changes in 30 days) and the monthly saving of switching class (negative: switching costs more). " +
				"none: no comparison, with why (class_not_reported, unknown_class, no_price, size_not_reported). The switch is online.",
			queries: []query{
				{expr: fmt.Sprintf("max by (%s, window, recommendation, reason_code) (%s)", byT, sel(c.CapacityClassRecommendationInfo, selT)), instant: true, column: "-", unit: unitInfo},
				{expr: fmt.Sprintf("max by (%s, window) (%s)", byT, sel(c.CapacityClassSwitchSaving, selT)), instant: true, column: "Class switch saving / month"},
			}},
		{kind: timeSeries, title: "Monthly cost 12 and 24 months ahead, at the traffic trend", unit: unitUSD,
			description: "The table's monthly throughput cost in each billing mode 12 and 24 months ahead: the longest cost window (30 days) with every hour grown by the " +
				"trend of the daily consumed units (reads plus writes, table and GSIs), priced by the same cost model as today's figures. The trend is the seasonal Kendall " +
				"slope (Theil–Sen within each weekday) with a 99% interval: growth is applied only when the interval excludes zero (trend growing or declining); " +
				"flat means today's cost, history_too_short (under 14 days with traffic) no projection. Where the on_demand and provisioned lines of one horizon " +
				"cross, the cheaper mode changes: capacity report names the month. Recomputed once a day; storage not projected.",
			queries: []query{
				{expr: sel(c.CapacityProjectedMonthlyCost, selT), legend: "{{mode}} in {{horizon}}"},
				{expr: sel(c.CapacityTrafficGrowth, selT), legend: "traffic growth a year ({{trend}})", unit: unitPercent},
			}},
		{kind: timeSeries, title: "Requests provisioned capacity would throttle (what-if)", unit: unitCount,
			description: "Request units the provisioned auto-scaling simulation throttles over the window, counting the scale-out delay and burst capacity. " +
				"Not zero: switching to provisioned would throttle these spikes; keep on-demand or pre-scale.",
			queries: []query{{expr: sel(c.CapacitySimulatedThrottled, selT), legend: "{{window}} {{dimension}}"}}},
	}
	byDiagnosis := byTI + ", window, dimension, cause"
	byScaling := byTI + ", dimension, window"
	diagnosis := []panel{
		{kind: tablePanel, title: "Simulated throttling and saturated minutes of the auto-scaling policy, by cause (7 and 30 days)", unit: unitCount, merge: true,
			sortBy: "Saturated time",
			description: "For a provisioned table, per table or GSI and dimension its own auto-scaling policy scales, over the last 7 and 30 days of consumed " +
				"history, by cause: the request units the simulation of the current policy throttles; the saturated time, the minutes whose consumed demand reached " +
				"the capacity the simulated policy had in effect (at or above it); and how long ago the latest throttled or saturated minute of that cause was. " +
				"Why two signals: the history is consumed capacity, capped by the table's real throttling. Where the table refused demand, that demand is not " +
				"in the history and the simulation throttles little or nothing, but the served demand sits at the capacity: the saturated minutes show the " +
				"failure the throttled units miss. at_max: capacity held at the auto-scaling maximum while the policy wanted more (raise the maximum). " +
				"target: only for a target utilization above 70%, the units the same policy at a 70% target would not have throttled, the minutes it would not " +
				"have saturated (lower the target). reaction: demand rising faster than auto-scaling reacts, 2 minutes above target then the scale-out delay, " +
				"even at 70% (pre-scale, scheduled scaling or on-demand). No row: nothing throttled or saturated, or the table is on-demand. Known from the " +
				"first capacity cycle, before the next rush; the current policy is simulated over the whole window, also before a recent change of it. The " +
				"real throttling is in the throttle events panel.",
			queries: []query{
				{expr: fmt.Sprintf("max by (%s) (%s)", byDiagnosis, sel(c.CapacityDiagnosisThrottled, selTI)), instant: true, column: "Throttled units", unit: unitCount},
				{expr: fmt.Sprintf("max by (%s) (%s)", byDiagnosis, sel(c.CapacityDiagnosisSaturated, selTI)), instant: true, column: "Saturated time", unit: unitSeconds},
				{expr: fmt.Sprintf("time() - max by (%s) (%s)", byDiagnosis, sel(c.CapacityDiagnosisLastThrottled, selTI)), instant: true,
					column: "Latest throttled or saturated minute, ago", unit: unitSeconds},
			}},
		{kind: tablePanel, title: "Simulated scaling decisions per day and utilization (7 days)", unit: unitCount, merge: true, sortBy: "Scaling decisions per day",
			description: "For a provisioned table, per table or GSI and dimension its own auto-scaling policy scales, over the last 7 days: the scaling decisions " +
				"(scale-outs plus scale-ins) per day of the simulated current policy, and the utilization it achieves (consumed over simulated provisioned " +
				"capacity). Many decisions a day while utilization stays well below the target mean a policy too sensitive for the traffic: every scaling is " +
				"capacity chasing noise, and decreases are limited per day.",
			queries: []query{
				{expr: fmt.Sprintf("max by (%s) (%s)", byScaling, sel(c.CapacitySimulatedScalingEvents, selTI)), instant: true, column: "Scaling decisions per day", unit: unitCount},
				{expr: fmt.Sprintf("max by (%s) (%s)", byScaling, sel(c.CapacitySimulatedUtilization, selTI)), instant: true, column: "Utilization", unit: unitPercent},
			}},
	}
	storage := []panel{
		{kind: timeSeries, title: "Table and index size", unit: unitBytes,
			description: "Storage size as DynamoDB reports it (refreshed about every six hours). Expired items still count until TTL deletes them.",
			queries:     []query{{expr: sel(c.SizeBytes, selTI), legend: "{{table}} {{index}}"}}},
		{kind: timeSeries, title: "Item count", unit: unitCount,
			description: "Items as DynamoDB reports them (refreshed about every six hours), expired-but-not-deleted items included.",
			queries:     []query{{expr: sel(c.Items, selTI), legend: "{{table}} {{index}}"}}},
	}
	return board{
		uid: TableUID, title: "DynamoDB table detail", file: "table-detail.json",
		description: "One table (pick it above): capacity against provisioned, target and max, throttles by cause, latency against its baseline, workload shape, the auto-scaling policy's simulated throttling by cause, cost what-if, billing-mode switches and alerts as annotations.",
		rows: []row{
			{title: "Capacity and throttles", panels: capacity},
			{title: "Latency", panels: latency},
			{title: "Workload shape", panels: shape},
			{title: "Auto-scaling diagnosis (simulated, from the consumed history)", panels: diagnosis},
			{title: "Cost and mode", panels: cost},
			{title: "Storage", panels: storage},
		},
		annotations: []annotation{
			{name: "Switch to on-demand", color: "purple", title: "Switched to on-demand", text: "{{table}}",
				expr: fmt.Sprintf("changes(%s[5m]) > 0", sel(c.LastSwitchToOnDemandTimestamp, selT))},
			{name: "Switch to provisioned", color: "blue", title: "Switched to provisioned", text: "{{table}}",
				expr: fmt.Sprintf("max by (%[1]s) (%[2]s)\n  and on (%[1]s)\nmax by (%[1]s) (%[3]s offset 5m)", byT,
					sel(c.TableInfo, selT, `billing_mode="PROVISIONED"`), sel(c.TableInfo, selT, `billing_mode="PAY_PER_REQUEST"`))},
			alertAnnotation(selT),
		},
	}
}

// alertAnnotation marks the pack's alerts firing on the selected tables.
func alertAnnotation(selector string) annotation {
	return annotation{name: "Alerts firing", color: "red", title: "{{alertname}}", text: "{{table}} {{index}} {{severity}}",
		expr: fmt.Sprintf(`ALERTS{alertstate="firing", alertname=~"DynamoDB.*", %s}`, selector)}
}
