package collectors

import (
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// classTable is a table of size bytes (and a GSI of gsiBytes) in class.
func classTable(class *types.TableClassSummary, bytes, gsiBytes *int64) *Table {
	return &Table{Name: "archive", Description: &types.TableDescription{
		TableName: aws.String("archive"), TableClassSummary: class, TableSizeBytes: bytes,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexName: aws.String("by-day"), IndexSizeBytes: gsiBytes}},
	}}
}

// onDemandMonth is an on-demand table's workload results over 30 days
// whose Standard throughput costs throughput USD a month in us-east-1
// (reads only).
func onDemandMonth(throughput float64) []capacity.WorkloadResult {
	hours := 720.0
	units := throughput / capacity.HoursPerMonth * hours / 0.125e-6
	r := capacity.WorkloadResult{Hours: hours, ReadMethod: capacity.MethodAutoScaling, WriteMethod: capacity.MethodAutoScaling}
	r.Read.Demand = units
	return []capacity.WorkloadResult{r}
}

// TestClassFiguresKnownAnswer: an on-demand us-east-1 table whose
// throughput costs $100 a month under Standard; with 600 GiB stored
// ($150 a month) Standard-IA saves 0.6×150 − 0.25×100 = $65 a month.
func TestClassFiguresKnownAnswer(t *testing.T) {
	c := NewCapacity(Deps{}, CapacitySettings{})
	gib := int64(capacity.GB)
	tb := classTable(&types.TableClassSummary{TableClass: types.TableClassStandard}, aws.Int64(500*gib), aws.Int64(100*gib))
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	f := c.classFigures("us-east-1", tb, capacity.OnDemand, "30d", onDemandMonth(100), now)
	if f.Missing != "" {
		t.Fatalf("missing: %s", f.Missing)
	}
	if len(f.Storage) != 2 || f.Storage[0].Monthly != 125 || f.Storage[1].Monthly != 25 || f.Storage[1].Index != "by-day" {
		t.Errorf("storage %+v, want $125 (table) and $25 (by-day)", f.Storage)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if !near(f.Standard.Throughput, 100) || !near(f.Standard.Storage, 150) || !near(f.StandardIA.Throughput, 125) || !near(f.StandardIA.Storage, 60) {
		t.Errorf("costs %+v %+v, want standard 100+150, IA 125+60", f.Standard, f.StandardIA)
	}
	if f.Advice.Action != capacity.SwitchToStandardIA || !near(f.Advice.Saving, 65) || f.Window != "30d" {
		t.Errorf("advice %+v in %q, want switch_to_standard_ia saving $65 in 30d", f.Advice, f.Window)
	}
	// The same table switched to Standard-IA ten days ago: no advice to
	// switch back, and none to switch again.
	tb = classTable(&types.TableClassSummary{TableClass: types.TableClassStandard, LastUpdateDateTime: aws.Time(now.Add(-10 * 24 * time.Hour))}, aws.Int64(500*gib), aws.Int64(100*gib))
	f = c.classFigures("us-east-1", tb, capacity.OnDemand, "30d", onDemandMonth(100), now)
	if f.Advice.Action != capacity.KeepClass || f.Advice.Code != capacity.ReasonRecentClassChange {
		t.Errorf("class changed 10 days ago: %+v, want keep/recent_class_change", f.Advice)
	}
}

// TestClassFiguresBadInput: every input the comparison cannot price
// honestly gives no comparison and a reason, never a figure.
func TestClassFiguresBadInput(t *testing.T) {
	c := NewCapacity(Deps{}, CapacitySettings{})
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	std := &types.TableClassSummary{TableClass: types.TableClassStandard}
	for _, x := range []struct {
		name        string
		region      string
		tb          *Table
		want        ClassMissing
		wantStorage bool
	}{
		{"no TableClassSummary", "us-east-1", classTable(nil, aws.Int64(1), aws.Int64(1)), ClassNotReported, false},
		{"an empty class", "us-east-1", classTable(&types.TableClassSummary{}, aws.Int64(1), aws.Int64(1)), ClassNotReported, false},
		{"an unknown class", "us-east-1", classTable(&types.TableClassSummary{TableClass: "STANDARD_GLACIER"}, aws.Int64(1), aws.Int64(1)), ClassUnknown, false},
		{"no storage price", "eu-west-3", classTable(std, aws.Int64(1), aws.Int64(1)), ClassNoPrice, false},
		{"no table size", "us-east-1", classTable(std, nil, aws.Int64(1)), ClassNoSize, false},
		{"no index size", "us-east-1", classTable(std, aws.Int64(1), nil), ClassNoSize, false},
	} {
		f := c.classFigures(x.region, x.tb, capacity.OnDemand, "30d", onDemandMonth(100), now)
		if f.Missing != x.want || f.Window != "" || (len(f.Storage) > 0) != x.wantStorage {
			t.Errorf("%s: missing %q window %q storage %v, want %q, no window, storage %v", x.name, f.Missing, f.Window, f.Storage, x.want, x.wantStorage)
		}
	}
	// A region with a storage override but no throughput price: storage,
	// no comparison.
	c = NewCapacity(Deps{}, CapacitySettings{Prices: []capacity.PriceOverride{{Region: "eu-west-3", Prices: capacity.Prices{StorageGBMonth: 0.3}}}})
	f := c.classFigures("eu-west-3", classTable(std, aws.Int64(capacity.GB), aws.Int64(0)), capacity.OnDemand, "30d", onDemandMonth(100), now)
	if f.Missing != ClassNoPrice || len(f.Storage) != 2 || math.Abs(f.Storage[0].Monthly-0.3) > 1e-12 {
		t.Errorf("storage priced, throughput not: %+v, want storage $0.30 and no_price", f)
	}
}
