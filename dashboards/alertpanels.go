package dashboards

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	c "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// exporterGroup is the pack's group about the exporter itself: its alerts
// are per account and region, not per table.
const exporterGroup = "dynamodb-exporter"

// AlertPanelID is the fixed ID of an alert's panel on the alerts dashboard,
// derived from the alert's name alone so that it survives alerts being
// added, removed or reordered: runbooks link to it with viewPanel.
func AlertPanelID(alert string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(alert))
	return 1000 + h.Sum32()%899000
}

// AlertPanelPath is the path, under a Grafana URL, of an alert's panel alone
// on the alerts dashboard.
func AlertPanelPath(alert string) string {
	return fmt.Sprintf("/d/%s?viewPanel=%d", AlertsUID, AlertPanelID(alert))
}

// RunbookLine is the line a runbook carries under its header to link its
// alert's panel: Grafana's URL is the reader's, so the path is given after it.
func RunbookLine(alert string) string {
	return fmt.Sprintf("**Dashboard** panel `%s` of *DynamoDB alerts* (`dashboards/alerts.json`): `<grafana>%s&var-table=TABLE`",
		alert, AlertPanelPath(alert))
}

// perAccount are the alerts outside the exporter's group that are per
// account and region, not per table (a quota shared by every table of the
// region): their panel's condition is not narrowed to the selected tables.
var perAccount = map[string]bool{"DynamoDBAccountProvisionedCapacityNearQuota": true}

// signal is what an alert's panel draws besides the alert's own expression:
// the quantity the alert watches, with its threshold.
type signal struct {
	unit    string
	read    string // how to read the panel
	queries []query
	lines   []float64
}

