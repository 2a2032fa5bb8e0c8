package collectors

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// TestPeak30d: the highest minute of the last 7 days (a Sum of 600 units
// in a minute: 10 units/s) against the highest hour before them (an hour
// of 90,000 units: 25 units/s), and an empty history.
func TestPeak30d(t *testing.T) {
	end := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	b := boundsAt(end, 30*day)
	h := newHistory(b)
	minutes := make([]time.Time, 0, 3)
	vs := []float64{60, 600, 120}
	for i := range vs {
		minutes = append(minutes, end.Add(-2*day+time.Duration(i)*time.Minute))
	}
	h.apply(fetchWindow{start: end.Add(-2 * day), end: end.Add(-2*day + 3*time.Minute), period: time.Minute}, pts(minutes, vs))
	if got := peak30d(h, end); got != 10 {
		t.Fatalf("7-day peak: got %v units/s, want 10", got)
	}
	old := end.Add(-20 * day)
	h.apply(fetchWindow{start: old, end: old.Add(time.Hour), period: time.Hour}, pts([]time.Time{old}, []float64{90000}))
	if got := peak30d(h, end); got != 25 {
		t.Fatalf("with an older busy hour: got %v units/s, want 25", got)
	}
	if got := peak30d(nil, end); !math.IsNaN(got) {
		t.Fatalf("no history: got %v, want NaN", got)
	}
}

// TestTableMetricsWarmThroughput: the warm family per table and GSI with
// AWS's status as a label (UPDATING shown as such), none for a GSI whose
// answer has no WarmThroughput.
func TestTableMetricsWarmThroughput(t *testing.T) {
	tb := &Table{Name: "shop", Description: &types.TableDescription{
		TableName:      aws.String("shop"),
		WarmThroughput: &types.TableWarmThroughputDescription{ReadUnitsPerSecond: aws.Int64(50000), WriteUnitsPerSecond: aws.Int64(20000), Status: types.TableStatusUpdating},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			{IndexName: aws.String("by-day")},
		},
	}}
	var got []string
	for _, m := range tableMetrics(&awsclient.Target{Account: "a", Region: "us-east-1"}, tb) {
		if !strings.Contains(m.Desc().String(), `"`+catalogue.WarmThroughputUnits+`"`) {
			continue
		}
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		ls := map[string]string{}
		for _, l := range pb.GetLabel() {
			ls[l.GetName()] = l.GetValue()
		}
		got = append(got, fmt.Sprintf("%s/%s/%s=%g", ls["index"], ls["dimension"], ls["status"], pb.GetGauge().GetValue()))
	}
	sort.Strings(got)
	want := []string{"/read/UPDATING=50000", "/write/UPDATING=20000"}
	if !slices.Equal(got, want) {
		t.Fatalf("warm series %v, want %v", got, want)
	}
}

// TestWarmFigures: an on-demand table with a read maximum and an ACTIVE
// warm throughput, and a GSI with neither history nor warm throughput.
func TestWarmFigures(t *testing.T) {
	end := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	b := boundsAt(end, 30*day)
	st := &capacityState{hist: map[historyKey]*history{}}
	at := end.Add(-time.Hour)
	for k, v := range []float64{600000, 420000} { // 10,000 read and 7,000 write units/s for a minute
		h := newHistory(b)
		h.apply(fetchWindow{start: at, end: at.Add(time.Minute), period: time.Minute}, pts([]time.Time{at}, []float64{v}))
		st.hist[historyKey{table: "shop", write: k == 1}] = h
	}
	tb := &Table{Name: "shop", Description: &types.TableDescription{
		TableName:          aws.String("shop"),
		BillingModeSummary: &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest},
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(15000), MaxWriteRequestUnits: aws.Int64(-1)},
		WarmThroughput:     &types.TableWarmThroughputDescription{ReadUnitsPerSecond: aws.Int64(30000), WriteUnitsPerSecond: aws.Int64(10000), Status: types.TableStatusActive},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			{IndexName: aws.String("by-day")},
		},
	}}
	ws := warmFigures(st, tb, end)
	if len(ws) != 2 {
		t.Fatalf("got %d figures, want 2", len(ws))
	}
	// Reads: max(12,000, 2 × 10,000, 30,000) capped at 15,000; writes:
	// max(4,000, 2 × 7,000, 10,000), no maximum (-1).
	if ws[0].SuddenPeak != [2]float64{15000, 14000} || ws[0].Peak30d != [2]float64{10000, 7000} {
		t.Errorf("table: %+v", ws[0])
	}
	if ws[1].Index != "by-day" || ws[1].SuddenPeak != [2]float64{12000, 4000} || !math.IsNaN(ws[1].Warm[0]) || ws[1].WarmStatus != "" {
		t.Errorf("GSI: %+v", ws[1])
	}
}
