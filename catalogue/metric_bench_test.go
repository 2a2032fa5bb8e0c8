package catalogue

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// BenchmarkMustMetricLiveHeap reports the heap that constant metrics of a
// family with four labels hold, per metric, the label values' strings
// being shared with the caller as in the collectors.
func BenchmarkMustMetricLiveHeap(b *testing.B) {
	const n = 100_000
	tables := make([]string, n/2)
	for i := range tables {
		tables[i] = "table-" + strconv.Itoa(i)
	}
	var live uint64
	for b.Loop() {
		before := liveHeap()
		ms := make([]prometheus.Metric, 0, n)
		for i := range n {
			ms = append(ms, MustMetric(ProvisionedReadCapacityUnits, float64(i), "123456789012", "us-east-1", tables[i/2], []string{"", "by-customer"}[i%2]))
		}
		live = liveHeap() - before - uint64(cap(ms))*16
		runtime.KeepAlive(ms)
	}
	b.ReportMetric(float64(live)/n, "live-B/metric")
}

// BenchmarkMustMetric reports what building a constant metric of a family
// with four labels costs.
func BenchmarkMustMetric(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		MustMetric(ProvisionedReadCapacityUnits, 5, "123456789012", "us-east-1", "orders", "by-customer")
	}
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
