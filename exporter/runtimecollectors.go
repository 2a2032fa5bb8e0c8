package exporter

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promcollectors "github.com/prometheus/client_golang/prometheus/collectors"
)

// runtimeMaxAge is how old the Go and process metrics a scrape serves may
// be. Reading them costs about half a millisecond of system calls per scrape
// (the process collector reads /proc/self/stat, /proc/stat, the limits,
// the descriptor table and /proc/self/net/netstat), more than the rest of
// a scrape at 10 or 100 tables; concurrent scrapes (Prometheus pairs, a
// burst of them) share one reading instead. A second is far below any scrape
// interval, so that rates over these series are unchanged.
const runtimeMaxAge = time.Second

// runtimeCollectors returns the standard Go and process collectors, each
// read at most once per runtimeMaxAge.
func runtimeCollectors() []prometheus.Collector {
	return []prometheus.Collector{
		newCachedCollector(promcollectors.NewGoCollector(), runtimeMaxAge, time.Now),
		newCachedCollector(promcollectors.NewProcessCollector(promcollectors.ProcessCollectorOpts{}), runtimeMaxAge, time.Now),
	}
}

// cachedCollector collects another collector at most once per maxAge and
// replays what it collected to the collections in between. It suits a
// collector whose metrics are immutable once sent (constant metrics, as
// the Go and process collectors send), and whose values may be up to
// maxAge old.
type cachedCollector struct {
	c      prometheus.Collector
	maxAge time.Duration
	now    func() time.Time

	// mu is held while collecting, so that concurrent collections share
	// one reading.
	mu sync.Mutex
	at time.Time
	ms []prometheus.Metric
	ok bool // ms holds a reading
}

func newCachedCollector(c prometheus.Collector, maxAge time.Duration, now func() time.Time) *cachedCollector {
	return &cachedCollector{c: c, maxAge: maxAge, now: now}
}

// Describe describes the wrapped collector.
func (c *cachedCollector) Describe(ch chan<- *prometheus.Desc) { c.c.Describe(ch) }

// Collect sends the metrics of the last reading, after reading anew if it
// is maxAge old or more.
func (c *cachedCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	if t := c.now(); !c.ok || t.Sub(c.at) >= c.maxAge || t.Before(c.at) {
		// A new slice: collections in flight may still be sending the old one.
		c.ms, c.at, c.ok = collectAll(c.c, make([]prometheus.Metric, 0, len(c.ms))), t, true
	}
	ms := c.ms
	c.mu.Unlock()
	for _, m := range ms {
		ch <- m
	}
}

// collectAll appends everything c collects to ms.
func collectAll(c prometheus.Collector, ms []prometheus.Metric) []prometheus.Metric {
	in := make(chan prometheus.Metric, 64)
	go func() {
		c.Collect(in)
		close(in)
	}()
	for m := range in {
		ms = append(ms, m)
	}
	return ms
}
