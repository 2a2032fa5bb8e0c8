package alerts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Parameters shared by several rules; a value under `params:` in the pack
// configuration sets them for every rule at once.
var (
	rateWindow = Param{Name: "rate_window", Kind: Duration, Default: "10m",
		Doc: "Window of the rates over the exporter's CloudWatch counters: at least two collection cycles plus CloudWatch's delay, and a multiple of the collection interval (the counters step once a cycle, and the rate counts the steps in the window), so that it holds at the 1m and 5m cadences."}
	minMonthlySpend = Param{Name: "min_monthly_spend_dollars", Kind: Number, Default: "50",
		Doc: "The minimum spend (USD a month) a cost alert must be worth: the monthly saving it advises must reach it, so a table whose throughput costs less never raises one. The capacity collector's collectors.capacity.min_monthly_saving has the same default."}
	latencyFactor = Param{Name: "latency_factor", Kind: Number, Default: "3",
		Doc: "How many times its own baseline (median) the p99 latency must be to show a hot partition."}
	minLatency = Param{Name: "min_latency_seconds", Kind: Number, Default: "0.02",
		Doc: "p99 latency under which nothing counts as a hot partition, whatever the baseline."}
	minThrottles = Param{Name: "min_throttles_per_second", Kind: Number, Default: "0.1",
		Doc: "Throttle events per second (averaged over rate_window, or over fast_window for the alerts that read the fast rates) below which a table is not considered throttled."}
	fastWindow = Param{Name: "fast_window", Kind: Duration, Default: "5m",
		Doc: "Window of the rates the fast alerts read (storms, a maximum too low, hot keys, on-demand throttling): one collection cycle at the 5m cadence, five at 1m, so that a page comes minutes after the first throttled minute reaches the exporter. It must be a multiple of the collection interval."}
	latencyBaselineWindow = Param{Name: "latency_baseline_window", Kind: Duration, Default: "1d",
		Doc: "Window of the p99 latency baseline (its median, so that recurring episodes do not raise it)."}
)

// Pack returns the alert pack: recording rules and one group of alerts per
// concern (capacity, cost and mode, TTL, exporter health). Each alert maps to
// a failure mode of the domain brief and has a runbook in docs/runbooks.
func Pack() []Group {
	groups := []Group{
		{Name: "dynamodb-records", File: "records.rules.yml", Rules: records()},
		{Name: "dynamodb-capacity", File: "capacity.rules.yml", Rules: capacityAlerts()},
		{Name: "dynamodb-cost-and-mode", File: "cost.rules.yml", Rules: costAlerts()},
		{Name: "dynamodb-ttl", File: "ttl.rules.yml", Rules: ttlAlerts()},
		{Name: "dynamodb-exporter", File: "exporter.rules.yml", Rules: exporterAlerts()},
	}
	for _, g := range groups {
		for i := range g.Rules {
			g.Rules[i].Expr = perExporter(g.Rules[i].Expr)
		}
	}
	return groups
}

// targetLabels are the labels Prometheus gives every series it scrapes
// (job and instance of the scrape target): they name the exporter that
// reported a figure.
var targetLabels = []string{"job", "instance"}

// groupingList matches a non-empty `by (...)` or `on (...)` label list.
var groupingList = regexp.MustCompile(`\b(by|on)(\s*)\(([^()]*[^()\s][^()]*)\)`)

// perExporter adds the scrape target's labels (targetLabels) to every
// non-empty by (...) and on (...) list of an expression, so that every
// recorded series and every alert keeps the job and instance of the exporter
// that reported it. Two exporters that read the same tables (an HA pair)
// then raise one alert each, with each its own figure, instead of a sum of
// both (throttles counted twice) or a many-to-many error on a one-to-one
// join; and Alertmanager can silence the alerts of one exporter when its
// target is down (DynamoDBExporterDown) without silencing its twin's.
// without (...) and ignoring (...) lists keep them already; group_left and
// group_right lists are not grouping lists; an empty list is left as it is.
func perExporter(expr string) string {
	return groupingList.ReplaceAllStringFunc(expr, func(m string) string {
		sub := groupingList.FindStringSubmatch(m)
		var names []string
		for _, n := range strings.Split(sub[3], ",") {
			names = append(names, strings.TrimSpace(n))
		}
		for _, l := range targetLabels {
			if !slices.Contains(names, l) {
				names = append(names, l)
			}
		}
		return sub[1] + sub[2] + "(" + strings.Join(names, ", ") + ")"
	})
}

// records are the recording rules the alerts and dashboards share: rates of
// consumed capacity and throttles, and utilization against provisioned
// capacity and against the auto-scaling maximum.
func records() []Rule {
	p := []Param{rateWindow}
	return []Rule{
		{Record: "dynamodb:consumed_read_capacity_units:rate", Params: p, Expr: stepRate("dynamodb_consumed_read_capacity_units_total")},
		{Record: "dynamodb:consumed_write_capacity_units:rate", Params: p, Expr: stepRate("dynamodb_consumed_write_capacity_units_total")},
		{Record: "dynamodb:throttle_events_by_cause:rate", Params: p, Expr: stepRate("dynamodb_throttle_events_by_cause_total")},
		// The fast rates: the same counters over fast_window, for the alerts
		// that must page within minutes. The aggregate counts every throttle
		// of a table, GSI back-pressure included (no cause metric of its own).
		{Record: "dynamodb:throttle_events:rate_fast", Params: []Param{fastWindow}, Expr: fastRate("dynamodb_throttle_events_total")},
		{Record: "dynamodb:throttle_events:rate", Params: p, Expr: stepRate("dynamodb_throttle_events_total")},
		// The write throttle events of an index build (present only while
		// the index is CREATING).
		{Record: "dynamodb:gsi_backfill_throttle_events:rate", Params: p, Expr: stepRate("dynamodb_gsi_backfill_throttle_events_total")},
		{Record: "dynamodb:throttle_events_by_cause:rate_fast", Params: []Param{fastWindow}, Expr: fastRate("dynamodb_throttle_events_by_cause_total")},
		{Record: "dynamodb:read_utilization:ratio",
			Expr: `dynamodb:consumed_read_capacity_units:rate
  / on (account, region, table, index)
dynamodb_provisioned_read_capacity_units[[sel]]`},
		{Record: "dynamodb:write_utilization:ratio",
			Expr: `dynamodb:consumed_write_capacity_units:rate
  / on (account, region, table, index)
dynamodb_provisioned_write_capacity_units[[sel]]`},
		// Consumed capacity against the auto-scaling maximum, by dimension:
		// above the target utilization, the auto-scaler wants more than max.
		{Record: "dynamodb:autoscaling_max_utilization:ratio",
			Expr: `label_replace(dynamodb:consumed_read_capacity_units:rate, "dimension", "read", "", "")
  / on (account, region, table, index, dimension)
dynamodb_autoscaling_max_capacity_units[[sel "dimension=\"read\""]]
or
label_replace(dynamodb:consumed_write_capacity_units:rate, "dimension", "write", "", "")
  / on (account, region, table, index, dimension)
dynamodb_autoscaling_max_capacity_units[[sel "dimension=\"write\""]]`},
		// TTL deletions per second over the last hour, per table: the steps
		// of the counter counted exactly, and nothing for a series younger
		// than an hour (a partial hour would read as a low rate and drag the
		// baseline of DynamoDBTTLDeletingLiveData down).
		{Record: "dynamodb:ttl_deleted_items:rate1h", Expr: ttlDeletedRate("1h", 3600)},
		// The same over the last 30 minutes: the third branch of
		// DynamoDBTTLDeletingLiveData, which must page within the hour of
		// the first lost item although TTL deletes minutes after expiry.
		{Record: "dynamodb:ttl_deleted_items:rate30m", Expr: ttlDeletedRate("30m", 1800)},
	}
}

// ttlDeletedRate is the TTL deletions per second over window (of seconds
// seconds), per table: the steps of the counter counted exactly, nothing
// for a series younger than the window, and rate()'s reading across a
// reset (an exporter restart).
func ttlDeletedRate(window string, seconds int) string {
	return fmt.Sprintf(`sum by (account, region, table) (
  (
    (dynamodb_ttl_deleted_items_total[[sel]] - dynamodb_ttl_deleted_items_total[[sel]] offset %[1]s) >= 0
    unless resets(dynamodb_ttl_deleted_items_total[[sel]][%[1]s]) > 0
  ) / %[2]d
  or
  (rate(dynamodb_ttl_deleted_items_total[[sel]][%[1]s]) and dynamodb_ttl_deleted_items_total[[sel]] offset %[1]s)
)`, window, seconds)
}

// stepRate is the per-second rate of an exporter counter over rate_window.
// The exporter's counters step once per collection cycle (every 5 minutes at
// the 5m cadence) while Prometheus scrapes them more often, so rate() over a
// window of two cycles sees one step or two depending on the phase and,
// extrapolating, swings between 0.56 and 1.11 times the true rate every
// cycle: an alert near its threshold resets its "for" each cycle, and
// consumed against the auto-scaling maximum never stays above the target.
// The difference with the value one window ago counts every step in the
// window exactly at any cadence that divides it; rate() takes over for a
// series younger than the window and across a counter reset (exporter
// restart).
func stepRate(metric string) string {
	return `(
  (
    ` + metric + `[[sel]] - ` + metric + `[[sel]] offset [[.P.rate_window]]
  ) >= 0
  unless resets(` + metric + `[[sel]][[rng .P.rate_window]]) > 0
) / [[seconds .P.rate_window]]
or
rate(` + metric + `[[sel]][[rng .P.rate_window]])`
}

// fastRate is stepRate over fast_window.
func fastRate(metric string) string {
	return strings.ReplaceAll(stepRate(metric), ".P.rate_window", ".P.fast_window")
}

// byKind puts the read and write figures of a pair of per-dimension series
// into one vector labelled kind, as the throttle counters are.
func byKind(read, write string) string {
	return `(
  label_replace(` + read + `, "kind", "read", "", "")
  or
  label_replace(` + write + `, "kind", "write", "", "")
)`
}

// fastDemand is, per table or GSI and kind, the demand the fast alerts can
// see: the consumed rate (slow tier: up to 13 minutes old) plus the throttle
// events of the fast window (each event a request of at least one unit), so
// a lower bound of what the table was asked for. A table whose consumed
// rate is not known yet counts its throttles alone.
const fastDemand = `(
  sum by (account, region, table, index, kind) (dynamodb:throttle_events:rate_fast)
  + on (account, region, table, index, kind)
  (
    ` + `label_replace(dynamodb:consumed_read_capacity_units:rate, "kind", "read", "", "")
    or
    label_replace(dynamodb:consumed_write_capacity_units:rate, "kind", "write", "", "")
    or
    sum by (account, region, table, index, kind) (dynamodb:throttle_events:rate_fast) * 0
  )
)`