// signals are the hand-written signal queries of the pack's alerts. An alert
// without one (added to the pack later) still gets its panel, with its own
// expression only.
func signals() map[string]signal {
	minThrottles := func(alert string) []float64 { return []float64{number(alert, "min_throttles_per_second")} }
	throttles := func(cause string) []query {
		return []query{{expr: fmt.Sprintf("sum by (%s, kind) (%s)", byTI, sel(throttleRate, selTI, `cause="`+cause+`"`)),
			legend: "{{table}} {{index}} {{kind}}"}}
	}
	latencyBase := fmt.Sprintf("quantile_over_time(0.5, %s[%s] offset 1h)",
		sel(c.SuccessfulRequestLatencyP99, selT), param("DynamoDBLatencyAboveBaseline", "latency_baseline_window"))
	liveBase := fmt.Sprintf("avg_over_time(%s[%s] offset 1h)", sel(ttlDeletedRate1h, selT), param("DynamoDBTTLDeletingLiveData", "deletion_baseline_window"))
	drift := number("DynamoDBReadWriteRatioDrift", "max_drift")
	growth := param("DynamoDBTTLRetentionBehindWrites", "growth_window")
	retentionDeleted := fmt.Sprintf("sum by (%s) (increase(%s[%s]))", byT, sel(c.TTLDeletedItemsTotal, selT), growth)
	retentionWritten := fmt.Sprintf("sum by (%s) (delta(%s[%s])) + on (%s) %s", byT, sel(c.Items, selT, `index=""`), growth, byT, retentionDeleted)
	return map[string]signal{
		"DynamoDBProvisionedThroughputThrottling": {unit: unitPerSec, lines: minThrottles("DynamoDBProvisionedThroughputThrottling"),
			read:    "provisioned-throughput throttle events per second (average over the rate window) by kind; the dashed line is min_throttles_per_second.",
			queries: throttles("provisioned_throughput")},
		"DynamoDBAutoScalingMaxTooLow": {unit: unitPercent,
			read: "consumed capacity over the auto-scaling maximum, by dimension, against the target utilization: above the target, auto-scaling wants more than max allows.",
			queries: []query{
				{expr: sel(maxUtilization, selTI), legend: "consumed / max {{table}} {{index}} {{dimension}}"},
				{expr: sel(c.AutoScalingTargetUtilization, selTI), legend: "target {{table}} {{index}} {{dimension}}"},
			}},
		"DynamoDBAccountProvisionedCapacityNearQuota": {unit: unitPercent, lines: []float64{number("DynamoDBAccountProvisionedCapacityNearQuota", "max_account_quota_utilization")},
			read:    "the provisioned capacity of every provisioned table and GSI of the account in the region over its account-level quota, by dimension (CloudWatch's own figure, whatever tables the exporter monitors); the dashed line is max_account_quota_utilization.",
			queries: []query{{expr: sel(c.AccountProvisionedUtilization, selAR), legend: "{{dimension}} {{account}} {{region}}"}}},
		"DynamoDBAutoScalingMaxAboveTableQuota": {unit: unitRatio, lines: []float64{1},
			read: "the auto-scaling maximum over the table-level quota, by table, index and dimension, present only while above 1 (the dashed line): the quota, not the maximum, caps auto-scaling.",
			queries: []query{
				{expr: sel(c.AutoScalingMaxOverTableQuota, selTI), legend: "max / quota {{table}} {{index}} {{dimension}}"},
			}},
		"DynamoDBGSIBackfillThrottling": {unit: unitPerSec, lines: minThrottles("DynamoDBGSIBackfillThrottling"),
			read: "write throttle events per second of the build of each index being added (average over the rate window), present only while DescribeTable reports the index CREATING; the dashed line is min_throttles_per_second. The table dashboard shows the build's progress.",
			queries: []query{{expr: fmt.Sprintf("sum by (%s) (%s)", byTI, sel(rec("dynamodb:gsi_backfill_throttle_events:rate"), selTI)),
				legend: "{{table}} {{index}}"}}},
		"DynamoDBReplicationLagging": {unit: unitSeconds, lines: []float64{seconds("DynamoDBReplicationLagging", "max_replication_latency")},
			read:    "replication latency of each global table from this region to each receiving region (CloudWatch ReplicationLatency, average, slow tier); the dashed line is max_replication_latency.",
			queries: []query{{expr: sel(c.ReplicationLatency, selT), legend: "{{table}} to {{receiving_region}}"}}},
		"DynamoDBHotPartition": {unit: unitPerSec, lines: minThrottles("DynamoDBHotPartition"),
			read:    "key-range throttle events per second by kind: one partition above 3,000 RCU or 1,000 WCU; the dashed line is min_throttles_per_second.",
			queries: throttles("key_range_throughput")},
		"DynamoDBLatencyAboveBaseline": {unit: unitSeconds, lines: []float64{number("DynamoDBLatencyAboveBaseline", "min_latency_seconds")},
			read: "p99 latency by operation against the alert level (latency_factor times the median p99 of the baseline window); the dashed line is min_latency_seconds.",
			queries: []query{
				{expr: sel(c.SuccessfulRequestLatencyP99, selT), legend: "p99 {{table}} {{operation}}"},
				{expr: fmt.Sprintf("%s * %s", param("DynamoDBLatencyAboveBaseline", "latency_factor"), latencyBase), legend: "alert level {{table}} {{operation}}"},
			}},
		"DynamoDBTargetUtilizationTooHigh": {unit: unitPercent, lines: []float64{number("DynamoDBTargetUtilizationTooHigh", "max_target_utilization")},
			read:    "the auto-scaling target utilization by dimension; the dashed line is max_target_utilization (the alert also needs a provisioned-throughput throttle within throttle_window).",
			queries: []query{{expr: sel(c.AutoScalingTargetUtilization, selTI), legend: "{{table}} {{index}} {{dimension}}"}}},
		"DynamoDBOnDemandSustainedWorkload": {unit: unitUSD, lines: []float64{number("DynamoDBOnDemandSustainedWorkload", "min_monthly_spend_dollars")},
			read:    "the monthly saving of provisioned capacity over on-demand (30-day what-if; its sign does not change when the table switches mode); the dashed line is min_monthly_spend_dollars (the alert also needs the table on demand for min_time_on_demand, a baseline above min_request_units_per_second and no hot key).",
			queries: []query{{expr: sel(c.CapacityProvisionedSaving, selT, costWindow), legend: "{{table}}"}}},
		"DynamoDBBillingModeChurn": {unit: unitCount, lines: []float64{number("DynamoDBBillingModeChurn", "min_switches")},
			read: "switches to on-demand seen within the churn window: live (DescribeTable's latest switch moving) and in the provisioned-capacity history (the capacity collector's count, which holds the switches made before the exporter started); the dashed line is min_switches.",
			queries: []query{{expr: fmt.Sprintf("changes(%s[%s])", sel(c.LastSwitchToOnDemandTimestamp, selT), param("DynamoDBBillingModeChurn", "churn_window")),
				legend: "live {{table}}"},
				{expr: sel(c.CapacityModeSwitches, selT, `to="on_demand"`, fmt.Sprintf("window=%q", param("DynamoDBBillingModeChurn", "churn_window"))),
					legend: "history {{table}}"}}},
		"DynamoDBModeSwitchRegressed": {unit: unitPercent, lines: []float64{number("DynamoDBModeSwitchRegressed", "max_cost_increase")},
			read:    "cost per unit of traffic since the latest billing-mode switch (at least a day and at most 14 days old) over the week before it, minus 1; the dashed line is max_cost_increase (the alert also needs min_daily_cost_dollars a day since the switch, when the region has a price).",
			queries: []query{{expr: sel(c.CapacityModeSwitchCostChange, selT), legend: "{{table}}"}}},
		"DynamoDBSurgeBecameBaseline": {unit: unitPercent, lines: []float64{number("DynamoDBSurgeBecameBaseline", "min_retention")},
			read:    "surge retention (4-week baseline over the surge week's); the dashed line is min_retention (the alert also needs min_weeks_after_surge since the peak, on demand).",
			queries: []query{{expr: sel(c.CapacitySurgeRetention, selTI), legend: "{{table}} {{index}}"}}},
		"DynamoDBReadWriteRatioDrift": {unit: unitPercent, lines: []float64{-drift, drift},
			read:    "drift of the 1-day read/write ratio from its 7-day value; the dashed lines are plus and minus max_drift.",
			queries: []query{{expr: sel(c.CapacityReadWriteDrift, selTI), legend: "{{table}} {{index}}"}}},
		"DynamoDBTTLValuesNeverExpire": {unit: unitCount, lines: []float64{number("DynamoDBTTLValuesNeverExpire", "min_never_expiring_items")},
			read:    "the lower bound of never-expiring items; the dashed line is min_never_expiring_items.",
			queries: []query{{expr: sel(c.TTLNeverExpiringItemsLowerBound, selT), legend: "{{table}}"}}},
		"DynamoDBTTLAttributeNameMismatch": {unit: unitPercent, lines: []float64{number("DynamoDBTTLAttributeNameMismatch", "min_candidate_share")},
			read:    "share of items carrying another epoch attribute instead of the TTL one; the dashed line is min_candidate_share.",
			queries: []query{{expr: sel(c.TTLCandidateAttributeItemsRatio, selT), legend: "{{table}} {{attribute}}"}}},
		"DynamoDBTTLAttributeMissingRising": {unit: unitPercent,
			read: fmt.Sprintf("share of the TTL sample without the TTL attribute against its median over %s ending an hour ago: the alert needs the sample to hold at least min_missing_rise_items more such items than that median predicts, and more than missing_rise_sigmas standard deviations of the sampling noise.",
				param("DynamoDBTTLAttributeMissingRising", "missing_baseline_window")),
			queries: []query{
				{expr: sel(ttlMissingRatio, selT), legend: "without the attribute {{table}}"},
				{expr: fmt.Sprintf("quantile_over_time(0.5, %s[%s] offset 1h)", sel(ttlMissingRatio, selT), param("DynamoDBTTLAttributeMissingRising", "missing_baseline_window")), legend: "baseline {{table}}"},
			}},
		"DynamoDBTTLNotDeleting": {unit: unitCount,
			read: fmt.Sprintf("the lower bound of expired items against TTL deletions within deletion_grace (%s): expired items and no deletion is the failure.",
				param("DynamoDBTTLNotDeleting", "deletion_grace")),
			queries: []query{
				{expr: sel(c.TTLExpiredItemsLowerBound, selT), legend: "expired (lower bound) {{table}}"},
				{expr: fmt.Sprintf("increase(%s[%s])", sel(c.TTLDeletedItemsTotal, selT), param("DynamoDBTTLNotDeleting", "deletion_grace")), legend: "deleted within the grace {{table}}"},
			}},
		"DynamoDBTTLDeletionLagging": {unit: unitSeconds, lines: []float64{seconds("DynamoDBTTLDeletionLagging", "max_deletion_lag")},
			read:    "time since the oldest expired item's expiry; the dashed line is max_deletion_lag.",
			queries: []query{{expr: fmt.Sprintf("time() - %s", sel(c.TTLOldestExpiredItemTimestamp, selT)), legend: "{{table}}"}}},
		"DynamoDBTTLRetentionBehindWrites": {unit: unitCount,
			read: fmt.Sprintf("items written over %s (the growth of the item count plus TTL's deletions) against the items TTL deleted, and the alert level (max_deletion_share of the written): deletions under it while the table grows by at least min_growth_ratio of its items is the condition.",
				param("DynamoDBTTLRetentionBehindWrites", "growth_window")),
			queries: []query{
				{expr: retentionWritten, legend: "written {{table}}"},
				{expr: retentionDeleted, legend: "deleted by TTL {{table}}"},
				{expr: fmt.Sprintf("%s * (%s)", param("DynamoDBTTLRetentionBehindWrites", "max_deletion_share"), retentionWritten), legend: "alert level {{table}}"},
			}},
		"DynamoDBTTLShortRetentionWithoutPITR": {unit: unitSeconds, lines: []float64{seconds("DynamoDBTTLShortRetentionWithoutPITR", "max_retention")},
			read: "how long the newest items the TTL sampler read still live (the latest live expiry minus its sample), shown for tables with point-in-time recovery off only; under the dashed line (max_retention) a retention bug would delete data nothing can restore.",
			queries: []query{{expr: fmt.Sprintf("(%s - on (%s) %s) and on (%s) (%s == 0)", sel(c.TTLLatestLiveExpiryTimestamp, selT), byT, sel(c.TTLLastSampleTimestamp, selT), byT, sel(c.TablePITREnabled, selT)),
				legend: "{{table}}"}}},
		"DynamoDBTTLDeletingLiveData": {unit: unitPerSecond, lines: []float64{number("DynamoDBTTLDeletingLiveData", "min_deletions_per_second")},
			read: "TTL deletions per second over the last hour against the alert level (deletion_factor times the baseline); and, over foreseen_window, the mean deletion rate against foreseen_margin times the expiries the TTL sampler foresaw (deletions under that line are a batch ending its full lifetime, not a retention bug); and the third branch's levels, expiry_rate_factor times the steady expiry rate the sampler read from the live items and times the deletion rate of the same hour a day earlier (deletions above both, risen from their lowest hourly rate, are the condition); the dashed line is min_deletions_per_second.",
			queries: []query{
				{expr: sel(ttlDeletedRate1h, selT), legend: "deleted {{table}}"},
				{expr: fmt.Sprintf("%s * %s", param("DynamoDBTTLDeletingLiveData", "deletion_factor"), liveBase), legend: "alert level {{table}}"},
				{expr: fmt.Sprintf("increase(%s[%s]) / %g", sel(c.TTLDeletedItemsTotal, selT), param("DynamoDBTTLDeletingLiveData", "foreseen_window"), seconds("DynamoDBTTLDeletingLiveData", "foreseen_window")), legend: "deleted over the foreseen window {{table}}"},
				{expr: fmt.Sprintf("%s * increase(%s[%s]) / %g", param("DynamoDBTTLDeletingLiveData", "foreseen_margin"), sel(c.TTLForeseenExpiredItemsTotal, selT), param("DynamoDBTTLDeletingLiveData", "foreseen_window"), seconds("DynamoDBTTLDeletingLiveData", "foreseen_window")), legend: "foreseen (with margin) {{table}}"},
				{expr: fmt.Sprintf("%s * %s", param("DynamoDBTTLDeletingLiveData", "expiry_rate_factor"), sel(c.TTLExpiryRateEstimate, selT)), legend: "expiry-rate level {{table}}"},
				{expr: fmt.Sprintf("%s * %s", param("DynamoDBTTLDeletingLiveData", "expiry_rate_factor"), sel(c.TTLDeletionRateDayEarlier, selT)), legend: "day-earlier level {{table}}"},
			}},
		"DynamoDBExporterCollectorFailing": {unit: unitBool,
			read:    "each collector's success per account and region: 0 is a failing run.",
			queries: []query{{expr: sel(c.ExporterCollectorSuccess, selAR), legend: "{{collector}} {{account}} {{region}}"}}},
		"DynamoDBExporterAccessDenied": {unit: unitCount,
			read:    "failed AWS calls in 30 minutes by error code; access and token errors are the failure.",
			queries: []query{{expr: fmt.Sprintf("sum by (account, region, service, operation, error_code) (increase(%s[30m]))", sel(c.ExporterAWSRequestErrorsTotal, selAR)), legend: "{{service}} {{operation}} {{error_code}}"}}},
		"DynamoDBExporterCloudWatchThrottled": {unit: unitCount,
			read:    "failed CloudWatch calls in 15 minutes by error code; throttling codes are the failure.",
			queries: []query{{expr: fmt.Sprintf(`sum by (account, region, error_code) (increase(%s[15m]))`, sel(c.ExporterAWSRequestErrorsTotal, selAR, `service="CloudWatch"`)), legend: "{{error_code}} {{account}} {{region}}"}}},
		"DynamoDBExporterTTLSamplerOutOfBudget": {unit: unitCount,
			read:    "TTL samples in 6 hours by outcome; skipped_budget is the failure.",
			queries: []query{{expr: fmt.Sprintf("sum by (account, region, outcome) (increase(%s[6h]))", sel(c.ExporterTTLSamplesTotal, selAR)), legend: "{{outcome}} {{account}} {{region}}"}}},
	}
}

