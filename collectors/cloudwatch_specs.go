package collectors

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// CloudWatchNamespace is where DynamoDB publishes its metrics.
const CloudWatchNamespace = "AWS/DynamoDB"

// dimensionShape says which CloudWatch dimensions a metric has.
type dimensionShape int

const (
	// perTableAndIndex: TableName, plus GlobalSecondaryIndexName for an index.
	perTableAndIndex dimensionShape = iota
	// perTable: TableName only.
	perTable
	// perOperation: TableName and Operation.
	perOperation
	// perAccount: no dimensions (account and region level).
	perAccount
	// perTableOnlyIndexLabel: TableName only, in a family labelled by
	// index (the index label is empty).
	perTableOnlyIndexLabel
	// perBuildingIndex: TableName and GlobalSecondaryIndexName, only for
	// the indexes DescribeTable reports CREATING (an index being added to
	// an existing table): the index-build metrics stay listed for weeks
	// after a build, and are worth a query only during it.
	perBuildingIndex
	// perReceivingRegion: TableName and ReceivingRegion, for each other
	// replica DescribeTable lists (a global table); the receiving region
	// travels in seriesKey.operation.
	perReceivingRegion
)

// valueKind says how CloudWatch values become the family's value.
type valueKind int

const (
	// sumCounter: every minute's Sum is added to a counter.
	sumCounter valueKind = iota
	// millisecondsGauge: the latest minute's value, from milliseconds to seconds.
	millisecondsGauge
	// percentGauge: the latest minute's value, from percent to a ratio.
	percentGauge
)

// metricSpec maps one CloudWatch metric and statistic to a catalogue family.
type metricSpec struct {
	metric string
	stat   string
	shape  dimensionShape
	family string
	kind   valueKind
	// extra label values after the dimension labels (kind, cause).
	extra []string
	// publishedWhenIdle marks the metrics DynamoDB keeps publishing, with
	// zero values, for an idle table or index (ConsumedRead/Write
	// CapacityUnits, "Identifying your unused resources", Amazon DynamoDB
	// Developer Guide): they are always listed, so always queried.
	publishedWhenIdle bool
	// onlyIn is the billing mode outside of which the metric cannot have
	// a datapoint (a throttle cause of the other mode); empty: any mode.
	onlyIn types.BillingMode
	// tier is how often the metric is polled (from metricTiers).
	tier Tier
}

// Tier is a polling cadence of the CloudWatch collector: each query of a
// tier fetches every 1-minute datapoint since that series' last fetch, so
// a slower tier costs less (CloudWatch bills one metric per query whatever
// the number of datapoints) and loses no counter data.
type Tier int

const (
	// FastTier holds the events alerts page on, polled every
	// collectors.cloudwatch.interval (1m by default).
	FastTier Tier = iota
	// SlowTier holds slow-moving figures, polled every
	// collectors.cloudwatch.slow_interval (10m by default).
	SlowTier
	// DayEarlierTier is the hourly query of each table's TTL deletions a
	// day back (fetchDayEarlier), one per table whose deletions the fast
	// tier polls; no metric spec belongs to it.
	DayEarlierTier
	numTiers
)

// String is the tier's name in logs and in the check command's plan.
func (t Tier) String() string {
	switch t {
	case FastTier:
		return "fast"
	case SlowTier:
		return "slow"
	case DayEarlierTier:
		return "day_earlier"
	}
	return fmt.Sprintf("tier%d", int(t))
}

// Summary says what the tier polls, for people.
func (t Tier) Summary() string {
	switch t {
	case FastTier:
		return "throttle events, throttled requests, system and user errors, TTL deletions"
	case SlowTier:
		return "consumed capacity, latency, the account's provisioned utilization, replication latency"
	case DayEarlierTier:
		return "TTL deletions of the same hour a day earlier, per table with TTL deletions"
	}
	return ""
}