// previousPeak is, per table or GSI and kind, the "previous peak" an
// on-demand table absorbs twice of at once: the highest consumed rate
// Prometheus holds for the day before the last half hour (a 10-minute
// average, as the demand it is compared with). While Prometheus holds none
// above zero (its first half hour; the first consumed rates of a replay or
// a restart can be zero until CloudWatch's first datapoint), it is the
// exporter's figure from CloudWatch's history instead: the highest
// per-second consumed of 30 days, the highest minute of the last 7
// (dynamodb_capacity_peak_consumed_units_per_second), there from the
// exporter's first capacity cycle, so that a crowd in that half hour is
// told from a hot key. A minute's peak is above the 10-minute averages of
// the same traffic, so the fallback calls fewer crowds, never more.
// Without either, key-range throttling is named a hot key.
const previousPeak = `(
  max by (account, region, table, index, kind) (
    label_replace(max_over_time(dynamodb:consumed_read_capacity_units:rate[1d] offset 30m), "kind", "read", "", "")
    or
    label_replace(max_over_time(dynamodb:consumed_write_capacity_units:rate[1d] offset 30m), "kind", "write", "", "")
  ) > 0
  or on (account, region, table, index, kind)
  max by (account, region, table, index, kind) (
    label_replace(dynamodb_capacity_peak_consumed_units_per_second[[sel]], "kind", "$1", "dimension", "(.*)")
  )
)`

// flashCrowd is, per on-demand table or GSI and kind, the demand over the
// previous peak where it exceeds flash_crowd_factor times it while the
// table throttles by key range or account quota: a flash crowd beyond what
// on-demand absorbs at once, not a hot key.
const flashCrowd = `(
  ` + fastDemand + `
    / on (account, region, table, index, kind)
  (` + previousPeak + ` > 0)
  > [[.P.flash_crowd_factor]]
  and on (account, region, table, index, kind)
  sum by (account, region, table, index, kind) (
    dynamodb:throttle_events_by_cause:rate_fast{cause=~"key_range_throughput|account_limit"}
  ) > [[.P.min_throttles_per_second]]
  and on (account, region, table)
  dynamodb_table_info[[sel "billing_mode=\"PAY_PER_REQUEST\""]]
)`

var flashCrowdFactor = Param{Name: "flash_crowd_factor", Kind: Number, Default: "2",
	Doc: "Demand over the previous peak (the highest consumed rate of the day before the last half hour; in Prometheus's first half hour, the 30-day history's highest minute, dynamodb_capacity_peak_consumed_units_per_second) beyond which key-range throttling on an on-demand table is a flash crowd, not a hot key: on-demand absorbs up to twice its previous peak at once."}

// dimensionOf turns a kind label into a dimension label.
func dimensionOf(expr string) string {
	return `label_replace(` + expr + `, "dimension", "$1", "kind", "(.*)")`
}