// packAlert is an alert of the pack with its expression rendered for the
// dashboards: default parameters, the account and region variables added to
// every selector of the exporter's metrics, and the job and instance
// variables to every selector (recorded series and up included).
type packAlert struct {
	group, name, severity, forText, summary, expr string
}

// packAlerts renders the pack and returns its alerts in order.
func packAlerts() ([]packAlert, error) {
	files, err := alerts.Render(&alerts.Config{Selector: selAR})
	if err != nil {
		return nil, fmt.Errorf("rendering the alert pack: %w", err)
	}
	var out []packAlert
	for _, f := range files {
		var rf struct {
			Groups []struct {
				Name  string
				Rules []struct {
					Alert, Expr, For string
					Labels           map[string]string
					Annotations      map[string]string
				}
			}
		}
		if err := yaml.Unmarshal(f.Content, &rf); err != nil {
			return nil, fmt.Errorf("reading the rendered pack %s: %w", f.Name, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				// The pack adds its selector to the exporter's metrics only;
				// its recorded series and up get the dashboard's job and
				// instance here, which every series they hold carries.
				expr, err := narrow(r.Expr, targetMatchers...)
				if err != nil {
					return nil, fmt.Errorf("alert %s: %w", r.Alert, err)
				}
				out = append(out, packAlert{group: g.Name, name: r.Alert, severity: r.Labels["severity"],
					forText: r.For, summary: r.Annotations["summary"], expr: expr})
			}
		}
	}
	return out, nil
}

