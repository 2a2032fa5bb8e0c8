package collectors_test

import (
	"math"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// TestSuddenPeakKnownAnswers pins the rules of SuddenPeak (AWS's, restated
// in capacity_warm.go).
func TestSuddenPeakKnownAnswers(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		in   collectors.PeakInput
		want float64
	}{
		{"on-demand new table, reads", collectors.PeakInput{Mode: capacity.OnDemand, Warm: nan, Peak30d: nan}, 12000},
		{"on-demand new table, writes", collectors.PeakInput{Mode: capacity.OnDemand, Warm: nan, Peak30d: nan, Write: true}, 4000},
		{"on-demand, twice the 30-day peak", collectors.PeakInput{Mode: capacity.OnDemand, Warm: nan, Peak30d: 9000}, 18000},
		{"on-demand, warm throughput above twice the peak", collectors.PeakInput{Mode: capacity.OnDemand, Warm: 30000, WarmStatus: "ACTIVE", Peak30d: 9000}, 30000},
		{"on-demand, warm throughput below twice the peak", collectors.PeakInput{Mode: capacity.OnDemand, Warm: 15000, WarmStatus: "ACTIVE", Peak30d: 9000}, 18000},
		{"on-demand, warm throughput UPDATING is not used", collectors.PeakInput{Mode: capacity.OnDemand, Warm: 100000, WarmStatus: "UPDATING", Peak30d: 9000}, 18000},
		{"on-demand, no WarmThroughput field", collectors.PeakInput{Mode: capacity.OnDemand, Warm: nan, Peak30d: 3000, Write: true}, 6000},
		{"on-demand maximum caps it", collectors.PeakInput{Mode: capacity.OnDemand, Warm: 30000, WarmStatus: "ACTIVE", Peak30d: 9000, OnDemandMax: 5000}, 5000},
		{"provisioned: its capacity, not its warm throughput", collectors.PeakInput{Mode: capacity.Provisioned, Warm: 30000, WarmStatus: "ACTIVE", Peak30d: 900, Provisioned: 1000}, 1000},
		{"provisioned, capacity unknown", collectors.PeakInput{Mode: capacity.Provisioned, Warm: 30000, WarmStatus: "ACTIVE", Provisioned: nan}, nan},
		{"unknown mode", collectors.PeakInput{Mode: "SOMETHING_NEW", Warm: 30000, WarmStatus: "ACTIVE", Peak30d: 10}, nan},
	}
	for _, c := range cases {
		got := collectors.SuddenPeak(c.in)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: SuddenPeak = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHeadroom(t *testing.T) {
	w := collectors.WarmFigures{Peak30d: [2]float64{9000, 0}, SuddenPeak: [2]float64{30000, 4000}}
	if got := w.Headroom(0); math.Abs(got-30000.0/9000) > 1e-12 {
		t.Errorf("read headroom = %v, want %v", got, 30000.0/9000)
	}
	if got := w.Headroom(1); !math.IsNaN(got) {
		t.Errorf("write headroom without a peak = %v, want NaN", got)
	}
}

// TestWarmThroughputs: a table and GSI with and without the field (older
// API answers have none: left out, no figure), a status AWS gives or not.
func TestWarmThroughputs(t *testing.T) {
	d := &types.TableDescription{
		WarmThroughput: &types.TableWarmThroughputDescription{ReadUnitsPerSecond: aws.Int64(12000), WriteUnitsPerSecond: aws.Int64(4000), Status: types.TableStatusUpdating},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			{IndexName: aws.String("old")},
			{IndexName: aws.String("half"), WarmThroughput: &types.GlobalSecondaryIndexWarmThroughputDescription{ReadUnitsPerSecond: aws.Int64(3000)}},
		},
	}
	got := collectors.WarmThroughputs(d)
	if len(got) != 2 {
		t.Fatalf("got %d warm throughputs, want 2 (the GSI without the field left out): %+v", len(got), got)
	}
	if got[0].Index != "" || got[0].Units != [2]float64{12000, 4000} || got[0].Status != "UPDATING" {
		t.Errorf("table: %+v", got[0])
	}
	if got[1].Index != "half" || got[1].Units[0] != 3000 || !math.IsNaN(got[1].Units[1]) || got[1].Status != collectors.Unknown {
		t.Errorf("GSI: %+v", got[1])
	}
	if collectors.WarmThroughputs(&types.TableDescription{}) != nil || collectors.WarmThroughputs(nil) != nil {
		t.Error("a description without WarmThroughput must give none")
	}
}