func capacityAlerts() []Rule {
	return []Rule{
		{
			Alert: "DynamoDBThrottlingStorm", Severity: Critical, For: "1m",
			Params: []Param{fastWindow, rateWindow,
				{Name: "min_throttled_share", Kind: Number, Default: "0.2", Doc: "Share of a table's demand (throttle events over throttle events plus consumed units, a lower bound of the share of requests) above which throttling is a storm."},
				{Name: "min_storm_events_per_second", Kind: Number, Default: "1", Doc: "Throttle events per second (over fast_window) below which throttling is too small to page, whatever its share."},
			},
			// Every cause, GSI back-pressure included: the aggregate counter.
			// A storm lasts: at the 1m cadence the counter must have stepped
			// in at least 3 of the last 4 minutes (a burst of a minute or two
			// is left to the slower alerts); at the 5m cadence, where it steps
			// once a cycle, the share over rate_window must cross with
			// throttles in each of the last two fast windows (two cycles),
			// which a burst of two minutes meets for one evaluation at most.
			Expr: `(
  sum by (account, region, table, index, kind) (dynamodb:throttle_events:rate_fast)
    / on (account, region, table, index, kind)
  ` + fastDemand + `
  > [[.P.min_throttled_share]]
  and on (account, region, table, index, kind)
  sum by (account, region, table, index, kind) (
    sum_over_time(((dynamodb_throttle_events_total[[sel]] - dynamodb_throttle_events_total[[sel]] offset 1m) > bool 0)[4m:1m])
  ) >= 3
or
  sum by (account, region, table, index, kind) (dynamodb:throttle_events:rate)
    / on (account, region, table, index, kind)
  ` + strings.ReplaceAll(fastDemand, ":rate_fast", ":rate") + `
  > [[.P.min_throttled_share]]
  and on (account, region, table, index, kind)
  sum by (account, region, table, index, kind) (dynamodb_throttle_events_total[[sel]] - dynamodb_throttle_events_total[[sel]] offset [[.P.fast_window]]) > 0
  and on (account, region, table, index, kind)
  sum by (account, region, table, index, kind) (dynamodb_throttle_events_total[[sel]] offset [[.P.fast_window]] - dynamodb_throttle_events_total[[sel]] offset [[double .P.fast_window]]) > 0
)
and on (account, region, table, index, kind)
sum by (account, region, table, index, kind) (dynamodb:throttle_events:rate_fast) > [[.P.min_storm_events_per_second]]`,
			Summary: "A DynamoDB table or index throttles a large share of its requests.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`throttles at least {{ $value | humanizePercentage }} of its {{ $labels.kind }} demand (throttle events against throttle events plus consumed units, over the fast window, or over the rate window at the 5m cadence): ` +
				`callers are failing now. The cause-specific alerts (provisioned capacity, auto-scaling maximum, hot key, on-demand maximum, flash crowd) say why.`,
		},
		{
			Alert: "DynamoDBProvisionedThroughputThrottling", Severity: Warning, For: "5m",
			Params: []Param{minThrottles},
			Expr: `sum by (account, region, table, index, kind) (
  dynamodb:throttle_events_by_cause:rate{cause="provisioned_throughput"}
) > [[.P.min_throttles_per_second]]
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PROVISIONED\""]]`,
			Summary: "A provisioned DynamoDB table or index throttles for lack of provisioned capacity.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`throttles {{ $value | humanize }} {{ $labels.kind }} events/s (average over the rate window) for lack of provisioned capacity: ` +
				`auto-scaling does not follow the traffic (it acts after 2 minutes above target, then takes minutes to apply), or the table has none.`,
		},
		{
			Alert: "DynamoDBAutoScalingMaxTooLow", Severity: Warning, For: "2m",
			Params: []Param{minThrottles, fastWindow},
			// Three ways to see a maximum below demand. Live and fast: what
			// the table is provisioned at plus what it throttles for lack of
			// capacity (a lower bound of demand) exceeds the maximum, which
			// a spike of minutes shows long before capacity climbs to max in
			// steps. Live and slow: consumed capacity against the maximum
			// above the target, or provisioned at max while throttling, held
			// 5 minutes. From the history: the capacity collector's
			// simulation of the table's own policy throttled at max in the
			// last 7 days.
			Expr: `(
  (
    (
      label_replace(dynamodb_provisioned_read_capacity_units[[sel]], "dimension", "read", "", "")
      or
      label_replace(dynamodb_provisioned_write_capacity_units[[sel]], "dimension", "write", "", "")
    )
    + on (account, region, table, index, dimension)
    ` + dimensionOf(`sum by (account, region, table, index, kind) (
      dynamodb:throttle_events_by_cause:rate_fast{cause="provisioned_throughput"}
    ) > [[.P.min_throttles_per_second]]`) + `
  )
    / on (account, region, table, index, dimension)
  dynamodb_autoscaling_max_capacity_units[[sel]] > 1
or
  min_over_time(dynamodb:autoscaling_max_utilization:ratio[5m])
    > on (account, region, table, index, dimension)
  dynamodb_autoscaling_target_utilization_ratio[[sel]]
or
  (
    label_replace(dynamodb_provisioned_read_capacity_units[[sel]], "dimension", "read", "", "")
    or
    label_replace(dynamodb_provisioned_write_capacity_units[[sel]], "dimension", "write", "", "")
  )
    / on (account, region, table, index, dimension)
  dynamodb_autoscaling_max_capacity_units[[sel]] >= 1
  and on (account, region, table, index, dimension)
  ` + dimensionOf(`sum by (account, region, table, index, kind) (
    min_over_time(dynamodb:throttle_events_by_cause:rate{cause="provisioned_throughput"}[5m])
  ) > [[.P.min_throttles_per_second]]`) + `
or
  sum by (account, region, table, index, dimension) (
    dynamodb_capacity_diagnosis_throttled_units[[sel "window=\"7d\", cause=\"at_max\""]]
    or
    dynamodb_capacity_diagnosis_saturated_seconds[[sel "window=\"7d\", cause=\"at_max\""]]
  ) > 0
)
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PROVISIONED\""]]`,
			Summary: "Demand exceeds the auto-scaling maximum of a DynamoDB table or index.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`{{ $labels.dimension }}: demand is above what its auto-scaling maximum allows ({{ $value | humanize }}: provisioned plus throttled against the maximum, ` +
				`consumed against the maximum, or, from the capacity collector's 7-day simulation of the table's own policy, the units throttled at the maximum): ` +
				`auto-scaling cannot raise capacity any further; raise the maximum (or pre-warm before planned events).`,
		},
		{
			Alert: "DynamoDBHotPartition", Severity: Warning, For: "2m",
			Params: []Param{minThrottles, fastWindow, flashCrowdFactor},
			// Not while the table, or any of its indexes, in either kind,
			// is in a flash crowd: the crowd's other kind or index throttles
			// by partition too, often too little to show the crowd in its
			// own demand (consumed capacity arrives on the slow tier, the
			// throttles on the fast one), and the cause is the crowd.
			Expr: `sum by (account, region, table, index, kind) (
  dynamodb:throttle_events_by_cause:rate_fast{cause="key_range_throughput"}
) > [[.P.min_throttles_per_second]]
unless on (account, region, table)
` + flashCrowd,
			Summary: "A DynamoDB table or index throttles on a hot partition (key range).",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`has {{ $value | humanize }} key-range {{ $labels.kind }} throttle events/s (average over the fast window) while its total demand stays within what it serves: ` +
				`one partition exceeds 3,000 RCU or 1,000 WCU. The capacity mode does not fix this; the key design does.`,
		},
		{
			Alert: "DynamoDBOnDemandFlashCrowd", Severity: Warning, For: "2m",
			Params:  []Param{minThrottles, fastWindow, flashCrowdFactor},
			Expr:    flashCrowd,
			Summary: "An on-demand DynamoDB table throttles a flash crowd beyond what it absorbs at once.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}): ` +
				`{{ $labels.kind }} demand is {{ $value | humanize }} times its previous peak and the table throttles by partition: on-demand serves up to twice its previous peak at once ` +
				`and splits partitions over the next minutes. This is a flash crowd, not a hot key: pre-warm (raise the warm throughput) before such events.`,
		},
		{
			Alert: "DynamoDBOnDemandMaxThroughputReached", Severity: Warning, For: "2m",
			Params: []Param{minThrottles, fastWindow},
			Expr: `sum by (account, region, table, index, kind) (
  dynamodb:throttle_events_by_cause:rate_fast{cause="max_on_demand_throughput"}
) > [[.P.min_throttles_per_second]]`,
			Summary: "An on-demand DynamoDB table or index throttles at the maximum throughput its owner configured.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`throttles {{ $value | humanize }} {{ $labels.kind }} events/s (average over the fast window) at its configured on-demand maximum throughput: ` +
				`a setting, not a hot key nor a lack of capacity. Raise the maximum, or accept the cap it was set for.`,
		},
		{
			Alert: "DynamoDBAccountProvisionedCapacityNearQuota", Severity: Warning, For: "15m",
			Params: []Param{
				{Name: "max_account_quota_utilization", Kind: Number, Default: "0.8", Doc: "Share of the account-level quota on provisioned capacity (every provisioned table and GSI of the region together) above which the region has too little room left to scale: AWS's recommended alarm on AccountProvisionedRead/WriteCapacityUtilization and AWS Config's dynamodb-throughput-limit-check both use 80%."},
			},
			// AWS's own figure (CloudWatch AccountProvisioned*Utilization,
			// Maximum, slow tier): exact whatever tables the exporter
			// monitors. Per account, region and dimension, no table: the
			// quota is shared by every provisioned table and GSI. Threshold
			// from AWS's recommended alarms (CloudWatch user guide,
			// "Recommended alarms", DynamoDB) and AWS Config's
			// dynamodb-throughput-limit-check (default 80 percent). The
			// gauge moves only with UpdateTable (auto-scaling, operators):
			// for 15m holds two slow-tier readings, so a short scale-out
			// that is scaled back in does not raise a ticket.
			Expr:    `dynamodb_account_provisioned_capacity_utilization_ratio[[sel]] > [[.P.max_account_quota_utilization]]`,
			Summary: "The provisioned capacity of a DynamoDB account nears its account-level quota in a region.",
			Description: `The provisioned {{ $labels.dimension }} capacity of every provisioned table and GSI of {{ $labels.account }} in {{ $labels.region }} is ` +
				`{{ $value | humanizePercentage }} of the account-level quota` +
				`{{ with printf "dynamodb_quota_account_max_capacity_units{account=%q, region=%q, dimension=%q}" $labels.account $labels.region $labels.dimension | query }} ({{ . | first | value | humanize }} units){{ end }} ` +
				`(CloudWatch's account-level utilization, Maximum): once the total reaches the quota, UpdateTable and auto-scaling cannot raise any table or GSI of the region, ` +
				`so capacity a table needs in its next rise cannot be reached. Request an account-level quota increase (hours to days) or free provisioned capacity on other tables.`,
		},
		{
			Alert: "DynamoDBAutoScalingMaxAboveTableQuota", Severity: Warning, For: "15m",
			// The autoscaling collector exports the ratio only while a
			// scalable target's maximum is above the table-level quota
			// DescribeLimits answered (the quota caps the table and each GSI
			// on its own: "Quotas in Amazon DynamoDB"). Only provisioned
			// tables: an on-demand table's leftover scalable target does not
			// scale.
			Expr: `dynamodb_autoscaling_max_over_table_quota_ratio[[sel]] > 1
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PROVISIONED\""]]`,
			Summary: "The auto-scaling maximum of a DynamoDB table or index is above the table-level quota, which caps it first.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) {{ $labels.dimension }}: ` +
				`its auto-scaling maximum is {{ $value | humanize }} times the table-level quota` +
				`{{ with printf "dynamodb_quota_table_max_capacity_units{account=%q, region=%q, dimension=%q}" $labels.account $labels.region $labels.dimension | query }} ({{ . | first | value | humanize }} units per table and per GSI){{ end }}: ` +
				`auto-scaling stops at the quota (UpdateTable above it is refused with LimitExceededException), so the capacity planned between the quota and the maximum cannot be reached when it is needed. ` +
				`Request a table-level quota increase before the event the maximum was sized for (AWS grants it in hours to days), or lower the maximum to the quota.`,
		},
		{
			Alert: "DynamoDBGSIBackfillThrottling", Severity: Warning, For: "5m",
			Params: []Param{minThrottles},
			// The build of an index being added to the table and the
			// table's ongoing writes share the new index's write capacity;
			// beyond it both are throttled, the base table's writes included
			// ("Managing Global Secondary Indexes", Amazon DynamoDB
			// Developer Guide), and the build slows down. The exporter
			// requests OnlineIndexThrottleEvents only while DescribeTable
			// reports the index CREATING, so the series, and the alert, end
			// with the build.
			Expr:    `sum by (account, region, table, index) (dynamodb:gsi_backfill_throttle_events:rate) > [[.P.min_throttles_per_second]]`,
			Summary: "The build of a DynamoDB index being added to a table throttles, and holds back the table's writes.",
			Description: `{{ $labels.table }} index {{ $labels.index }} ({{ $labels.account }}, {{ $labels.region }}): the build (backfill) of the index being added ` +
				`throttles {{ $value | humanize }} write events/s (average over the rate window)` +
				`{{ with printf "dynamodb_gsi_backfill_progress_ratio{account=%q, region=%q, table=%q, index=%q}" $labels.account $labels.region $labels.table $labels.index | query }} at {{ . | first | value | humanizePercentage }} done{{ end }}: ` +
				`the build and the table's writes share the new index's write capacity, so the table's own writes are throttled too and the build takes longer. ` +
				`Raise the index's write capacity (UpdateTable works during the build), or move the build to a quiet hour.`,
		},
		{
			Alert: "DynamoDBReplicationLagging", Severity: Warning, For: "30m",
			Params: []Param{
				{Name: "max_replication_latency", Kind: Duration, Default: "1m", Doc: "Replication latency of a global table to a receiving region (CloudWatch ReplicationLatency, Average) above which the replica there lags: AWS says it should be fairly constant in normal operation, typically a second or two; a minute means the replica serves data a minute old and concurrent writes in two regions settle by last writer wins that much later."},
			},
			// CloudWatch ReplicationLatency per (table, receiving region),
			// slow tier (a reading every 10 minutes): for 30m holds three
			// readings, so one slow batch does not open a ticket. Causes
			// (AWS, "Monitoring global tables"): replicas whose write
			// capacity differs (a provisioned replica throttling replicated
			// writes), a degraded region. Gone with the table's replicas.
			Expr:    `dynamodb_replication_latency_seconds[[sel]] > [[seconds .P.max_replication_latency]]`,
			Summary: "A DynamoDB global table replicates to one of its regions minutes behind.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): writes reach its replica in {{ $labels.receiving_region }} ` +
				`{{ $value | humanizeDuration }} late (CloudWatch ReplicationLatency, average): reads there return data that old, and writes made in both regions within that time settle by last writer wins. ` +
				`Check that the replica's write capacity matches this region's (a provisioned replica throttling replicated writes), then whether the receiving region is degraded; if it is, move that region's traffic to another replica.`,
		},
		{
			Alert: "DynamoDBLatencyAboveBaseline", Severity: Warning, For: "10m",
			Params: []Param{
				latencyFactor, minLatency, latencyBaselineWindow},
			Expr: `dynamodb_successful_request_latency_p99_seconds[[sel]]
  > [[.P.latency_factor]] * quantile_over_time(0.5, dynamodb_successful_request_latency_p99_seconds[[sel]][[rng .P.latency_baseline_window]] offset 1h)
and
dynamodb_successful_request_latency_p99_seconds[[sel]] > [[.P.min_latency_seconds]]`,
			Summary: "The p99 latency of a DynamoDB table is several times its own baseline.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}) {{ $labels.operation }}: p99 server-side latency ` +
				`{{ $value | humanizeDuration }} over the last complete minute, several times its baseline (median p99 over the baseline window, ending an hour ago): ` +
				`a hot partition on an on-demand table shows here before it throttles.`,
		},
		{
			Alert: "DynamoDBTargetUtilizationTooHigh", Severity: Warning, For: "",
			Params: []Param{
				{Name: "max_target_utilization", Kind: Number, Default: "0.8", Doc: "Target utilization above which scaling has no room for its own delay."},
				{Name: "throttle_window", Kind: Duration, Default: "1d", Doc: "Window in which provisioned-throughput throttles must have happened."},
			},
			// Live: throttled for lack of capacity within the window, held
			// an hour. From the history, at the first capacity evaluation:
			// the capacity collector's simulation of the table's own policy
			// shows units over the last 30 days that the same policy at a
			// 70% target serves (the diagnosis cause "target"). No `for`:
			// both branches already hold a window (a day of throttles, 30
			// days of history) and the ticket is due at the first capacity
			// evaluation.
			Expr: `dynamodb_autoscaling_target_utilization_ratio[[sel]] > [[.P.max_target_utilization]]
and on (account, region, table, index, dimension)
(
  ` + dimensionOf(`sum by (account, region, table, index, kind) (
    increase(dynamodb_throttle_events_by_cause_total[[sel "cause=\"provisioned_throughput\""]][[rng .P.throttle_window]])
  ) > 0`) + `
  or
  sum by (account, region, table, index, dimension) (
    dynamodb_capacity_diagnosis_throttled_units[[sel "window=\"30d\", cause=\"target\""]]
    or
    dynamodb_capacity_diagnosis_saturated_seconds[[sel "window=\"30d\", cause=\"target\""]]
  ) > 0
)`,
			Summary: "A DynamoDB auto-scaling target utilization is set so high that scale-outs throttle.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) ` +
				`targets {{ $value | humanizePercentage }} {{ $labels.dimension }} utilization and throttled for lack of provisioned capacity within the throttle window, ` +
				`or the capacity collector's simulation of its policy over the last 30 days throttles, or runs at capacity, where a 70% target would have served the rise ` +
				`(latest at {{ with printf "max(dynamodb_capacity_diagnosis_last_throttled_timestamp_seconds{account=%q, region=%q, table=%q, index=%q, dimension=%q, window=\"30d\", cause=\"target\"})" $labels.account $labels.region $labels.table $labels.index $labels.dimension | query }}{{ . | first | value | humanizeTimestamp }}{{ else }}not in the history{{ end }}): ` +
				`at this target every rise throttles before auto-scaling acts. Keep about 70%.`,
		},
		{
			Alert: "DynamoDBAutoScalingTooSlowForSpikes", Severity: Warning, For: "",
			Params: []Param{
				{Name: "min_reaction_throttled_units", Kind: Number, Default: "1000", Doc: "Units the simulation of the table's own policy throttles over 30 days on rises faster than auto-scaling reacts, below which the rises are not worth a schedule."},
				{Name: "min_reaction_saturated_time", Kind: Duration, Default: "10m", Doc: "Time over 30 days in which consumed capacity reached the simulated capacity on rises faster than auto-scaling reacts (how throttling shows in a history that real throttling capped), below which the rises are not worth a schedule."},
			},
			// From the history only: the capacity collector's simulation of
			// the table's own policy throttles on rises that even a 70%
			// target does not serve, away from the maximum: demand climbs
			// faster than auto-scaling reacts (2 minutes above target, then
			// minutes to apply). Scheduled scaling or pre-warming fixes it.
			Expr: `(
  sum by (account, region, table, index, dimension) (
    dynamodb_capacity_diagnosis_throttled_units[[sel "window=\"30d\", cause=\"reaction\""]]
  ) > [[.P.min_reaction_throttled_units]]
  or
  sum by (account, region, table, index, dimension) (
    dynamodb_capacity_diagnosis_saturated_seconds[[sel "window=\"30d\", cause=\"reaction\""]]
  ) >= [[seconds .P.min_reaction_saturated_time]]
)
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PROVISIONED\""]]`,
			Summary: "The traffic of a DynamoDB table rises faster than its auto-scaling reacts.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) {{ $labels.dimension }}: ` +
				`over the last 30 days, the capacity collector's simulation of its own auto-scaling policy throttles on rises faster than auto-scaling reacts ({{ $value | humanize }} units throttled, or seconds at capacity where real throttling capped the history) ` +
				`(the latest at {{ with printf "max(dynamodb_capacity_diagnosis_last_throttled_timestamp_seconds{account=%q, region=%q, table=%q, index=%q, dimension=%q, window=\"30d\", cause=\"reaction\"})" $labels.account $labels.region $labels.table $labels.index $labels.dimension | query }}{{ . | first | value | humanizeTimestamp }}{{ end }}), ` +
				`away from its maximum and even at a 70% target: raise the minimum before the rise with a scheduled action, or pre-warm before events.`,
		},
		{
			Alert: "DynamoDBAutoScalingTooSensitive", Severity: Info, For: "1h",
			Params: []Param{
				{Name: "min_scalings_per_day", Kind: Number, Default: "24", Doc: "Scaling decisions a day (simulated over the last 7 days with the table's own policy) above which auto-scaling is busy."},
				{Name: "max_utilization_of_target", Kind: Number, Default: "0.7", Doc: "Mean utilization (demand over provisioned capacity, 7 days), as a share of the policy's target utilization, under which a busy auto-scaling buys nothing: on every scenario of the replay and validation sets a policy that tracks its target holds 0.84 of it or more (0.59 at a 70% target), one that flaps 0.59 or less (0.41 at 70%)."},
			},
			// Relative to the table's own target: the utilization a policy
			// achieves follows its target (about 0.6 at 70%, 0.75 at 85%),
			// so a fixed level would judge a 50% target's healthy policy
			// low and miss a 90% target's flapping one.
			Expr: `dynamodb_capacity_simulated_scaling_events_per_day[[sel "window=\"7d\""]] > [[.P.min_scalings_per_day]]
and on (account, region, table, index, dimension)
(
  dynamodb_capacity_simulated_utilization_ratio[[sel "window=\"7d\""]]
    < on (account, region, table, index, dimension)
  [[.P.max_utilization_of_target]] * dynamodb_autoscaling_target_utilization_ratio[[sel]]
)`,
			Summary: "DynamoDB auto-scaling changes capacity many times a day while utilization stays low.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}) {{ $labels.dimension }}: ` +
				`its auto-scaling policy makes {{ $value | humanize }} scaling decisions a day (simulated over the last 7 days) while mean utilization stays low: ` +
				`the policy reacts to noise (short cooldowns, a minimum far below the daily base). Lengthen the scale-in cooldown or raise the minimum.`,
		},
	}
}