// alertPanel is the panel of one alert: its signal with the threshold, and
// the alert's own expression.
func alertPanel(a packAlert, s signal, known bool) panel {
	own := a.expr
	if a.group != exporterGroup && !perAccount[a.name] {
		own = fmt.Sprintf("(\n%s\n)\nand on (%s)\n%s", a.expr, byT, sel(c.TableInfo, selT))
	}
	forText := a.forText
	if forText == "" {
		forText = "0"
	}
	desc := fmt.Sprintf("%s (%s, for %s.) ", a.summary, a.severity, forText)
	if known {
		desc += "The panel shows " + s.read + " "
	}
	desc += "The series named \"condition\" is the alert's own expression with the default parameters: it has a value only while the condition holds, " +
		"and the alert fires once it has held for `for`. Red marks on the time axis are firings. The runbook: docs/runbooks/" + a.name + ".md."
	unit := s.unit
	if !known {
		unit = unitCount
	}
	qs := append([]query(nil), s.queries...)
	qs = append(qs, query{expr: own, legend: "condition {{table}} {{index}} {{dimension}}{{kind}}{{operation}}{{collector}}{{error_code}}"})
	return panel{kind: timeSeries, id: AlertPanelID(a.name), title: a.name, unit: unit, width: 12, height: 9,
		description: desc, queries: qs, lines: s.lines}
}

