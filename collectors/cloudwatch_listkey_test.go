package collectors

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestListKeyMatchesQueriedDimensions: a series' ListMetrics key is the key
// of the dimensions it is queried with, whatever their order.
func TestListKeyMatchesQueriedDimensions(t *testing.T) {
	tb := &Table{Name: "orders", Description: &types.TableDescription{
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexName: aws.String("gsi")}},
	}}
	listed := map[listKey]struct{}{}
	for _, op := range []string{"GetItem", "Query"} {
		listed[listKeyOf("ThrottledRequests", toDims([]cwDim{{"TableName", "orders"}, {"Operation", op}}))] = struct{}{}
	}
	p := plan([]*Table{tb}, true, listed, currentMode)
	n := 0
	for _, k := range append(append([]seriesKey{}, p.Queried...), p.ProvenZero...) {
		d := k.dimensions()
		if got, want := k.listKey(), listKeyOf(specs[k.spec].metric, d); got != want {
			t.Errorf("%+v: listKey() = %+v, key of its dimensions %+v", k, got, want)
		}
		if len(d) == 2 {
			d[0], d[1] = d[1], d[0]
			if got, want := k.listKey(), listKeyOf(specs[k.spec].metric, d); got != want {
				t.Errorf("%+v: listKey() = %+v, key of its dimensions reversed %+v", k, got, want)
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no series planned")
	}
}

// TestPlanIgnoresListedMetricsWithOtherDimensions: a listed metric whose
// dimension set is not exactly a series' (an extra or unknown dimension,
// one named twice, an empty index) proves no series active.
func TestPlanIgnoresListedMetricsWithOtherDimensions(t *testing.T) {
	tb := &Table{Name: "orders", Description: &types.TableDescription{
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexName: aws.String("gsi")}},
	}}
	cases := map[string][]cwDim{
		"extra dimension":     {{"TableName", "orders"}, {"ReceivingRegion", "eu-west-1"}},
		"extra on index":      {{"TableName", "orders"}, {"GlobalSecondaryIndexName", "gsi"}, {"StreamLabel", "x"}},
		"unknown only":        {{"ReceivingRegion", "eu-west-1"}},
		"table named twice":   {{"TableName", "orders"}, {"TableName", "orders"}},
		"empty index":         {{"TableName", "orders"}, {"GlobalSecondaryIndexName", ""}},
		"operation on table":  {{"TableName", "orders"}, {"Operation", ""}},
		"index of no table":   {{"GlobalSecondaryIndexName", "gsi"}},
		"unnamed dimension":   {{"", "orders"}},
		"empty table present": {{"TableName", ""}},
	}
	for name, dims := range cases {
		listed := map[listKey]struct{}{listKeyOf("ConsumedReadCapacityUnits", toDims(dims)): {}}
		p := plan([]*Table{tb}, true, listed, currentMode)
		for _, k := range p.Queried {
			t.Errorf("%s: %+v queried", name, k)
		}
	}
	// The control: the same metric with exactly a series' dimensions is
	// queried.
	listed := map[listKey]struct{}{listKeyOf("ConsumedReadCapacityUnits", toDims([]cwDim{{"GlobalSecondaryIndexName", "gsi"}, {"TableName", "orders"}})): {}}
	p := plan([]*Table{tb}, true, listed, currentMode)
	if len(p.Queried) != 1 || p.Queried[0].index != "gsi" || specs[p.Queried[0].spec].metric != "ConsumedReadCapacityUnits" {
		t.Errorf("queried = %+v, want ConsumedReadCapacityUnits of gsi", p.Queried)
	}
}

// TestPlanPerAccountSeriesListedWithoutDimensions: a metric listed with no
// dimensions is the account-level series, and proves no table's series.
func TestPlanPerAccountSeriesListedWithoutDimensions(t *testing.T) {
	tb := &Table{Name: "orders"}
	listed := map[listKey]struct{}{listKeyOf("UserErrors", nil): {}, listKeyOf("ConsumedReadCapacityUnits", nil): {}}
	p := plan([]*Table{tb}, true, listed, currentMode)
	if len(p.Queried) != 1 || specs[p.Queried[0].spec].metric != "UserErrors" || p.Queried[0].table != "" {
		t.Errorf("queried = %+v, want UserErrors alone", p.Queried)
	}
}
