package collectors

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/packedsums"

	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// heapAccount is a simulated account (a scenario) behind a manual clock,
// discovered.
type heapAccount struct {
	clk    *clock.Manual
	srv    *awssim.Server
	target *awsclient.Target
	inv    *Inventory
}

// newHeapAccount builds the account of sim.ScaleScenario (n tables with 2
// GSIs, 90 days of history), its history ending at start.
func newHeapAccount(tb testing.TB, n int, start time.Time) *heapAccount {
	tb.Helper()
	a := newScenarioAccount(tb, sim.ScaleScenario("heap", n, "90d"), start)
	if got := len(a.inv.Tables(a.target.Key())); got != n {
		tb.Fatalf("discovered %d tables, want %d", got, n)
	}
	return a
}

// newScenarioAccount builds the account of a scenario (YAML), its history
// ending at start.
func newScenarioAccount(tb testing.TB, scenario string, start time.Time) *heapAccount {
	tb.Helper()
	sc, err := sim.LoadScenario([]byte(scenario))
	if err != nil {
		tb.Fatal(err)
	}
	return newSimulatedAccount(tb, sc, start)
}

// newSimulatedAccount builds the account of a loaded scenario, its history
// ending at start.
func newSimulatedAccount(tb testing.TB, sc *sim.Scenario, start time.Time) *heapAccount {
	tb.Helper()
	clk := clock.NewManual(start)
	srv := awssim.New(awssim.WithClock(clk), awssim.WithLogger(slog.New(slog.DiscardHandler)))
	if _, err := sim.New(sc, srv, clk); err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	tb.Cleanup(hs.Close)
	cfg := testtools.AWSConfig(hs.URL)
	target := &awsclient.Target{Account: "acct", Region: "us-east-1", DynamoDB: dynamodb.NewFromConfig(cfg),
		CloudWatch: cloudwatch.NewFromConfig(cfg), AutoScaling: applicationautoscaling.NewFromConfig(cfg)}
	a := &heapAccount{clk: clk, srv: srv, target: target, inv: NewInventory()}
	targets := []*awsclient.Target{target}
	if err := NewDiscovery(Deps{Targets: targets, Inventory: a.inv, Logger: slog.New(slog.DiscardHandler)}, DiscoverySettings{}).Run(context.Background(), start); err != nil {
		tb.Fatal(err)
	}
	a.refreshTables(tb)
	return a
}

// refreshTables reads the tables' descriptions again (the Tables
// collector's run) at the clock's time.
func (a *heapAccount) refreshTables(tb testing.TB) {
	tb.Helper()
	if err := NewTables(Deps{Targets: []*awsclient.Target{a.target}, Inventory: a.inv, Logger: slog.New(slog.DiscardHandler)}, TablesSettings{Concurrency: 8}).Run(context.Background(), a.clk.Now()); err != nil {
		tb.Fatal(err)
	}
}

// collector returns a capacity collector with the exporter's default
// settings (config.Capacity's defaults).
func (a *heapAccount) collector() *Capacity {
	d := capacity.DefaultAutoScaling()
	d.ScaleOutDelay = config.DefaultCapacityScaleOutDelay
	return NewCapacity(Deps{Targets: []*awsclient.Target{a.target}, Inventory: a.inv, Logger: slog.New(slog.DiscardHandler)}, CapacitySettings{
		Delay: config.DefaultCapacityDelay, History: config.DefaultCapacityHistory,
		PeakPercentile: config.DefaultCapacityPeakPercentile, SurgeFactor: config.DefaultCapacitySurgeFactor,
		ScaleOutDelay: config.DefaultCapacityScaleOutDelay,
		Options: capacity.Options{MinMonthlySaving: config.DefaultCapacityMinMonthlySaving, MinRequestRate: config.DefaultCapacityMinRequestRate,
			MaxThrottledRatio: config.DefaultCapacityMaxThrottledRatio, DefaultAutoScaling: &d},
		Fetch: FetchSettings{Concurrency: 4, RequestsPerSecond: 1e6},
	})
}

// liveHeap returns the heap in use after a full collection.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// capacityHeap is the live heap one capacity collector holds, measured by
// releasing its parts one after another (each part: the heap a full
// collection frees when it goes).
type capacityHeap struct {
	// charts: the reports' hourly chart arrays (TableReport.Hourly).
	charts int64
	// whatIf: the running what-ifs (simulation state and record).
	whatIf int64
	// peaks: the peak candidates of every history.
	peaks int64
	// hours: the hourly Sums and the minute tails of every history.
	hours int64
	// reports: the reports without their charts.
	reports int64
	// snapshot: the metrics of the last run.
	snapshot int64
	// rest: everything else (maps, history headers).
	rest int64
	// candidates is the number of peak candidates held.
	candidates int
}