func costAlerts() []Rule {
	return []Rule{
		// A hot key, per table: key-range throttles above
		// DynamoDBHotPartition's threshold over the rate window held 10
		// minutes, or the p99 latency of an operation above
		// DynamoDBLatencyAboveBaseline's baseline held 15 minutes: held
		// longer than those alerts' own `for`, so that a blip seen by the
		// fast alerts does not hold back a day of cost advice.
		// The cost advice looks for it over the last day; recorded every
		// evaluation, so that the alert reads a day of it without a
		// subquery.
		{Record: "dynamodb:hot_key_signals:count", Params: []Param{minThrottles, latencyFactor, minLatency, latencyBaselineWindow},
			Expr: `count by (account, region, table) (
  min_over_time(dynamodb:throttle_events_by_cause:rate{cause="key_range_throughput"}[10m]) > [[.P.min_throttles_per_second]]
  or
  (
    min_over_time(dynamodb_successful_request_latency_p99_seconds[[sel]][15m])
      > [[.P.latency_factor]] * quantile_over_time(0.5, dynamodb_successful_request_latency_p99_seconds[[sel]][[rng .P.latency_baseline_window]] offset 1h)
    and
    min_over_time(dynamodb_successful_request_latency_p99_seconds[[sel]][15m]) > [[.P.min_latency_seconds]]
  )
)`},
		{
			Alert: "DynamoDBOnDemandSustainedWorkload", Severity: Info, For: "6h",
			Params: []Param{minMonthlySpend,
				{Name: "min_time_on_demand", Kind: Duration, Default: "7d", Doc: "How long a table must have stayed on demand since its last switch to on-demand before it gets cost advice: a mode decision needs a week of history, and a table that switches back and forth gets DynamoDBBillingModeChurn instead of advice that alternates with each switch."},
			},
			// One decision, one place: the capacity collector decides
			// (minimum saving, minimum traffic, and its simulation of
			// provisioned capacity throttling no more than it tolerates:
			// collectors.capacity.min_monthly_saving, min_request_rate,
			// max_throttled_ratio), and the alert repeats its verdict when
			// both windows agree: a surge that ended and fills only the
			// 30-day window is not a sustained workload. The value is the
			// 30-day saving, at least min_monthly_spend_dollars (the same
			// default as the collector's minimum: a stricter pack-wide
			// floor only). A table that switched to on-demand less than
			// min_time_on_demand ago, or with a hot key within the last day,
			// gets no advice.
			Expr: `dynamodb_capacity_monthly_provisioned_saving_dollars[[sel "window=\"30d\""]] >= [[.P.min_monthly_spend_dollars]]
and on (account, region, table)
dynamodb_capacity_recommendation_info[[sel "window=\"30d\", recommendation=\"switch_to_provisioned\""]]
and on (account, region, table)
dynamodb_capacity_recommendation_info[[sel "window=\"7d\", recommendation=\"switch_to_provisioned\""]]
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PAY_PER_REQUEST\""]]
unless on (account, region, table)
(time() - dynamodb_last_switch_to_on_demand_timestamp_seconds[[sel]]) < [[seconds .P.min_time_on_demand]]
unless on (account, region, table)
max_over_time(dynamodb:hot_key_signals:count[1d])`,
			Summary: "An on-demand DynamoDB table carries a sustained workload that provisioned capacity would serve for less.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}) has been on demand for at least a week, and the capacity collector recommends provisioned capacity ` +
				`over both the last 7 and the last 30 days: with target-tracking auto-scaling it would save {{ $value | humanize }} USD a month (30-day figure) without throttling more than tolerated. ` +
				`Tables with a hot key within the last day (key-range throttles, or a p99 latency several times its median, as DynamoDBHotPartition and DynamoDBLatencyAboveBaseline see them) are left out: the mode does not fix a hot key.`,
		},
		{
			Alert: "DynamoDBBillingModeChurn", Severity: Warning,
			Params: []Param{
				{Name: "churn_window", Kind: Duration, Default: "3d", Doc: "Window in which switches to on-demand are counted. The history branch reads the capacity collector's count over the same window, which it exports for 1d, 3d, 7d and 14d: another value leaves only the live branch."},
				{Name: "min_switches", Kind: Number, Default: "2", Doc: "Switches to on-demand within the window that make a churn."},
			},
			// Live: the switches seen moving within the window, plus the one
			// the window starts with when it falls inside the window: a young
			// Prometheus (or exporter) still counts the switch it first saw.
			// From the history, at the first capacity evaluation: the
			// switches to on-demand the base table's provisioned-capacity
			// series shows within the window (DescribeTable keeps only the
			// latest one), which also counts those made before the exporter
			// started.
			Expr: `changes(dynamodb_last_switch_to_on_demand_timestamp_seconds[[sel]][[rng .P.churn_window]])
  + (time() - min_over_time(dynamodb_last_switch_to_on_demand_timestamp_seconds[[sel]][[rng .P.churn_window]]) < bool [[seconds .P.churn_window]])
>= [[.P.min_switches]]
or
max without (to, window) (
  dynamodb_capacity_mode_switches[[sel (print "to=\"on_demand\", window=\"" .P.churn_window "\"")]]
) >= [[.P.min_switches]]`,
			Summary: "A DynamoDB table switches billing mode back and forth.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}) switched to on-demand {{ $value }} times within the churn window: ` +
				`its cost figures mean nothing while it flips, and AWS refuses a fifth switch to on-demand within a rolling 24 hours. Stay provisioned and use scheduled scaling for the daily cycle.`,
		},
		{
			Alert: "DynamoDBModeSwitchRegressed", Severity: Warning,
			Params: []Param{
				{Name: "max_cost_increase", Kind: Number, Default: "0.2", Doc: "Rise of the cost per unit of traffic after a billing-mode switch (over the week before it) beyond which the switch went the wrong way: 0.2 is 20% dearer for the same traffic."},
				{Name: "min_daily_cost_dollars", Kind: Number, Default: "1", Doc: "Cost per day since the switch under which a rise is not worth a ticket."},
			},
			// From the history only, at the first capacity evaluation: the
			// capacity collector judges the latest switch of the last 14
			// days that is at least a day old, from the base table's
			// provisioned-capacity series (which mode, at what capacity,
			// hour by hour) and its consumed units, per unit of traffic (a
			// traffic change is not a regression). No `for`: the figure
			// already covers a day or more, refreshed hourly.
			// A region without list prices has the ratio (it does not
			// depend on the price level) but no daily cost: only a known
			// daily cost under the minimum holds the alert back.
			Expr: `dynamodb_capacity_mode_switch_cost_change_ratio[[sel]] > [[.P.max_cost_increase]]
unless on (account, region, table)
dynamodb_capacity_mode_switch_daily_cost_dollars[[sel "period=\"since\""]] < [[.P.min_daily_cost_dollars]]`,
			Summary: "A DynamoDB billing-mode switch made the table dearer for the same traffic.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}) switched to ` +
				`{{ with printf "dynamodb_capacity_mode_switch_timestamp_seconds{account=%q, region=%q, table=%q}" $labels.account $labels.region $labels.table | query }}{{ . | first | label "to" }} mode at {{ . | first | value | humanizeTimestamp }}{{ else }}another mode{{ end }}: ` +
				`it paid {{ with printf "dynamodb_capacity_mode_switch_daily_cost_dollars{account=%q, region=%q, table=%q, period=\"before\"}" $labels.account $labels.region $labels.table | query }}{{ . | first | value | printf "%.2f" }} USD{{ else }}an unknown amount (no list price for the region){{ end }} a day in the week before and ` +
				`{{ with printf "dynamodb_capacity_mode_switch_daily_cost_dollars{account=%q, region=%q, table=%q, period=\"since\"}" $labels.account $labels.region $labels.table | query }}{{ . | first | value | printf "%.2f" }} USD{{ else }}an unknown amount{{ end }} a day since (base table throughput), ` +
				`{{ $value | humanizePercentage }} more per unit of traffic. A switch meant to save money did the opposite: check the provisioned capacity against the consumed units (a fixed capacity sized "to be safe", no auto-scaling), or switch back.`,
		},
		{
			Alert: "DynamoDBSurgeBecameBaseline", Severity: Info, For: "1h",
			Params: []Param{
				{Name: "min_retention", Kind: Number, Default: "0.7", Doc: "Share of the surge week's baseline still held that makes the shift permanent."},
				{Name: "min_weeks_after_surge", Kind: Number, Default: "4", Doc: "Weeks after the surge peak before the shift is judged."},
			},
			Expr: `dynamodb_capacity_surge_retention_ratio[[sel "index=\"\""]] >= [[.P.min_retention]]
and on (account, region, table, index)
(time() - dynamodb_capacity_surge_peak_timestamp_seconds[[sel]]) > [[.P.min_weeks_after_surge]] * 604800
and on (account, region, table)
dynamodb_table_info[[sel "billing_mode=\"PAY_PER_REQUEST\""]]
unless on (account, region, table)
dynamodb_capacity_recommendation_info[[sel "recommendation=\"keep\", reason_code=~\"simulated_throttling|cheaper\""]]`,
			Summary: "A surge on an on-demand DynamoDB table became its baseline and the mode was not reviewed.",
			// The peak's date lets a reviewer silence this surge until it
			// leaves the capacity collector's history (the runbook says how).
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}) still holds {{ $value | humanizePercentage }} of its surge-week baseline (4-week median) ` +
				`weeks after the surge (peak hour starting {{ with printf "dynamodb_capacity_surge_peak_timestamp_seconds{account=%q, region=%q, table=%q, index=\"\"}" $labels.account $labels.region $labels.table | query }}{{ . | first | value | humanizeTimestamp }}{{ end }}): ` +
				`the shift is permanent, and the on-demand mode chosen for a spike now burns money. Review the mode; once reviewed, silence it as the runbook says.`,
		},
		{
			Alert: "DynamoDBReadWriteRatioDrift", Severity: Info, For: "6h",
			Params: []Param{
				{Name: "max_drift", Kind: Number, Default: "0.3", Doc: "Drift of the 1-day read/write ratio from its 7-day value, and from the same day a week earlier, beyond which capacity is reviewed."},
				{Name: "min_units_per_second", Kind: Number, Default: "1", Doc: "Consumed read plus write units per second under which ratios are noise."},
			},
			// A weekly cycle (a weekend with another mix) moves the 1-day
			// ratio away from the 7-day one every weekend, but not away from
			// the same day a week earlier: both must have drifted. A change
			// one to three weeks old shows in the 7-day ratio against the 3
			// weeks before it (the domain brief's 7-day rolling mix against
			// a 4-week baseline), which the exporter computes from its
			// history at its first evaluation.
			Expr: `(
  abs(dynamodb_capacity_read_write_drift_ratio[[sel]]) > [[.P.max_drift]]
  and on (account, region, table, index)
  abs(dynamodb_capacity_read_write_weekly_drift_ratio[[sel]]) > [[.P.max_drift]]
or
  abs(dynamodb_capacity_read_write_baseline_drift_ratio[[sel]]) > [[.P.max_drift]]
)
and on (account, region, table, index)
(
  dynamodb:consumed_read_capacity_units:rate
    + on (account, region, table, index) dynamodb:consumed_write_capacity_units:rate
) > [[.P.min_units_per_second]]`,
			Summary: "The read/write ratio of a DynamoDB table drifted from its 7-day value.",
			Description: `{{ $labels.table }}{{ with $labels.index }} index {{ . }}{{ end }} ({{ $labels.account }}, {{ $labels.region }}): ` +
				`the read/write ratio drifted {{ $value | humanizePercentage }} (the 1-day ratio from its rolling 7-day value and from the same day a week earlier, so not a weekly cycle; or the 7-day ratio from the 3 weeks before it): a new report, push or query changed the workload. Review the capacity mode.`,
		},
	}
}

func ttlAlerts() []Rule {
	// The sampled items and the share of them without the TTL attribute,
	// per table, for DynamoDBTTLAttributeMissingRising.
	sampled := `sum by (account, region, table) (dynamodb_ttl_sampled_items[[sel]])`
	missingBaseline := `quantile_over_time(0.5, dynamodb:ttl_missing_items:ratio[[rng (print .P.missing_baseline_window ":10m")]] offset 1h)`
	// The base table's item count and its growth over growth_window, for
	// DynamoDBTTLRetentionBehindWrites.
	tableItems := `max by (account, region, table) (dynamodb_items[[sel "index=\"\""]])`
	itemGrowth := `max by (account, region, table) (dynamodb_items[[sel "index=\"\""]] - dynamodb_items[[sel "index=\"\""]] offset [[.P.growth_window]])`
	// The table's age in seconds, and TTL's deletions per second over
	// age_deletion_window: while the counter is younger than the window,
	// its deletions so far spread over the whole window (low, so the
	// condition may hold early; with for as long as the window, the
	// evaluation that fires reads a full window). A counter that never
	// stepped reads 0 beside the item count: TTL deleting nothing at all
	// is the extreme case.
	tableAge := `(time() - max by (account, region, table) (dynamodb_table_creation_timestamp_seconds[[sel]]))`
	// The table's growth now, in items a second: its mean growth since it
	// was created (its items over its age), or, where larger, the items
	// written in the last day at the retention of the newest ones (the
	// share of the last sample's items whose TTL lies within a day below
	// the latest live expiry, times the items: a writer at a steady
	// retention adds that many a day), when the sample read at least
	// min_recent_items of them. A table whose writes grew since its first
	// months, or that was filled slowly from an import, grows faster now
	// than its mean says.
	meanGrowth := tableItems + ` / on (account, region, table) ` + tableAge
	recentGrowth := `(
    ` + tableItems + `
      * on (account, region, table)
    max by (account, region, table) (dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1d\""]] >= [[.P.min_recent_items]])
      / on (account, region, table)
    (` + sampled + ` > 0)
      / 86400
  )`
	growthNow := `(
    ` + recentGrowth + ` > on (account, region, table) ` + meanGrowth + `
    or on (account, region, table)
    ` + meanGrowth + `
  )`
	deletedSoFar := `(
    sum by (account, region, table) (increase(dynamodb_ttl_deleted_items_total[[sel]][[rng .P.age_deletion_window]])) / [[seconds .P.age_deletion_window]]
    or on (account, region, table) 0 * ` + tableItems + `
  )`
	return []Rule{
		// The share of the items of the TTL sampler's last sample that
		// lack the TTL attribute (class missing), per table.
		{Record: "dynamodb:ttl_missing_items:ratio",
			Expr: `sum by (account, region, table) (dynamodb_ttl_sampled_items[[sel "class=\"missing\""]])
  / on (account, region, table)
