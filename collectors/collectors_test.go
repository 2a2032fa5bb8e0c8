package collectors

import (
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestParseScalingResource(t *testing.T) {
	cases := []struct {
		id, dim string
		want    ScalingResource
		ok      bool
	}{
		{"table/orders", "dynamodb:table:ReadCapacityUnits", ScalingResource{"orders", "", "read"}, true},
		{"table/orders/index/by-customer", "dynamodb:index:WriteCapacityUnits", ScalingResource{"orders", "by-customer", "write"}, true},
		{"table/orders/index", "dynamodb:index:WriteCapacityUnits", ScalingResource{}, false},
		{"keyspace/ks/table/t", "cassandra:table:ReadCapacityUnits", ScalingResource{}, false},
		{"table/orders", "dynamodb:table:Unknown", ScalingResource{}, false},
	}
	for _, c := range cases {
		got, ok := ParseScalingResource(c.id, aastypes.ScalableDimension(c.dim))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseScalingResource(%q, %q) = %+v, %v; want %+v, %v", c.id, c.dim, got, ok, c.want, c.ok)
		}
	}
}

func TestCountErrors(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{a, 1},
		{errors.Join(a, b), 2},
		{errors.Join(errors.Join(a, b), c), 3},
		{errors.Join(), 0},
	}
	for _, tc := range cases {
		if got := CountErrors(tc.err); got != tc.want {
			t.Errorf("CountErrors(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestPlanUsesOnlyListedOperationsAndIndexes(t *testing.T) {
	tb := &Table{Name: "orders", Description: &types.TableDescription{
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexName: aws.String("gsi")}},
	}}
	listed := map[listKey]struct{}{}
	add := func(metric string, dims ...string) {
		var d []cwDim
		for i := 0; i+1 < len(dims); i += 2 {
			d = append(d, cwDim{dims[i], dims[i+1]})
		}
		listed[listKeyOf(metric, toDims(d))] = struct{}{}
	}
	add("ConsumedReadCapacityUnits", "TableName", "orders", "GlobalSecondaryIndexName", "gsi")
	add("SuccessfulRequestLatency", "Operation", "GetItem", "TableName", "orders")
	add("ThrottledRequests", "TableName", "other", "Operation", "Scan")
	p := plan([]*Table{tb}, true, listed, currentMode)
	for _, k := range append(append([]seriesKey{}, p.Queried...), p.ProvenZero...) {
		if specs[k.spec].metric == "WriteAccountLimitThrottleEvents" && k.index != "" {
			t.Errorf("WriteAccountLimitThrottleEvents planned per GSI (%+v): AWS publishes it per table only", k)
		}
	}
	queried := map[string]bool{}
	for _, k := range p.Queried {
		queried[specs[k.spec].metric+"/"+specs[k.spec].stat+"/"+k.index+"/"+k.operation] = true
	}
	want := []string{
		"ConsumedReadCapacityUnits/Sum/gsi/",
		"SuccessfulRequestLatency/Average//GetItem",
		"SuccessfulRequestLatency/p99//GetItem",
	}
	if len(queried) != len(want) {
		t.Errorf("queried = %v, want %v", queried, want)
	}
	for _, w := range want {
		if !queried[w] {
			t.Errorf("%s not queried; queried = %v", w, queried)
		}
	}
	// Operations come from this table's listed metrics only: GetItem, not Scan.
	for _, k := range p.ProvenZero {
		if k.operation == "Scan" {
			t.Errorf("operation of another table planned: %+v", k)
		}
	}
	// 11 table/index metrics x 2 (table, gsi) - 1 queried +
	// WriteAccountLimitThrottleEvents (table only) + TTL + UserErrors +
	// ThrottledRequests and SystemErrors for GetItem, less the on-demand
	// causes of a provisioned table (a table with no billing mode summary
	// is provisioned): {Read,Write}MaxOnDemandThroughput x 2,
	// ReadAccountLimit x 2 and WriteAccountLimit; + the account's two
	// provisioned-utilization metrics, not listed by this fake.
	if got, want := len(p.ProvenZero), 11*2-1+1+1+1+2-7+2; got != want {
		t.Errorf("proven zero = %d, want %d", got, want)
	}
}

// TestTierAssignment: the events alerts page on (every counter DynamoDB
// publishes only in minutes with events) are in the fast tier; only the
// series DynamoDB publishes even when idle and the latency gauges are in
// the slow tier, and every tier is named in the check command's plan.
func TestTierAssignment(t *testing.T) {
	for _, s := range specs {
		event := s.kind == sumCounter && !s.publishedWhenIdle
		if event && s.tier != FastTier {
			t.Errorf("%s (%s) is an event counter in the %s tier: alerts would see it late", s.metric, s.stat, s.tier)
		}
		if !event && s.tier != SlowTier {
			t.Errorf("%s (%s) is a slow-moving figure in the %s tier", s.metric, s.stat, s.tier)
		}
	}
	for tr := range numTiers {
		if tr.Summary() == "" || tr.String() == "" {
			t.Errorf("tier %d has no name or summary", tr)
		}
	}
	for m := range metricTiers {
		if !slices.ContainsFunc(specs, func(s metricSpec) bool { return s.metric == m }) {
			t.Errorf("metricTiers names %s, which no spec reads", m)
		}
	}
}

// TestPlanAsksForIndexBuildsOnlyWhileCreating: the OnlineIndex metrics are
// candidates only for an index DescribeTable reports CREATING; an ACTIVE
// index whose build CloudWatch still lists, an index without a status (an
// older answer) and a table not described yet get none.
func TestPlanAsksForIndexBuildsOnlyWhileCreating(t *testing.T) {
	gsi := func(name string, st types.IndexStatus) types.GlobalSecondaryIndexDescription {
		return types.GlobalSecondaryIndexDescription{IndexName: aws.String(name), IndexStatus: st}
	}
	tables := []*Table{
		{Name: "orders", Description: &types.TableDescription{GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			gsi("by-customer", types.IndexStatusCreating), gsi("by-date", types.IndexStatusActive), gsi("by-old", "")}}},
		{Name: "undescribed"},
	}
	listed := map[listKey]struct{}{}
	for _, idx := range []string{"by-customer", "by-date"} {
		listed[listKeyOf("OnlineIndexThrottleEvents", toDims([]cwDim{{"TableName", "orders"}, {"GlobalSecondaryIndexName", idx}}))] = struct{}{}
	}
	p := plan(tables, false, listed, currentMode)
	got := map[string]bool{}
	for _, ks := range [][]seriesKey{p.Queried, p.ProvenZero} {
		for _, k := range ks {
			if specs[k.spec].shape == perBuildingIndex {
				got[specs[k.spec].metric+"/"+k.table+"/"+k.index] = true
			}
		}
	}
	want := []string{"OnlineIndexPercentageProgress/orders/by-customer", "OnlineIndexConsumedWriteCapacity/orders/by-customer", "OnlineIndexThrottleEvents/orders/by-customer"}
	if len(got) != len(want) {
		t.Errorf("index-build series %v, want %v", got, want)
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("%s not planned; planned %v", w, got)
		}
	}
	for _, k := range p.Queried {
		if specs[k.spec].shape == perBuildingIndex && (k.index != "by-customer" || specs[k.spec].metric != "OnlineIndexThrottleEvents") {
			t.Errorf("queried %+v: only the listed throttle events of the building index are", k)
		}
	}
}
