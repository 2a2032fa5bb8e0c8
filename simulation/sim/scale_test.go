package sim

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// buildFootprint builds n tables of scaleScenario with 90 days of history
// on a fresh server and returns the engine, the build time and the heap in
// use it added (runtime.MemStats.HeapInuse after a GC).
func buildFootprint(tb testing.TB, n int) (*Engine, time.Duration, uint64) {
	tb.Helper()
	sc, err := LoadScenario([]byte(ScaleScenario("scale", n, "90d")))
	if err != nil {
		tb.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	begin := time.Now()
	clk := clock.NewManual(t0)
	eng, err := New(sc, awssim.New(awssim.WithClock(clk)), clk)
	if err != nil {
		tb.Fatal(err)
	}
	took := time.Since(begin)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return eng, took, after.HeapInuse - min(before.HeapInuse, after.HeapInuse)
}

// TestAccountFootprintPerTable keeps the simulated account within the
// budget issue 13 sets (1,000 tables with 2 GSIs and 90 days of history in
// under 4 GiB): 20 tables of the bench's shape must hold under 2 MB each
// (the per-minute storage it replaced held 9.6 MB, the first compact one 1.85 MB).
func TestAccountFootprintPerTable(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 90 days of 20 tables")
	}
	const n = 20
	eng, took, heap := buildFootprint(t, n)
	perTable := float64(heap) / n
	t.Logf("%d tables × 90 days: %.1f MiB in use (%.2f MB per table), built in %s", n, float64(heap)/(1<<20), perTable/1e6, took.Round(time.Millisecond))
	if perTable > 2e6 {
		t.Errorf("%.2f MB per table, want under 2 MB", perTable/1e6)
	}
	runtime.KeepAlive(eng)
}

// BenchmarkBuildAccount builds the bench's account (2 GSIs per table,
// mixed modes, auto-scaling on a third, TTL on a tenth) with 90 days of
// history, as `go run ./cmd/bench` does, and reports the heap it holds
// (heap-MiB, runtime.MemStats.HeapInuse after a GC) and the build time
// (build-s). Issue 13's target at 1,000 tables: under 4 GiB, under a
// minute.
//
//	go test -run '^$' -bench 'BuildAccount/tables=1000' -benchtime 1x ./simulation/sim/
//
// With -short (the test command's run of every benchmark once) only the
// 100-table account is built: the 1,000-table one takes a minute.
func BenchmarkBuildAccount(b *testing.B) {
	sizes := []int{100, 1000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			var took time.Duration
			var heap uint64
			for b.Loop() {
				var eng *Engine
				eng, took, heap = buildFootprint(b, n)
				runtime.KeepAlive(eng)
			}
			b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(heap)/float64(n)/1e6, "MB/table")
			b.ReportMetric(took.Seconds(), "build-s")
		})
	}
}

// BenchmarkHistoryFetch answers what the exporter's first capacity-history
// fetch asks of a table of the bench's account with 90 days of history:
// consumed read and write capacity of the table and its 2 GSIs, hourly
// beyond 63 days, 5-minute beyond 15 days, per minute since (one request
// per window, as the exporter packs them). It reports the datapoints
// answered per second (points/s).
func BenchmarkHistoryFetch(b *testing.B) {
	sc, err := LoadScenario([]byte(ScaleScenario("scale", 3, "90d")))
	if err != nil {
		b.Fatal(err)
	}
	r := newRig(b, sc)
	now := r.clk.Now().Truncate(time.Minute)
	windows := []storageWindow{{3600, 90 * 24 * time.Hour, 63 * 24 * time.Hour}, {300, 63 * 24 * time.Hour, 15 * 24 * time.Hour}, {60, 15 * 24 * time.Hour, 0}}
	points := 0
	for b.Loop() {
		for _, w := range windows {
			in := &cloudwatch.GetMetricDataInput{StartTime: aws.Time(now.Add(-w.from)), EndTime: aws.Time(now.Add(-w.to)), ScanBy: cwtypes.ScanByTimestampAscending}
			for ti := range 3 {
				for _, idx := range []string{"", "by-owner", "by-date"} {
					for _, name := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"} {
						dims := []cwtypes.Dimension{{Name: aws.String("TableName"), Value: aws.String(fmt.Sprintf("scale-%04d", ti))}}
						if idx != "" {
							dims = append(dims, cwtypes.Dimension{Name: aws.String("GlobalSecondaryIndexName"), Value: aws.String(idx)})
						}
						in.MetricDataQueries = append(in.MetricDataQueries, cwtypes.MetricDataQuery{Id: aws.String(fmt.Sprintf("q%d", len(in.MetricDataQueries))),
							MetricStat: &cwtypes.MetricStat{Metric: &cwtypes.Metric{Namespace: aws.String("AWS/DynamoDB"), MetricName: aws.String(name), Dimensions: dims},
								Period: aws.Int32(w.period), Stat: aws.String("Sum")}})
					}
				}
			}
			out, err := r.cw.GetMetricData(context.Background(), in)
			if err != nil {
				b.Fatal(err)
			}
			for _, res := range out.MetricDataResults {
				points += len(res.Values)
			}
		}
	}
	b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
}