(` + sampled + ` > 0)`},
		{
			Alert: "DynamoDBTTLValuesNeverExpire", Severity: Warning, For: "1h",
			Params: []Param{{Name: "min_never_expiring_items", Kind: Number, Default: "0", Doc: "Lower bound of never-expiring items above which the alert fires."}},
			Expr: `dynamodb_ttl_never_expiring_items_lower_bound[[sel]] > [[.P.min_never_expiring_items]]
and on (account, region, table)
dynamodb_table_ttl_info[[sel "status=\"ENABLED\""]]`,
			Summary: "Items of a DynamoDB table carry TTL values that TTL will never act on.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): at least {{ $value | humanize }} items (lower bound of the 95% interval) ` +
				`carry a TTL value TTL ignores: a String, milliseconds or finer, or more than five years in the past. They will never be deleted.`,
		},
		{
			Alert: "DynamoDBTTLAttributeNameMismatch", Severity: Warning, For: "1h",
			Params: []Param{
				{Name: "min_candidate_share", Kind: Number, Default: "0.1", Doc: "Share of sampled items carrying another timestamp-like attribute (and not the TTL attribute) above which the alert fires."},
				{Name: "min_candidate_future_share", Kind: Number, Default: "0.5", Doc: "Share of the values of the other attribute that lie in the future (a live writer of expiries) above which the alert fires on any share of items: the sampler names an attribute only when at least 5 sampled items carry it and at least half of the items lacking the TTL attribute do."},
			},
			// The candidate ratio is exported per attribute other than the
			// TTL one; the TTL attribute is joined in as ttl_attribute so
			// that the description can name both. The sampler names no
			// attribute that tracks the clock without ever holding a future
			// time (an updated_at on items kept for good: ttl.ChooseCandidate);
			// the description says whether the named one still holds future
			// times (a live writer) or only past ones (a writer since fixed).
			// A live writer is named on any share: items lacking the TTL
			// attribute while most of them carry a future epoch under one
			// other name are expiries under the wrong name, however new the
			// writer (a third of the new writes on a table of 36-hour items
			// is 1% of the items after two hours); a fixed writer's leftovers
			// need min_candidate_share.
			Expr: `(
  max by (account, region, table, attribute) (dynamodb_ttl_candidate_attribute_items_ratio[[sel]]) >= [[.P.min_candidate_share]]
  or
  max by (account, region, table, attribute) (dynamodb_ttl_candidate_attribute_items_ratio[[sel]])
    and on (account, region, table, attribute)
  max by (account, region, table, attribute) (dynamodb_ttl_candidate_attribute_future_items_ratio[[sel]]) >= [[.P.min_candidate_future_share]]
)
  * on (account, region, table) group_left (ttl_attribute)
max by (account, region, table, ttl_attribute) (
  label_replace(dynamodb_table_ttl_info[[sel "status=~\"ENABLED|ENABLING\""]], "ttl_attribute", "$1", "attribute", "(.+)")
)`,
			Summary: "TTL of a DynamoDB table is enabled on one attribute while many items carry their expiry under another.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): TTL is on ` + "`{{ $labels.ttl_attribute }}`" +
				`; {{ $value | humanizePercentage }} of items carry ` + "`{{ $labels.attribute }}`" + ` instead (share of the TTL sample): ` +
				`TTL never deletes them. ` +
				`{{ with printf "dynamodb_ttl_candidate_attribute_future_items_ratio{account=%q, region=%q, table=%q, attribute=%q}" $labels.account $labels.region $labels.table $labels.attribute | query }}` +
				`{{ if gt (. | first | value) 0.0 }}A writer still uses the wrong attribute name: {{ . | first | value | humanizePercentage }} of those values lie in the future.` +
				`{{ else }}Every one of those values has passed: a writer used the wrong name until it was fixed, and its items need a backfill.{{ end }}` +
				`{{ else }}A writer uses the wrong attribute name.{{ end }}`,
		},
		{
			Alert: "DynamoDBTTLAttributeMissingRising", Severity: Warning, For: "30m",
			Params: []Param{
				{Name: "missing_baseline_window", Kind: Duration, Default: "1d", Doc: "Window of the baseline share of sampled items without the TTL attribute (its median, ending an hour ago, so that the latest sample is judged against those before it)."},
				{Name: "min_missing_rise_items", Kind: Number, Default: "5", Doc: "Sampled items without the TTL attribute, beyond what the baseline share predicts for the sample, under which a rise is not evidence (on a table whose baseline share is 0)."},
				{Name: "missing_rise_sigmas", Kind: Number, Default: "4", Doc: "How many standard deviations of the sampling noise (binomial at the baseline share, doubled in variance for the baseline's own noise) the rise must exceed, so that a table holding a steady share of items without TTL on purpose (another entity type) is judged on a rise, not on its level."},
			},
			// A table may hold an entity type without TTL on purpose: its
			// share is judged against its own median over the day before,
			// not against a level. The excess counts sampled items without
			// the TTL attribute above what the baseline share predicts for
			// this sample; it must exceed min_missing_rise_items and
			// missing_rise_sigmas standard deviations of a binomial sample of
			// that size at the baseline share (variance doubled: the baseline
			// is itself a sample). The value is the rise of the share.
			Expr: `(
  (
    sum by (account, region, table) (dynamodb_ttl_sampled_items[[sel "class=\"missing\""]])
      - on (account, region, table)
    (` + missingBaseline + ` * on (account, region, table) ` + sampled + `)
  )
    >= on (account, region, table)
  clamp_min(
    [[.P.missing_rise_sigmas]] * sqrt(
      2 * ` + missingBaseline + `
        * on (account, region, table) (1 - ` + missingBaseline + `)
        * on (account, region, table) ` + sampled + `
    ),
    [[.P.min_missing_rise_items]]
  )
)
  / on (account, region, table) ` + sampled + `
and on (account, region, table)
dynamodb_table_ttl_info[[sel "status=\"ENABLED\""]]`,
			Summary: "A rising share of a DynamoDB table's items carries no TTL attribute.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): the share of the TTL sample without the TTL attribute rose by {{ $value | humanizePercentage }} above its median over the day before, more than sampling noise explains: ` +
				`new items are written without it and will never expire (a writer or code path that stopped setting it, or a new entity type). The share among new writes is higher still.`,
		},
		{
			Alert: "DynamoDBTTLNotDeleting", Severity: Warning, For: "2h",
			Params: []Param{{Name: "deletion_grace", Kind: Duration, Default: "2d", Doc: "How long past expiry an item may stay before TTL is considered not working (AWS: typically within 48 hours)."}},
			Expr: `dynamodb_ttl_expired_items_lower_bound[[sel]] > 0
and on (account, region, table)
(time() - dynamodb_ttl_oldest_expired_item_timestamp_seconds[[sel]]) > [[seconds .P.deletion_grace]]
and on (account, region, table)
dynamodb_table_ttl_info[[sel "status=\"ENABLED\""]]
unless on (account, region, table)
increase(dynamodb_ttl_deleted_items_total[[sel]][[rng .P.deletion_grace]]) > 0`,
			Summary: "TTL is enabled on a DynamoDB table but deletes nothing while expired items exist.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): at least {{ $value | humanize }} expired items (lower bound), ` +
				`some expired for longer than the grace period, and no TTL deletion within it: TTL does not delete valid expired items (a TTL change still pending, deletions not reaching the exporter, or a stall at AWS). ` +
				`Values in a wrong format count as never-expiring, and items carrying another attribute as missing, not here.`,
		},
		{
			Alert: "DynamoDBTTLDeletionLagging", Severity: Warning, For: "6h",
			Params: []Param{
				{Name: "max_deletion_lag", Kind: Duration, Default: "3d", Doc: "Age of the oldest expired item beyond which deletion is late."},
				{Name: "min_backlog_deletion_days", Kind: Number, Default: "2", Doc: "How many days of TTL deletions (at the pace of the last day's hours) the proven expired backlog must hold: TTL deletes typically within 48 hours, so a backlog that takes longer to clear means deletion runs days behind, while a few stragglers on a table TTL keeps clean, or a catch-up that clears its backlog within days, are not worth a ticket."},
			},
			// The oldest expired item alone would fire on one leftover
			// straggler of a table TTL keeps clean, and for days on a
			// catch-up (TTL just enabled on months of expired items, its
			// oldest item deleted last): the backlog must also take more
			// than min_backlog_deletion_days to clear at the deletion pace.
			// The pace is the mean of the recorded hourly rates the last
			// day holds: increase() over a day of a counter younger than a
			// day counts only its hours, and would read a catch-up running
			// for a few hours as a backlog of several days. In the
			// counter's first hour (no hourly rate yet), increase() stands
			// in.
			Expr: `(time() - dynamodb_ttl_oldest_expired_item_timestamp_seconds[[sel]]) > [[seconds .P.max_deletion_lag]]
and on (account, region, table)
increase(dynamodb_ttl_deleted_items_total[[sel]][1d]) > 0
and on (account, region, table)
dynamodb_ttl_expired_items_lower_bound[[sel]]
  > on (account, region, table) [[.P.min_backlog_deletion_days]] * (
  avg_over_time(dynamodb:ttl_deleted_items:rate1h[1d]) * 86400
  or on (account, region, table)
  sum by (account, region, table) (increase(dynamodb_ttl_deleted_items_total[[sel]][1d]))
)`,
			Summary: "DynamoDB's TTL deletes, but days behind expiry.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): the oldest expired item seen by the sampler expired {{ $value | humanizeDuration }} ago ` +
				`while TTL deletes, and the expired backlog it proved holds more than several days of deletions at their pace over the last day: TTL is not catching up, and the backlog holds storage, GSI space and report counts.`,
		},
		{
			Alert: "DynamoDBTTLRetentionBehindWrites", Severity: Info, For: "6h",
			Params: []Param{
				{Name: "growth_window", Kind: Duration, Default: "1d", Doc: "Window over which the table's growth (DescribeTable's item count and size, refreshed about every 6 hours) and TTL's deletions are compared; the alert needs that much of the exporter's history in Prometheus."},
				{Name: "max_deletion_share", Kind: Number, Default: "0.25", Doc: "Share of the items written over the window (the growth plus the TTL deletions) that TTL must have deleted at most: far below the write rate."},
				{Name: "min_growth_ratio", Kind: Number, Default: "0.01", Doc: "Growth of the item count over the window, as a share of the items, under which a table is not growing materially."},
				{Name: "min_table_age", Kind: Number, Default: "2592000", Doc: "Second branch (the first evaluation, before a growth window of history): age of the table in seconds (DescribeTable's CreationDateTime) under which its mean growth since creation is not judged: a table in its first 30 days may be filling up to a retention of a month or more by design."},
				{Name: "min_retention_to_age", Kind: Number, Default: "2", Doc: "Second branch: how many times the table's age the newest sampled live items must still have to live (the latest live expiry the TTL sampler saw, from now): a table filling up to a retention a little longer than its age levels off soon; one whose new items outlive its age twice over at least triples its storage before TTL catches up."},
				{Name: "min_recent_items", Kind: Number, Default: "10", Doc: "Second branch: sampled live items whose TTL lies within a day below the latest live expiry (the items written in the last day at the newest retention) from which the table's growth now is judged from them, when it is above its mean growth since creation: fewer are too few to tell a rate (10 sampled items: about ±30%)."},
				{Name: "age_deletion_window", Kind: Duration, Default: "6h", Doc: "Second branch: window of TTL's deletion rate compared with the table's mean growth over its age (while the exporter is younger, its deletions so far over the whole window); keep it no longer than the alert's for (6h), so that the evaluation that fires reads a full window."},
			},
			// Items written over the window are estimated as the growth of
			// the item count plus the TTL deletions (items the application
			// deletes itself are not counted: the estimate errs low, which
			// errs towards silence). The deletion counter must span the
			// whole window (nothing for a counter younger than it). A table whose items expire in cohorts (every
			// item of a month on the 1st) grows between its cohorts by
			// design and is left out, as in DynamoDBTTLDeletingLiveData
			// (the last sample suffices: for 6h needs it out of a cohort
			// at every evaluation).
			// Second branch, for the first evaluation (the first needs a
			// day of the exporter's own history): the table's items over
			// its age are its mean net growth since it was created; against
			// TTL's deletion rate so far (up to age_deletion_window) it
			// gives the same share (or, where larger and the last sample read
			// enough of them, the items written in the last day at the newest
			// retention: growthNow). A table at steady state (older than its
			// retention) holds about retention x write rate items, so its
			// share is age / (age + retention), over a half: only a table
			// younger than the retention its items carry can fire, and it
			// must be at least min_table_age old and its newest items must
			// outlive its age min_retention_to_age times over (the latest
			// live expiry the sampler saw): a table filling up to a
			// retention a little longer than its age levels off soon. The
			// table must be written at least
			// at that mean growth now (each new item costs a write unit or
			// more): a table of static items with TTL on is not growing.
			Expr: `(
(
  ` + ttlDeletedIn("growth_window") + `
    / on (account, region, table)
  (
    ` + ttlDeletedIn("growth_window") + `
    + on (account, region, table)
    ` + itemGrowth + `
  )
    <= [[.P.max_deletion_share]]
  and on (account, region, table)
  ` + itemGrowth + ` >= [[.P.min_growth_ratio]] * ` + tableItems + `
  and on (account, region, table)
  max by (account, region, table) (dynamodb_size_bytes[[sel "index=\"\""]] - dynamodb_size_bytes[[sel "index=\"\""]] offset [[.P.growth_window]]) > 0
)
or
(
  ` + deletedSoFar + `
    / on (account, region, table)
  (
    ` + deletedSoFar + `
    + on (account, region, table)
    ` + growthNow + `
  )
    <= [[.P.max_deletion_share]]
  and on (account, region, table)
  ` + tableAge + ` >= [[.P.min_table_age]]
  and on (account, region, table)
  (max by (account, region, table) (dynamodb_ttl_latest_live_item_expiry_timestamp_seconds[[sel]]) - time())
    >= on (account, region, table) [[.P.min_retention_to_age]] * ` + tableAge + `
  and on (account, region, table)
  max by (account, region, table) (dynamodb:consumed_write_capacity_units:rate[[sel "index=\"\""]])
    >= on (account, region, table) ` + growthNow + `
)
)
and on (account, region, table)
dynamodb_table_ttl_info[[sel "status=\"ENABLED\""]]
unless on (account, region, table)
(
  dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1h\""]]
    / ignoring (within) dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1d\""]]
) > 0.5`,
			Summary: "A DynamoDB table's storage grows while TTL deletes far fewer items than are written.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): TTL deleted only {{ $value | humanizePercentage }} of the items written (the table's growth plus the deletions), for hours: ` +
				`over the growth window, or, before the exporter holds that much history, against the table's growth now (its mean growth since it was created, or, where larger, the items the TTL sampler saw written in the last day at the newest retention) while it is still written at that pace. ` +
				`Items live longer than the table has existed so far (a retention longer than intended, or a table still filling up to its retention), or TTL deletes far slower than items expire. Storage and its cost keep growing until deletions catch up with writes.`,
		},
		{
			Alert: "DynamoDBTTLShortRetentionWithoutPITR", Severity: Info, For: "1d",
			Params: []Param{
				{Name: "max_retention", Kind: Duration, Default: "7d", Doc: "Longest time the table's newest sampled live items still have to live (the latest live expiry the TTL sampler saw, from its sample) under which a retention bug would leave nothing to recover from but point-in-time recovery: every item the table holds is deleted within it."},
			},
			// The seed's last line of defence against a retention bug is a
			// restore from point-in-time recovery (PITR): TTL deletes an
			// item without a trace but the stream record, and a table whose
			// items live a few days keeps no older copy anywhere. With PITR
			// off and a retention under max_retention, a bug that shortens
			// lifetimes (DynamoDBTTLDeletingLiveData) loses data for good.
			// The retention is the latest live expiry the last sample read
			// minus that sample's time (a writer at a steady retention
			// keeps it level; a table no longer written lets it fall, and
			// what it holds is then deleted within it all the same). A
			// configuration finding, not a failure: for 1d rides over a
			// PITR being re-enabled, a sample during a migration, and the
			// review channel batches by the week anyway. PITR unknown (not
			// read yet, or DescribeContinuousBackups denied) is not off.
			Expr: `(
  max by (account, region, table) (dynamodb_ttl_latest_live_item_expiry_timestamp_seconds[[sel]])
    - on (account, region, table)
  max by (account, region, table) (dynamodb_ttl_last_sample_timestamp_seconds[[sel]])
) < [[seconds .P.max_retention]]
and on (account, region, table)
dynamodb_table_pitr_enabled[[sel]] == 0
and on (account, region, table)
dynamodb_table_ttl_info[[sel "status=\"ENABLED\""]]`,
			Summary: "A DynamoDB table deletes its items by TTL within days, and point-in-time recovery is off.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): the newest items the TTL sampler read live {{ $value | humanizeDuration }} more at most, ` +
				`and point-in-time recovery is off: if a release ever writes lifetimes too short (a retention bug), the items TTL deletes cannot be restored from anywhere. ` +
				`Turn PITR on (UpdateContinuousBackups; it is charged by the table's size), or record why this table's data need no way back.`,
		},
		{
			Alert: "DynamoDBTTLDeletingLiveData", Severity: Critical, For: "15m",
			Params: []Param{
				{Name: "deletion_factor", Kind: Number, Default: "3", Doc: "How many times its own baseline the TTL deletion rate must be."},
				{Name: "min_deletions_per_second", Kind: Number, Default: "0.005", Doc: "TTL deletions per second (last hour; 0.005 is 18 an hour) under which nothing fires: a small table's data matters too."},
				{Name: "catch_up_min_backlog_age", Kind: Duration, Default: "1d", Doc: "A burst of deletions no larger than the expired backlog the sampler proved is a catch-up, not a retention bug, only when that backlog is older than this: a retention bug writes items already expired, and its young backlog must still page."},
				{Name: "deletion_baseline_window", Kind: Duration, Default: "7d", Doc: "Window of the deletion-rate baseline (the mean of the full-hour rates it holds, so that a counter younger than the window is not diluted; none in a table's first two hours), ending an hour ago."},
				{Name: "stall_window", Kind: Duration, Default: "6h", Doc: "Second branch: window over which the latest expiry among the sampled live items must advance by at least a quarter of the clock while the table is written and TTL deletes; a table whose longest-lived items are written with gaps longer than this (while shorter-lived ones keep coming) needs it longer."},
				{Name: "min_stalled_items", Kind: Number, Default: "10", Doc: "Second branch: sampled live items a writer still writing at the table's usual retention would have put in the stall window (the live items sampled within a day of the latest expiry, scaled to the window), under which a stall is sampling noise, not evidence."},
				{Name: "foreseen_window", Kind: Duration, Default: "6h", Doc: "First and third branches: window (or the exporter's time so far, when shorter) over which TTL's deletions are compared with the expiries earlier TTL samples foresaw (dynamodb_ttl_foreseen_expired_items_total): no more deletions than foreseen is a batch ending the lifetime it was written with, not a retention bug. It must hold a batch's expiries and the tail of their deletions (TTL deletes minutes to hours after expiry); the steady expiries are on both sides and cover nothing."},
				{Name: "foreseen_margin", Kind: Number, Default: "1.2", Doc: "First and third branches: how many times the foreseen expiries the deletions over foreseen_window may reach and still be a batch expiring as designed: the foreseen count is estimated from a sample (a few percent off on a large batch)."},
				{Name: "expiry_rate_factor", Kind: Number, Default: "1.5", Doc: "Third branch: how many times the table's steady expiry rate (dynamodb_ttl_expiry_rate_estimate_items_per_second, within about 10%) TTL's deletions over the last 30 minutes must be (a shorter window than the first branch's hour: TTL deletes minutes to hours after expiry, and the page is due within the hour of the first lost item), and how many times their own lowest hourly rate over rise_window and their rate at the same hour a day earlier (dynamodb_ttl_deletion_rate_day_earlier_items_per_second, which the exporter reads from CloudWatch's history from its first cycle; Prometheus's own a day earlier when that figure is missing)."},
				{Name: "min_excess_deletions_per_second", Kind: Number, Default: "0.01", Doc: "Third branch: deletions per second (last 30 minutes) above the steady expiry rate under which nothing fires (0.01 is 18 in 30 minutes: with expiry_rate_factor 1.5, at least three standard deviations of the half hour's count above the rate; the rise and the day-earlier conditions come on top)."},
				{Name: "rise_window", Kind: Duration, Default: "3h", Doc: "Third branch: window over which the hourly deletion rate must have been, at its lowest, under the last 30 minutes' divided by expiry_rate_factor (a retention bug starts at a release; a table whose deletions have run above its expiry rate for hours, such as one holding items too short-lived for its samples to see, does not page; nor does a table before its deletion rate has an hour of history)."},
			},
			// First branch: deletions far above their own baseline. The
			// baseline averages the recorded hourly rates that exist:
			// rate() over the 7-day window would divide the deletions of a
			// younger history by 7 days, and page on every table that deletes
			// steadily during the first days after the exporter starts.
			//
			// Second branch, for a bug older than the deletion baseline (it
			// began before the exporter) or one that only doubles deletions
			// (a table in steady state, where the old items keep expiring at
			// the write rate while the new short-lived ones add as much): the
			// remaining lifetime of new items collapsing against the table's
			// usual retention. Items written at a steady retention R spread
			// their expiries over [now, now + R], and the latest expiry
			// advances with the clock; once new items get r << R, the newest
			// long-lived item is the last one written before the release, and
			// the latest expiry stops while the table is still written and
			// TTL keeps deleting. What else stops it, and is excluded: a
			// sampler gone stale (its last figures stay exported, flat: a
			// sample within half the window is required); no writes
			// (consumed write units zero); too few sampled items near
			// the top for a gap to mean anything (a large table sampled
			// thinly); an expiry rounded to a calendar boundary (every item
			// of the day or month expiring at one time), where new items pile
			// into the last hour below the latest expiry instead of leaving a
			// gap. A table holding two entity types (sessions of 30 minutes,
			// orders of 30 days) keeps advancing with its orders.
			//
			// Third branch, for a bug on a table in steady state sampled too
			// thinly for the second (a table of 150,000 items sampled by
			// 1,500 holds a few sampled items per day of expiries): the
			// old items keep expiring at the table's steady expiry rate,
			// which the sampler reads within about 10% from the expiries of
			// a hundred sampled live items over whole days ahead
			// (dynamodb_ttl_expiry_rate_estimate_items_per_second), while
			// the new short-lived items add deletions no sample sees
			// coming. It fires when the last 30 minutes' deletions are well
			// above that rate, by enough items to be no sampling noise,
			// and have risen from their lowest hourly rate of the hours
			// before (a bug starts at a release; a table holding entities
			// too short-lived for its samples has run above its rate for
			// hours) and from the same hour a day earlier (a writer's
			// daily cycle: the rate is a day's average, and a table
			// deleting at its daily peak runs well above it; the exporter
			// reads that hour from CloudWatch's history, so the branch
			// judges a table from its first hour of deletions, and falls
			// back on Prometheus's own day when the figure is missing),
			// under the first branch's guards against a catch-up, a
			// calendar cohort and a batch ending its designed lifetime.
			//
			// Such a rounded expiry also makes deletions burst from zero when
			// its cohort expires (every night at 02:00, on the 1st), with a
			// backlog younger than a day: the first branch does not fire on a
			// table whose sampled live items have sat in cohorts (most of the
			// last day's within an hour of the latest expiry) all day.
			//
			// Nor on a burst of items ending the lifetime they were written
			// with (a campaign's batch of tokens): earlier samples saw them
			// live at least half the table's retention before they expired,
			// and counted them in dynamodb_ttl_foreseen_expired_items_total
			// as their expiry passed (or the first sample after the
			// exporter started saw them: written before it). Items a
			// retention bug writes live far less than that and are never
			// counted: the first branch fires only while the deletions over
			// foreseen_window (or since the exporter started) exceed the
			// expiries so foreseen over the same time. Deletions follow
			// expiries by minutes to hours: the window holds a batch's
			// expiries and the tail of their deletions, and the steady
			// expiries of the table count on both sides.
			Expr: `dynamodb:ttl_deleted_items:rate1h
  > [[.P.deletion_factor]] * avg_over_time(dynamodb:ttl_deleted_items:rate1h[[rng .P.deletion_baseline_window]] offset 1h)
and
dynamodb:ttl_deleted_items:rate1h > [[.P.min_deletions_per_second]]
` + liveDataGuards + `
or
(
  dynamodb:ttl_deleted_items:rate1h > [[.P.min_deletions_per_second]]
  and on (account, region, table)
  (
    max_over_time(dynamodb_ttl_latest_live_item_expiry_timestamp_seconds[[sel]][2h])
      - max_over_time(dynamodb_ttl_latest_live_item_expiry_timestamp_seconds[[sel]][2h] offset [[.P.stall_window]])
  ) < [[seconds .P.stall_window]] / 4
  and on (account, region, table)
  dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1d\""]] * [[seconds .P.stall_window]] / 86400 >= [[.P.min_stalled_items]]
  and on (account, region, table)
  (
    dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1h\""]]
      <= ignoring (within) 0.5 * dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1d\""]]
  )
  and on (account, region, table)
  dynamodb:consumed_write_capacity_units:rate{index=""} > 0
  and on (account, region, table)
  (time() - dynamodb_ttl_last_sample_timestamp_seconds[[sel]]) < [[seconds .P.stall_window]] / 2
)
or
(
  dynamodb:ttl_deleted_items:rate30m
    > on (account, region, table) [[.P.expiry_rate_factor]] * dynamodb_ttl_expiry_rate_estimate_items_per_second[[sel]]
  and on (account, region, table)
  dynamodb:ttl_deleted_items:rate30m - on (account, region, table) dynamodb_ttl_expiry_rate_estimate_items_per_second[[sel]]
    > [[.P.min_excess_deletions_per_second]]
  and on (account, region, table)
  dynamodb:ttl_deleted_items:rate30m
    > [[.P.expiry_rate_factor]] * min_over_time(dynamodb:ttl_deleted_items:rate1h[[rng .P.rise_window]])
  and on (account, region, table)
  dynamodb:ttl_deleted_items:rate30m
    > on (account, region, table) [[.P.expiry_rate_factor]] * (
      max by (account, region, table) (dynamodb_ttl_deletion_rate_day_earlier_items_per_second[[sel]])
      or
      dynamodb:ttl_deleted_items:rate1h offset 1d
    )
` + liveDataGuards + `
)`,
			Summary: "DynamoDB's TTL may be deleting live data: deletions far above usual or well above the live items' expiry rate, or new items expiring far sooner than the table's usual retention.",
			Description: `{{ $labels.table }} ({{ $labels.account }}, {{ $labels.region }}): TTL deletes {{ $value | humanize }} items/s over the last hour (30 minutes in the last case below), and either ` +
				`that is several times its own baseline (deletion rate over the baseline window, ending an hour ago), more than the expiries earlier TTL samples foresaw over the same hours, and more than the expired backlog the TTL sampler proved, or that backlog is young (not a catch-up), ` +
				`or the latest expiry among the sampled live items has stopped advancing while the table is written (new items get a shorter retention than the old ones), ` +
				`or the deletions have risen well above the rate at which the sampled live items expire (dynamodb_ttl_expiry_rate_estimate_items_per_second: items written too short-lived for any sample to see, on a table TTL already cleans at its write rate). ` +
				`A retention set too short deletes live data irreversibly; every hour counts. ` +
				// PITR is read by a query in the annotation, not joined in
				// the expr: a table whose PITR the exporter cannot read
				// (permission denied) must still page.
				`Point-in-time recovery: {{ with printf "time() - dynamodb_table_pitr_earliest_restorable_timestamp_seconds{account=%q, region=%q, table=%q}" $labels.account $labels.region $labels.table | query }}on, a restore can go back {{ . | first | value | humanizeDuration }}` +
				`{{ else }}{{ with printf "dynamodb_table_pitr_enabled{account=%q, region=%q, table=%q} == 0" $labels.account $labels.region $labels.table | query }}OFF: deleted items cannot be restored from PITR` +
				`{{ else }}unknown (the exporter has not read it: dynamodb:DescribeContinuousBackups){{ end }}{{ end }}.`,
		},
	}
}