func (h capacityHeap) total() int64 {
	return h.charts + h.whatIf + h.peaks + h.hours + h.reports + h.snapshot + h.rest
}

// releaseCapacity measures c's heap by releasing it part by part; c is
// unusable after.
func releaseCapacity(c *Capacity) capacityHeap {
	var out capacityHeap
	for _, st := range c.state {
		for _, h := range st.hist {
			out.candidates += h.peaks.size()
		}
	}
	step := func(drop func(st *capacityState)) int64 {
		before := liveHeap()
		for _, st := range c.state {
			drop(st)
		}
		return before - liveHeap()
	}
	out.charts = step(func(st *capacityState) {
		for i := range st.reports {
			st.reports[i].Hourly = HourlyHistory{}
		}
	})
	out.whatIf = step(func(st *capacityState) { st.whatIf = nil })
	out.peaks = step(func(st *capacityState) {
		for _, h := range st.hist {
			h.peaks = peakSet{}
		}
	})
	out.hours = step(func(st *capacityState) {
		for _, h := range st.hist {
			h.hours, h.tail = packedsums.Sums{}, nil
		}
	})
	out.reports = step(func(st *capacityState) { st.reports = nil })
	before := liveHeap()
	c.snap.store(nil)
	out.snapshot = before - liveHeap()
	before = liveHeap()
	c.state = nil
	out.rest = before - liveHeap()
	runtime.KeepAlive(c)
	return out
}

// heapTables is the number of tables of BenchmarkCapacityLiveHeap
// (CAPACITY_HEAP_TABLES, default 30; 6 under -short, where it only has to
// run).
func heapTables(b *testing.B) int {
	if s := os.Getenv("CAPACITY_HEAP_TABLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("CAPACITY_HEAP_TABLES=%q", s)
		}
		return n
	}
	if testing.Short() {
		return 6
	}
	return 30
}

// BenchmarkCapacityLiveHeap measures the live heap the capacity collector
// holds for the simulated account of sim.ScaleScenario (2 GSIs per table,
// 90 days of history, the exporter's default settings) after its first
// cycle and after a day of hourly cycles, per series (table or GSI, read
// or write) and per table, broken down into the hourly Sums (and minute
// tails), the peak candidates, the what-ifs, the reports' chart arrays,
// the reports, the snapshot of metrics and the rest. Run with
// -benchtime=1x; CAPACITY_HEAP_TABLES sets the tables. Under -short the
// day of hourly cycles is 3 of them.
func BenchmarkCapacityLiveHeap(b *testing.B) {
	n := heapTables(b)
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	days := []int{0, 24}
	if testing.Short() {
		// The test command runs every benchmark once to prove it runs:
		// 3 hourly cycles stand for the day there.
		days = []int{0, 3}
	}
	for _, cycles := range days {
		b.Run("hourly="+strconv.Itoa(cycles), func(b *testing.B) {
			a := newHeapAccount(b, n, start)
			ctx := context.Background()
			var heap capacityHeap
			for b.Loop() {
				a.clk.Set(start)
				c := a.collector()
				if err := c.Run(ctx, start); err != nil {
					b.Fatal(err)
				}
				for k := 1; k <= cycles; k++ {
					at := a.clk.Advance(time.Hour)
					if err := c.Run(ctx, at); err != nil {
						b.Fatal(err)
					}
				}
				if got := len(c.Reports()); got != n {
					b.Fatalf("%d reports, want %d", got, n)
				}
				heap = releaseCapacity(c)
			}
			series := float64(6 * n)
			b.ReportMetric(float64(heap.total())/series, "B/series")
			b.ReportMetric(float64(heap.total())/float64(n), "B/table")
			b.ReportMetric(float64(heap.hours)/series, "hours-B/series")
			b.ReportMetric(float64(heap.peaks)/series, "peaks-B/series")
			b.ReportMetric(float64(heap.whatIf)/series, "whatif-B/series")
			b.ReportMetric(float64(heap.charts)/float64(n), "charts-B/table")
			b.ReportMetric(float64(heap.reports)/float64(n), "reports-B/table")
			b.ReportMetric(float64(heap.snapshot)/float64(n), "snapshot-B/table")
			b.ReportMetric(float64(heap.rest)/series, "rest-B/series")
			b.ReportMetric(float64(heap.candidates)/series, "candidates/series")
			b.ReportMetric(float64(heap.peaks)/max(float64(heap.candidates), 1), "B/candidate")
		})
	}
}
