package catalogue

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// BenchmarkMustMetricLiveHeap reports the heap that constant metrics of
// families with four labels hold, per metric, the label values' strings
// being shared with the caller as in the collectors: every metric with
// label values of its own (distinct), and each tuple of label values shared
// by four families, as the families of one table or index share them in a
// snapshot (shared).
func BenchmarkMustMetricLiveHeap(b *testing.B) {
	const n = 100_000
	families := []string{ProvisionedReadCapacityUnits, ProvisionedWriteCapacityUnits, ConsumedReadCapacityUnitsTotal, ConsumedWriteCapacityUnitsTotal}
	for _, shared := range []int{1, len(families)} {
		b.Run(map[bool]string{false: "distinct", true: "shared"}[shared > 1], func(b *testing.B) {
			tables := make([]string, n/2/shared)
			for i := range tables {
				tables[i] = "table-" + strconv.Itoa(i)
			}
			var live uint64
			for b.Loop() {
				before := liveHeap()
				ms := make([]prometheus.Metric, 0, n)
				for i := range n {
					tuple := i / shared
					ms = append(ms, MustMetric(families[i%shared], float64(i), "123456789012", "us-east-1", tables[tuple/2], []string{"", "by-customer"}[tuple%2]))
				}
				live = liveHeap() - before - uint64(cap(ms))*16
				runtime.KeepAlive(ms)
			}
			b.ReportMetric(float64(live)/n, "live-B/metric")
		})
	}
}

// BenchmarkMustMetric reports what building a constant metric of a family
// with four labels costs, its label values interned already (a snapshot of
// the cycle before held them).
func BenchmarkMustMetric(b *testing.B) {
	keep := MustMetric(ProvisionedReadCapacityUnits, 5, "123456789012", "us-east-1", "orders", "by-customer")
	b.ReportAllocs()
	for b.Loop() {
		MustMetric(ProvisionedReadCapacityUnits, 5, "123456789012", "us-east-1", "orders", "by-customer")
	}
	runtime.KeepAlive(keep)
}

// BenchmarkMetricWrite reports what writing a constant metric of a family
// with four labels allocates: what a gather allocates per series, on top of
// the registry's own dto.Metric.
func BenchmarkMetricWrite(b *testing.B) {
	m := MustMetric(ProvisionedReadCapacityUnits, 5, "123456789012", "us-east-1", "orders", "by-customer")
	b.ReportAllocs()
	for b.Loop() {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			b.Fatal(err)
		}
	}
}

// liveHeap returns the bytes of live heap objects, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