// liveDataGuards are the exclusions the first and third branches of
// DynamoDBTTLDeletingLiveData share: a catch-up of an old backlog (a burst
// no larger than the expired backlog the sampler proved, when that backlog
// is older than catch_up_min_backlog_age), a calendar cohort (most of the
// last day's sampled live items within an hour of the latest expiry, all
// day), and a batch ending the lifetime it was written with (deletions
// over foreseen_window within foreseen_margin of the expiries the samples
// foresaw).
var liveDataGuards = `unless on (account, region, table)
(
  sum by (account, region, table) (increase(dynamodb_ttl_deleted_items_total[[sel]][1h]))
    <= max_over_time(dynamodb_ttl_expired_items_lower_bound[[sel]][3h])
  and on (account, region, table)
  (time() - min_over_time(dynamodb_ttl_oldest_expired_item_timestamp_seconds[[sel]][3h])) > [[seconds .P.catch_up_min_backlog_age]]
)
unless on (account, region, table)
min_over_time((
  dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1h\""]]
    / ignoring (within) dynamodb_ttl_sampled_live_items_near_latest_expiry[[sel "within=\"1d\""]]
)[1d:10m]) > 0.5
unless on (account, region, table)
(
` + spanIn("dynamodb_ttl_deleted_items_total", "foreseen_window") + `
    <= on (account, region, table)
  [[.P.foreseen_margin]] * ` + spanIn("dynamodb_ttl_foreseen_expired_items_total", "foreseen_window") + `
)`