func alertsBoard() (board, error) {
	as, err := packAlerts()
	if err != nil {
		return board{}, err
	}
	sigs := signals()
	var rows []row
	for _, a := range as {
		if len(rows) == 0 || rows[len(rows)-1].title != a.group {
			rows = append(rows, row{title: a.group})
		}
		s, known := sigs[a.name]
		r := &rows[len(rows)-1]
		r.panels = append(r.panels, alertPanel(a, s, known))
	}
	for name := range sigs {
		if !hasAlert(as, name) {
			problems = append(problems, "a signal for "+name+", which the pack does not have")
		}
	}
	for i := range rows {
		rows[i].title = strings.TrimPrefix(rows[i].title, "dynamodb-")
	}
	return board{
		uid: AlertsUID, title: "DynamoDB alerts", file: "alerts.json",
		description: "One panel per alert of the pack, titled with its name: the signal it watches with its threshold, and its own expression. Runbooks link each panel (viewPanel).",
		rows:        rows,
		annotations: []annotation{{name: "Alerts firing", color: "red", title: "{{alertname}}", text: "{{table}} {{index}} {{severity}}",
			expr: fmt.Sprintf(`ALERTS{alertstate="firing", alertname=~"DynamoDB.*", %s}`, selAR)}},
	}, nil
}

