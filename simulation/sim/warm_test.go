package sim

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestWarmThroughputSetting: tables[].warm_throughput reaches DescribeTable
// (a pre-warmed table, a raise in progress, an answer without the field),
// and a bad status is refused with its path.
func TestWarmThroughputSetting(t *testing.T) {
	sc, err := LoadScenario([]byte(`name: warm
history: 1d
tables:
  - name: launch
    billing: on_demand
    warm_throughput: {read: 50000, write: 20000, status: UPDATING}
    traffic: {read: 10, write: 5}
  - name: legacy
    billing: on_demand
    warm_throughput: {omitted: true}
    traffic: {read: 10, write: 5}
  - name: plain
    capacity: {read: 100, write: 50}
    traffic: {read: 10, write: 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	describe := func(name string) *dynamodb.DescribeTableOutput {
		t.Helper()
		out, err := r.ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if w := describe("launch").Table.WarmThroughput; w == nil || aws.ToInt64(w.ReadUnitsPerSecond) != 50000 || aws.ToInt64(w.WriteUnitsPerSecond) != 20000 || w.Status != "UPDATING" {
		t.Errorf("launch: %+v", w)
	}
	if w := describe("legacy").Table.WarmThroughput; w != nil {
		t.Errorf("legacy: want no WarmThroughput, got %+v", w)
	}
	if w := describe("plain").Table.WarmThroughput; w == nil || aws.ToInt64(w.ReadUnitsPerSecond) != 100 || aws.ToInt64(w.WriteUnitsPerSecond) != 50 || w.Status != "ACTIVE" {
		t.Errorf("plain: %+v", w)
	}
	_, err = LoadScenario([]byte(`name: warm
history: 1d
tables:
  - name: launch
    warm_throughput: {status: COLD}
    traffic: {read: 10, write: 5}
`))
	if err == nil {
		t.Fatal("status COLD accepted")
	}
}

// TestWarmThroughputGrowsWithOnDemandPeaks: an on-demand table whose
// traffic peaks above the new-table values reports a warm throughput at
// least that peak, and keeps it after the traffic falls.
func TestWarmThroughputGrowsWithOnDemandPeaks(t *testing.T) {
	sc, err := LoadScenario([]byte(`name: warm-peaks
history: 2h
tables:
  - name: crowd
    billing: on_demand
    traffic: {read: 30000, write: 9000}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	out, err := r.ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("crowd")})
	if err != nil {
		t.Fatal(err)
	}
	w := out.Table.WarmThroughput
	if w == nil || aws.ToInt64(w.ReadUnitsPerSecond) < 25000 || aws.ToInt64(w.WriteUnitsPerSecond) < 7000 {
		t.Fatalf("warm throughput %+v, want at least the served peak (about 30,000 read, 9,000 write)", w)
	}
}