// spanIn is what an exporter counter (metric, per table) counted within
// the window parameter param, or since its series began when it is
// younger: the span of its values, and nothing across a counter reset
// (exporter restart), where the span would mix two lives of the counter.
func spanIn(metric, param string) string {
	m := metric + "[[sel]][[rng .P." + param + "]]"
	return `  sum by (account, region, table) (
    (max_over_time(` + m + `) - min_over_time(` + m + `))
    unless resets(` + m + `) > 0
  )`
}

// ttlDeletedIn is the number of items TTL deleted within the window
// parameter param, per table: the sum of the window's whole hours of
// dynamodb:ttl_deleted_items:rate1h (exact, and a reset-safe rate across an
// exporter restart), and nothing for a deletion counter younger than the
// window, so that a partial window never reads as few deletions.
func ttlDeletedIn(param string) string {
	return `(
  sum_over_time(dynamodb:ttl_deleted_items:rate1h[[rng (print .P.` + param + ` ":1h")]]) * 3600
  and on (account, region, table)
  sum by (account, region, table) (dynamodb_ttl_deleted_items_total[[sel]] offset [[.P.` + param + `]])
)`
}

// countIn is the number of events an exporter counter (series, a selector
// expression) counted in the last window, exactly, for the descriptions that
// quote "N times": the difference with the value one window ago; increase()
// across a counter reset (exporter restart); and for a series born within the
// window, its whole value. Error counters are born at their first error, with
// its count, so increase(), which needs two samples, would miss a lone error
// and see a repeated one a cycle late; and it extrapolates (9.64 "times" at
// the 5m cadence for 9 events).
func countIn(series, window string) string {
	return `  (
    (` + series + ` - ` + series + ` offset ` + window + `) >= 0
    unless resets(` + series + `[` + window + `]) > 0
  )
  or
  (increase(` + series + `[` + window + `]) and ` + series + ` offset ` + window + `)
  or
  ` + series + ` unless ` + series + ` offset ` + window
}