func hasAlert(as []packAlert, name string) bool {
	for _, a := range as {
		if a.name == name {
			return true
		}
	}
	return false
}

// panelsMarkdown is panels.md: every alert with the path of its panel.
func panelsMarkdown() (string, error) {
	as, err := packAlerts()
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(as))
	for _, a := range as {
		names = append(names, a.name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# Alert panels\n\n")
	b.WriteString("<!-- Generated by `go generate ./dashboards`; do not edit. -->\n\n")
	b.WriteString("Every alert of the pack has a panel titled with its name on the **DynamoDB alerts** dashboard\n")
	b.WriteString("(`alerts.json`, uid `" + AlertsUID + "`). Its ID is derived from the alert's name, so the path below stays\n")
	b.WriteString("valid when alerts are added; prepend your Grafana's URL and add `&var-table=NAME` to open it on a table.\n\n")
	b.WriteString("| Alert | Panel ID | Path |\n|---|---|---|\n")
	for _, n := range names {
		fmt.Fprintf(&b, "| `%s` | %d | `%s` |\n", n, AlertPanelID(n), AlertPanelPath(n))
	}
	b.WriteString("\nEach runbook links its panel with this line under its header (`<grafana>` is your Grafana's URL):\n\n")
	b.WriteString("```markdown\n" + RunbookLine("DynamoDBHotPartition") + "\n```\n")
	return b.String(), nil
}