// metricTiers assigns every CloudWatch metric the collector reads to its
// polling tier: the one place that says what is polled how often.
//
//   - Fast: every throttle event metric, ThrottledRequests, SystemErrors and
//     UserErrors, which the throttling alerts read through a 10-minute rate
//     window; and TimeToLiveDeletedItemCount, because
//     DynamoDBTTLDeletingLiveData pages (critical) and every minute of delay
//     deletes live data for good. Event metrics are listed only while they
//     have datapoints, so a quiet table pays nothing for them.
//   - Slow: consumed capacity (counters, exact at any cadence; the
//     utilization records read them over the same 10-minute window, which a
//     10-minute cadence divides) and SuccessfulRequestLatency (a gauge read
//     by alerts held for 15 minutes against a day's baseline). DynamoDB
//     publishes consumed capacity even for an idle table, so these series
//     are the floor of the bill: polling them every 10 minutes instead of
//     every minute is what brings a table with 2 GSIs under 150 metrics an
//     hour. Also the account's provisioned utilization (two metrics per
//     account and region, no dimensions): it moves only when provisioned
//     capacity changes, and a quota is not raised in minutes, so ten
//     minutes loses nothing; it costs 2 × 6 × 730 = 8,760 metrics a month
//     per region ($0.09 at $0.01 per 1,000).
var metricTiers = map[string]Tier{
	"ConsumedReadCapacityUnits":  SlowTier,
	"ConsumedWriteCapacityUnits": SlowTier,
	"SuccessfulRequestLatency":   SlowTier,

	"AccountProvisionedReadCapacityUtilization":  SlowTier,
	"AccountProvisionedWriteCapacityUtilization": SlowTier,

	"ReadThrottleEvents":                       FastTier,
	"WriteThrottleEvents":                      FastTier,
	"ReadKeyRangeThroughputThrottleEvents":     FastTier,
	"WriteKeyRangeThroughputThrottleEvents":    FastTier,
	"ReadProvisionedThroughputThrottleEvents":  FastTier,
	"WriteProvisionedThroughputThrottleEvents": FastTier,
	"ReadAccountLimitThrottleEvents":           FastTier,
	"WriteAccountLimitThrottleEvents":          FastTier,
	"ReadMaxOnDemandThroughputThrottleEvents":  FastTier,
	"WriteMaxOnDemandThroughputThrottleEvents": FastTier,
	"ThrottledRequests":                        FastTier,
	"SystemErrors":                             FastTier,
	"UserErrors":                               FastTier,
	"TimeToLiveDeletedItemCount":               FastTier,

	// The index-build metrics, only while an index is CREATING: its event
	// counters fast, so that a build that throttles (and holds back the
	// table's writes) is seen within minutes; its progress, a gauge that
	// moves over hours, slow. 2 metrics a minute and 1 every 10 minutes
	// per index being built (about $0.0013 an hour of build at $0.01 per
	// 1,000), nothing otherwise.
	"OnlineIndexPercentageProgress":    SlowTier,
	"OnlineIndexConsumedWriteCapacity": FastTier,
	"OnlineIndexThrottleEvents":        FastTier,

	// Global tables: the replication latency to each receiving region, a
	// gauge (the latest minute's Average). Slow: a replica falling behind
	// does so over minutes to hours (AWS, "Monitoring global tables": the
	// value "should be fairly constant"; a degraded region raises it), and
	// what it asks of a person (check the receiving replica's write
	// capacity, or move traffic away from a degraded region) is not done
	// in a minute; a 10-minute cadence sees a lag of minutes within one
	// poll. Only for a table DescribeTable says has replicas, and only
	// while CloudWatch lists it (minutes with replicated writes): 6
	// metrics an hour per (table, receiving region), 4,380 a month (about
	// $0.044 at $0.01 per 1,000).
	"ReplicationLatency": SlowTier,
}

// throttleCauses maps the CloudWatch name part of each cause-specific throttle
// metric to the cause label, and names the billing mode a cause is
// confined to. From the throttling reasons (Amazon DynamoDB API Reference,
// "ThrottlingReason",
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html):
// ProvisionedThroughputExceeded is the provisioned capacity "configured for
// a table or a global secondary index (GSI) in provisioned capacity mode";
// AccountLimitExceeded is a table or GSI "in on-demand mode" exceeding the
// per-table account-level quotas; MaxOnDemandThroughputExceeded is the
// maximum throughput "set for a table or index in on-demand capacity mode";
// KeyRangeThroughputExceeded (a hot partition) happens in either mode.
var throttleCauses = []struct {
	metricPart, label string
	onlyIn            types.BillingMode
}{
	{"KeyRangeThroughput", "key_range_throughput", ""},
	{"ProvisionedThroughput", "provisioned_throughput", types.BillingModeProvisioned},
	{"AccountLimit", "account_limit", types.BillingModePayPerRequest},
	{"MaxOnDemandThroughput", "max_on_demand_throughput", types.BillingModePayPerRequest},
}

