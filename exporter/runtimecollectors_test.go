package exporter

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// countingCollector sends one gauge holding how many times it was collected.
type countingCollector struct {
	desc  *prometheus.Desc
	calls atomic.Int64
}

func (c *countingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c *countingCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.calls.Add(1)
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}

// collectedValue collects c once and returns the value of its only metric.
func collectedValue(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	ms := collectAll(c, nil)
	if len(ms) != 1 {
		t.Fatalf("collected %d metrics, want 1", len(ms))
	}
	var pb dto.Metric
	if err := ms[0].Write(&pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetGauge().GetValue()
}

func TestCachedCollectorReadsAtMostOncePerMaxAge(t *testing.T) {
	inner := &countingCollector{desc: prometheus.NewDesc("readings", "Readings.", nil, nil)}
	now := time.Unix(1_000_000, 0)
	c := newCachedCollector(inner, time.Second, func() time.Time { return now })
	steps := []struct {
		advance time.Duration
		want    float64
	}{
		{0, 1},                      // the first collection reads
		{500 * time.Millisecond, 1}, // within a second: replayed
		{499 * time.Millisecond, 1}, // 999 ms after the reading
		{time.Millisecond, 2},       // a second old: read anew
		{-10 * time.Second, 3},      // the clock went back: read anew
		{999 * time.Millisecond, 3}, // replayed from the new reading
		{time.Hour, 4},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := collectedValue(t, c); got != s.want {
			t.Errorf("step %d (+%v): value %v, want %v", i, s.advance, got, s.want)
		}
	}
	if got := inner.calls.Load(); got != 4 {
		t.Errorf("inner collector read %d times, want 4", got)
	}
}

func TestCachedCollectorSharesOneReadingAmongConcurrentScrapes(t *testing.T) {
	inner := &countingCollector{desc: prometheus.NewDesc("readings", "Readings.", nil, nil)}
	c := newCachedCollector(inner, time.Hour, time.Now)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if got := collectedValue(t, c); got != 1 {
				t.Errorf("value %v, want 1 (the one reading)", got)
			}
		})
	}
	wg.Wait()
	if got := inner.calls.Load(); got != 1 {
		t.Errorf("inner collector read %d times by 16 concurrent collections, want 1", got)
	}
}

// The runtime collectors keep the families and descriptors of the
// standard ones: a registry accepts them and their metrics are consistent.
func TestRuntimeCollectorsGatherTheStandardFamilies(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	for _, c := range runtimeCollectors() {
		reg.MustRegister(c)
	}
	for range 2 { // the second gather replays the first reading
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, mf := range mfs {
			names[mf.GetName()] = true
		}
		for _, want := range []string{"go_goroutines", "go_gc_gogc_percent", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
			if !names[want] {
				t.Errorf("family %s missing from %d families", want, len(mfs))
			}
		}
	}
}
