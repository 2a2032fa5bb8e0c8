package dashboards

import (
	"fmt"

	c "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// Recorded series of the alert pack the dashboards read.
var (
	consumedReadRate  = rec("dynamodb:consumed_read_capacity_units:rate")
	consumedWriteRate = rec("dynamodb:consumed_write_capacity_units:rate")
	throttleRate      = rec("dynamodb:throttle_events_by_cause:rate")
	readUtilization   = rec("dynamodb:read_utilization:ratio")
	writeUtilization  = rec("dynamodb:write_utilization:ratio")
	maxUtilization    = rec("dynamodb:autoscaling_max_utilization:ratio")
	ttlDeletedRate1h  = rec("dynamodb:ttl_deleted_items:rate1h")
)

// Units: IDs of Grafana's unit list (no custom suffix: the dashboard
// linter refuses them). DynamoDB's capacity units have no Grafana unit: a
// panel of capacity units per second uses unitPerSecond and says which
// units in its title.
const (
	unitUSD       = "currencyUSD"
	unitPercent   = "percentunit"
	unitSeconds   = "s"
	unitCount     = "short"
	unitPerSec    = "ops"
	unitRatio     = "none"
	unitInfo      = "none"
	unitBool      = "bool"
	unitPerSecond = "cps" // counts per second: capacity units, items
	unitPerMinute = "cpm" // counts per minute
	unitReqPS     = "reqps"
	unitBytes     = "bytes"
)

// accountQuotaAlarm is the alarm threshold on the account's provisioned
// capacity: 80% of the account-level quota, the threshold issue 23 gives for
// CloudWatch's recommended alarms on AccountProvisionedReadCapacityUtilization
// and AccountProvisionedWriteCapacityUtilization (CloudWatch User Guide,
// "Recommended alarms", DynamoDB; the figure was not re-read from that page).
const accountQuotaAlarm = 0.8

// secondsPerMonth is 730 hours, the month the cost metrics use.
const secondsPerMonth = 2628000

// costWindow is the window of the cost what-if the dashboards show.
const costWindow = `window="30d"`

// sel writes a selector: name{matchers...}.
func sel(name string, matchers ...string) string {
	s := ""
	for i, m := range matchers {
		if i > 0 {
			s += ", "
		}
		s += m
	}
	return name + "{" + s + "}"
}

// monthlyCost is the monthly throughput cost of each table in mode (the
// what-if's 30-day cost scaled to 730 hours by the history it used).
func monthlyCost(mode string) string {
	return fmt.Sprintf(`sum by (%s) (%s) * %d / on (%s) %s`, byT,
		sel(c.CapacityCostDollars, selT, costWindow, `mode="`+mode+`"`),
		secondsPerMonth, byT, sel(c.CapacityTraceSeconds, selT, costWindow))
}

// costInMode is the monthly cost of the tables whose billing mode is (or
// is not, other) their current one.
func costInMode(other bool) string {
	pairs := [][2]string{{"on_demand", "PAY_PER_REQUEST"}, {"provisioned", "PROVISIONED"}}
	if other {
		pairs = [][2]string{{"on_demand", "PROVISIONED"}, {"provisioned", "PAY_PER_REQUEST"}}
	}
	var parts []string
	for _, p := range pairs {
		parts = append(parts, fmt.Sprintf("(%s)\n  and on (%s) %s", monthlyCost(p[0]), byT,
			sel(c.TableInfo, selT, `billing_mode="`+p[1]+`"`)))
	}
	return parts[0] + "\nor\n" + parts[1]
}

func fleetBoard() board {
	tables := panel{
		kind: tablePanel, title: "Tables, largest saving first", width: 24, height: 12, merge: true,
		sortBy: "Monthly saving if switched",
		unit:   unitCount,
		description: "One row per table: billing mode, monthly throughput cost in its mode and in the other one (30-day what-if, " +
			"provisioned simulating target-tracking auto-scaling), the monthly saving of switching (negative: switching costs more), " +
			"the exporter's recommendation with its reason, peak utilization, throttle events per second, and TTL health " +
			"(status, estimated expired-but-not-deleted and never-expiring items). Rows are sorted by the saving: the tables that " +
			"waste most are on top. Sort by another column by clicking its header.",
		queries: []query{
			{expr: fmt.Sprintf("max by (%s, billing_mode) (%s)", byT, sel(c.TableInfo, selT)), instant: true, column: "-"},
			{expr: costInMode(false), instant: true, column: "Monthly cost now", unit: unitUSD},
			{expr: costInMode(true), instant: true, column: "Monthly cost in the other mode", unit: unitUSD},
			{expr: fmt.Sprintf("max by (%s) (%s)", byT, sel(c.CapacityMonthlySwitchSaving, selT, costWindow)), instant: true, column: "Monthly saving if switched", unit: unitUSD},
			{expr: fmt.Sprintf("max by (%s, recommendation, reason_code) (%s)", byT, sel(c.CapacityRecommendationInfo, selT, costWindow)), instant: true, column: "-"},
			{expr: fmt.Sprintf("max by (%s) (%s)", byT, sel(readUtilization, selT)), instant: true, column: "Read utilization", unit: unitPercent},
			{expr: fmt.Sprintf("max by (%s) (%s)", byT, sel(writeUtilization, selT)), instant: true, column: "Write utilization", unit: unitPercent},
			{expr: fmt.Sprintf("sum by (%s) (%s)", byT, sel(throttleRate, selT)), instant: true, column: "Throttle events/s", unit: unitPerSec},
			{expr: fmt.Sprintf(`max by (%s, ttl_status) (label_replace(%s, "ttl_status", "$1", "status", "(.*)"))`, byT, sel(c.TableTTLInfo, selT)), instant: true, column: "-"},
			{expr: fmt.Sprintf("max by (%s) (%s)", byT, sel(c.TTLExpiredItemsEstimate, selT)), instant: true, column: "Expired, not deleted (est.)", unit: unitCount},
			{expr: fmt.Sprintf("max by (%s) (%s)", byT, sel(c.TTLNeverExpiringItemsEstimate, selT)), instant: true, column: "Never expiring (est.)", unit: unitCount},
		},
	}
	summary := []panel{
		{kind: statPanel, title: "Monthly saving available", unit: unitUSD, width: 6, height: 5,
			description: "Sum over the selected tables of the positive monthly savings of switching billing mode (30-day what-if). " +
				"Throughput only: storage, backups and streams are not in it.",
			queries: []query{{expr: fmt.Sprintf("sum(clamp_min(%s, 0))", sel(c.CapacityMonthlySwitchSaving, selT, costWindow)), instant: true}}},
		{kind: statPanel, title: "Monthly throughput cost now", unit: unitUSD, width: 6, height: 5,
			description: "Sum of every selected table's monthly throughput cost in its current billing mode (30-day what-if of actual consumption).",
			queries:     []query{{expr: "sum(\n" + costInMode(false) + "\n)", instant: true}}},
		{kind: statPanel, title: "Tables throttling", unit: unitCount, width: 6, height: 5,
			lines: []float64{1},
			description: fmt.Sprintf("Tables whose throttle events, all causes, average more than %s per second over the rate window (the pack's min_throttles_per_second). 0 is healthy.",
				param("DynamoDBProvisionedThroughputThrottling", "min_throttles_per_second")),
			queries: []query{{expr: fmt.Sprintf("count(sum by (%s) (%s) > %s) or vector(0)", byT, sel(throttleRate, selT),
				param("DynamoDBProvisionedThroughputThrottling", "min_throttles_per_second")), instant: true}}},
		{kind: statPanel, title: "Alerts firing", unit: unitCount, width: 6, height: 5,
			lines:       []float64{1},
			description: "Alerts of the pack firing now in the selected accounts and regions. The table below lists them.",
			queries:     []query{{expr: fmt.Sprintf(`count(ALERTS{alertstate="firing", alertname=~"DynamoDB.*", %s}) or vector(0)`, selAR), instant: true}}},
	}
	trends := []panel{
		{kind: timeSeries, title: "Throttle events by cause", unit: unitPerSec,
			description: "Throttle events per second (average over the rate window) of every table that throttles, by kind and cause: " +
				"provisioned_throughput (capacity or auto-scaling too low), key_range_throughput (a hot partition, whatever the mode), " +
				"max_on_demand_throughput (the table's on-demand maximum) and account_limit. Tables that do not throttle are not drawn.",
			queries: []query{{expr: fmt.Sprintf("sum by (%s, kind, cause) (%s) > 0", byTI, sel(throttleRate, selTI)),
				legend: "{{table}} {{index}} {{kind}} {{cause}}"}}},
		{kind: timeSeries, title: "Utilization of provisioned capacity, busiest tables", unit: unitPercent,
			description: "Consumed capacity over provisioned capacity of the ten busiest provisioned tables and indexes, read and write. " +
				"A target-tracking table sits near its target (70% by default); above it auto-scaling scales out after 2 minutes, " +
				"and a table pinned near 100% throttles. On-demand tables have no provisioned capacity and are not drawn.",
			queries: []query{
				{expr: fmt.Sprintf("topk(10, %s)", sel(readUtilization, selTI)), legend: "read {{table}} {{index}}"},
				{expr: fmt.Sprintf("topk(10, %s)", sel(writeUtilization, selTI)), legend: "write {{table}} {{index}}"},
			}},
		{kind: timeSeries, title: "Account provisioned capacity against its quota", unit: unitPercent,
			lines: []float64{accountQuotaAlarm},
			description: "Provisioned capacity of every provisioned table and GSI of the account in the region over the account-level quota, read and write: " +
				"CloudWatch's AccountProvisionedRead/WriteCapacityUtilization, exact whatever tables the exporter monitors. " +
				"Auto-scaling and UpdateTable cannot raise the total above the quota (LimitExceededException); on-demand tables do not count. " +
				"The dashed line is the 80% alarm threshold. The quota itself is dynamodb_quota_account_max_capacity_units (DescribeLimits).",
			queries: []query{{expr: sel(c.AccountProvisionedUtilization, selAR), legend: "{{dimension}} {{account}} {{region}}"}}},
		{kind: timeSeries, title: "Monthly saving of provisioned capacity over on-demand, by table", unit: unitUSD,
			lines: []float64{number("DynamoDBOnDemandSustainedWorkload", "min_monthly_spend_dollars")},
			description: "For each table, on-demand cost minus provisioned cost (with auto-scaling) per month, from the last 30 days of consumption, whatever the table's mode: " +
				"positive when provisioned is cheaper, negative when on-demand is; its sign does not flip when the table switches mode. " +
				"The dashed line is the alert pack's min_monthly_spend_dollars: above it a settled on-demand table with a sustained workload raises DynamoDBOnDemandSustainedWorkload.",
			queries: []query{{expr: sel(c.CapacityProvisionedSaving, selT, costWindow), legend: "{{table}}"}}},
		{kind: tablePanel, title: "Firing alerts of the pack", unit: unitInfo,
			description: "Alerts of the pack firing now, one row each, with their labels: alertname, severity, account, region, table (and index). " +
				"Open the DynamoDB alerts dashboard for the panel of each alert.",
			queries: []query{{expr: fmt.Sprintf(`ALERTS{alertstate="firing", alertname=~"DynamoDB.*", %s}`, selAR), instant: true, column: "-"}},
			merge:   true},
	}
	return board{
		uid: FleetUID, title: "DynamoDB fleet overview", file: "fleet-overview.json",
		description: "Every DynamoDB table the exporter watches: mode, cost, savings, utilization, throttles, TTL health and the pack's firing alerts.",
		rows: []row{
			{title: "Summary", panels: summary},
			{title: "Tables", panels: []panel{tables}},
			{title: "Trends", panels: trends},
		},
	}
}