// specs is every CloudWatch metric the collector can request, as data.
var specs = func() []metricSpec {
	s := []metricSpec{
		{metric: "ConsumedReadCapacityUnits", stat: "Sum", shape: perTableAndIndex, family: catalogue.ConsumedReadCapacityUnitsTotal, kind: sumCounter, publishedWhenIdle: true},
		{metric: "ConsumedWriteCapacityUnits", stat: "Sum", shape: perTableAndIndex, family: catalogue.ConsumedWriteCapacityUnitsTotal, kind: sumCounter, publishedWhenIdle: true},
		{metric: "ReadThrottleEvents", stat: "Sum", shape: perTableAndIndex, family: catalogue.ThrottleEventsTotal, kind: sumCounter, extra: []string{"read"}},
		{metric: "WriteThrottleEvents", stat: "Sum", shape: perTableAndIndex, family: catalogue.ThrottleEventsTotal, kind: sumCounter, extra: []string{"write"}},
	}
	for _, kind := range []struct{ prefix, label string }{{"Read", "read"}, {"Write", "write"}} {
		for _, c := range throttleCauses {
			shape := perTableAndIndex
			if kind.prefix+c.metricPart == "WriteAccountLimit" {
				// WriteAccountLimitThrottleEvents is documented with the
				// TableName dimension only ("DynamoDB metrics and
				// dimensions", Amazon DynamoDB Developer Guide): a query
				// per GSI would be billed for a series that never exists.
				shape = perTableOnlyIndexLabel
			}
			s = append(s, metricSpec{metric: kind.prefix + c.metricPart + "ThrottleEvents", stat: "Sum", shape: shape,
				family: catalogue.ThrottleEventsByCauseTotal, kind: sumCounter, extra: []string{kind.label, c.label}, onlyIn: c.onlyIn})
		}
	}
	s = append(s,
		metricSpec{metric: "ThrottledRequests", stat: "Sum", shape: perOperation, family: catalogue.ThrottledRequestsTotal, kind: sumCounter},
		metricSpec{metric: "SystemErrors", stat: "Sum", shape: perOperation, family: catalogue.SystemErrorsTotal, kind: sumCounter},
		metricSpec{metric: "SuccessfulRequestLatency", stat: "Average", shape: perOperation, family: catalogue.SuccessfulRequestLatencyAverage, kind: millisecondsGauge},
		metricSpec{metric: "SuccessfulRequestLatency", stat: "p99", shape: perOperation, family: catalogue.SuccessfulRequestLatencyP99, kind: millisecondsGauge},
		metricSpec{metric: "TimeToLiveDeletedItemCount", stat: "Sum", shape: perTable, family: catalogue.TTLDeletedItemsTotal, kind: sumCounter},
		metricSpec{metric: "UserErrors", stat: "Sum", shape: perAccount, family: catalogue.UserErrorsTotal, kind: sumCounter},
		// The build of an index added to an existing table ("DynamoDB
		// metrics and dimensions", Amazon DynamoDB Developer Guide:
		// dimensions TableName and GlobalSecondaryIndexName).
		metricSpec{metric: "OnlineIndexPercentageProgress", stat: "Maximum", shape: perBuildingIndex, family: catalogue.GSIBackfillProgress, kind: percentGauge},
		metricSpec{metric: "OnlineIndexConsumedWriteCapacity", stat: "Sum", shape: perBuildingIndex, family: catalogue.GSIBackfillConsumedWriteUnitsTotal, kind: sumCounter},
		metricSpec{metric: "OnlineIndexThrottleEvents", stat: "Sum", shape: perBuildingIndex, family: catalogue.GSIBackfillThrottleEventsTotal, kind: sumCounter},
		// Global tables ("Monitoring global tables"; "DynamoDB metrics and
		// dimensions": dimensions TableName and ReceivingRegion,
		// milliseconds).
		metricSpec{metric: "ReplicationLatency", stat: "Average", shape: perReceivingRegion, family: catalogue.ReplicationLatency, kind: millisecondsGauge},
		// The account's provisioned utilization: exact whatever tables the
		// exporter monitors, where the sum of dynamodb_provisioned_* over
		// the quota counts only the monitored ones. AccountMaxReads,
		// AccountMaxWrites and AccountMaxTableLevelReads/Writes are not
		// requested: DescribeLimits answers the same quotas for free.
		metricSpec{metric: "AccountProvisionedReadCapacityUtilization", stat: "Maximum", shape: perAccount, family: catalogue.AccountProvisionedUtilization, kind: percentGauge, extra: []string{"read"}},
		metricSpec{metric: "AccountProvisionedWriteCapacityUtilization", stat: "Maximum", shape: perAccount, family: catalogue.AccountProvisionedUtilization, kind: percentGauge, extra: []string{"write"}},
	)
	for i := range s {
		t, ok := metricTiers[s[i].metric]
		if !ok {
			panic("collectors: CloudWatch metric " + s[i].metric + " has no tier in metricTiers")
		}
		s[i].tier = t
	}
	return s
}()

// operationMetrics are the CloudWatch metrics that carry an Operation
// dimension: the operations a table has are learned from them.
var operationMetrics = map[string]bool{"ThrottledRequests": true, "SystemErrors": true, "SuccessfulRequestLatency": true}
