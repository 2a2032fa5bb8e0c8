package collectors

import "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"

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
)

// valueKind says how CloudWatch values become the family's value.
type valueKind int

const (
	// sumCounter: every minute's Sum is added to a counter.
	sumCounter valueKind = iota
	// millisecondsGauge: the latest minute's value, from milliseconds to seconds.
	millisecondsGauge
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
}

// throttleCauses maps the CloudWatch name part of each cause-specific throttle
// metric to the cause label.
var throttleCauses = []struct{ metricPart, label string }{
	{"KeyRangeThroughput", "key_range_throughput"},
	{"ProvisionedThroughput", "provisioned_throughput"},
	{"AccountLimit", "account_limit"},
	{"MaxOnDemandThroughput", "max_on_demand_throughput"},
}

// specs is every CloudWatch metric the collector can request, as data.
var specs = func() []metricSpec {
	s := []metricSpec{
		{"ConsumedReadCapacityUnits", "Sum", perTableAndIndex, catalogue.ConsumedReadCapacityUnitsTotal, sumCounter, nil, true},
		{"ConsumedWriteCapacityUnits", "Sum", perTableAndIndex, catalogue.ConsumedWriteCapacityUnitsTotal, sumCounter, nil, true},
		{"ReadThrottleEvents", "Sum", perTableAndIndex, catalogue.ThrottleEventsTotal, sumCounter, []string{"read"}, false},
		{"WriteThrottleEvents", "Sum", perTableAndIndex, catalogue.ThrottleEventsTotal, sumCounter, []string{"write"}, false},
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
			s = append(s, metricSpec{kind.prefix + c.metricPart + "ThrottleEvents", "Sum", shape,
				catalogue.ThrottleEventsByCauseTotal, sumCounter, []string{kind.label, c.label}, false})
		}
	}
	s = append(s,
		metricSpec{"ThrottledRequests", "Sum", perOperation, catalogue.ThrottledRequestsTotal, sumCounter, nil, false},
		metricSpec{"SystemErrors", "Sum", perOperation, catalogue.SystemErrorsTotal, sumCounter, nil, false},
		metricSpec{"SuccessfulRequestLatency", "Average", perOperation, catalogue.SuccessfulRequestLatencyAverage, millisecondsGauge, nil, false},
		metricSpec{"SuccessfulRequestLatency", "p99", perOperation, catalogue.SuccessfulRequestLatencyP99, millisecondsGauge, nil, false},
		metricSpec{"TimeToLiveDeletedItemCount", "Sum", perTable, catalogue.TTLDeletedItemsTotal, sumCounter, nil, false},
		metricSpec{"UserErrors", "Sum", perAccount, catalogue.UserErrorsTotal, sumCounter, nil, false},
	)
	return s
}()

// operationMetrics are the CloudWatch metrics that carry an Operation
// dimension: the operations a table has are learned from them.
var operationMetrics = map[string]bool{"ThrottledRequests": true, "SystemErrors": true, "SuccessfulRequestLatency": true}