// exporterAlerts watch the exporter itself.
func exporterAlerts() []Rule {
	return []Rule{
		{
			Alert: "DynamoDBExporterDown", Severity: Critical, For: "5m",
			Params: []Param{{Name: "exporter_job_matchers", Kind: Matchers, Default: `job=~".*dynamodb.*"`,
				Doc: "Label matchers (without braces) that select the exporter's scrape targets in Prometheus's up series."}},
			// A target Prometheus no longer discovers has no up series at
			// all; absent() cannot name it through a regex matcher (see the
			// runbook).
			Expr:    `up[[only .P.exporter_job_matchers]] == 0`,
			Summary: "Prometheus cannot scrape the DynamoDB exporter.",
			Description: `Prometheus fails to scrape {{ $labels.instance }} (job {{ $labels.job }}; up is {{ $value }}): every DynamoDB metric from it is missing, ` +
				`and the alerts that read them cannot fire. Check that the exporter runs and answers on /metrics.`,
		},
		{
			Alert: "DynamoDBExporterCollectorFailing", Severity: Warning, For: "15m",
			Expr: `(time() - dynamodb_exporter_collector_last_success_timestamp_seconds[[sel]])
  and on (collector, account, region)
(dynamodb_exporter_collector_success[[sel]] == 0)
or
(dynamodb_exporter_collector_success[[sel]] == 0)
  unless on (collector, account, region)
dynamodb_exporter_collector_last_success_timestamp_seconds[[sel]]`,
			Summary: "A collector of the DynamoDB exporter fails for an account and region.",
			Description: `The {{ $labels.collector }} collector fails for {{ $labels.account }} in {{ $labels.region }}; its last success was ` +
				`{{ if eq $value 0.0 }}never{{ else }}{{ $value | humanizeDuration }} ago{{ end }}: its metrics there are stale. ` +
				`See dynamodb_exporter_aws_request_errors_total for the error codes.`,
		},
		{
			Alert: "DynamoDBExporterAccessDenied", Severity: Warning,
			Expr: `sum by (account, region, service, operation, error_code) (
` + countIn(`dynamodb_exporter_aws_request_errors_total[[sel "error_code=~\"AccessDenied.*|UnauthorizedOperation|UnrecognizedClientException|InvalidClientTokenId|ExpiredToken.*\""]]`, "30m") + `
) > 0`,
			Summary: "AWS refuses the DynamoDB exporter an action.",
			Description: `AWS answered {{ $labels.error_code }} to {{ $labels.service }} {{ $labels.operation }} for {{ $labels.account }} in {{ $labels.region }} ` +
				`({{ $value | humanize }} times in 30 minutes): what it reads is missing. Compare the role's policy with iam-policy.json.`,
		},
		{
			Alert: "DynamoDBExporterCloudWatchThrottled", Severity: Warning, For: "15m",
			Expr: `sum by (account, region) (
` + countIn(`dynamodb_exporter_aws_request_errors_total[[sel "service=\"CloudWatch\"" "error_code=~\"Throttling|ThrottlingException|RequestLimitExceeded|TooManyRequestsException\""]]`, "15m") + `
) > 0`,
			Summary: "CloudWatch throttles the DynamoDB exporter.",
			Description: `CloudWatch throttled the exporter {{ $value | humanize }} times in 15 minutes for {{ $labels.account }} in {{ $labels.region }}: ` +
				`counters catch up within max_catch_up, gauges lag. Lengthen collectors.cloudwatch.interval or raise the account's GetMetricData quota.`,
		},
		{
			Alert: "DynamoDBExporterTTLSamplerOutOfBudget", Severity: Info,
			Expr: `sum by (account, region) (
` + countIn(`dynamodb_exporter_ttl_samples_total[[sel "outcome=\"skipped_budget\""]]`, "6h") + `
) > 0`,
			Summary: "The DynamoDB exporter's TTL sampler runs out of its read budget.",
			Description: `{{ $value | humanize }} TTL samples were skipped in 6 hours for {{ $labels.account }} in {{ $labels.region }} because the hourly read budget was spent: ` +
				`TTL health there is older than it should be. Raise collectors.ttl.budget or lengthen table_interval.`,
		},
	}
}
