// Package exporter wires the collectors to Prometheus: a registry collector
// that serves the collectors' last snapshots (a scrape never calls AWS), the
// background scheduler, the exporter's self-metrics and the HTTP server,
// which serves /metrics through the exposition cache (package exposition).
package exporter

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Exporter is a prometheus.Collector over the background collectors'
// snapshots and the self-metrics.
type Exporter struct {
	collectors []collectors.Collector
	self       *SelfMetrics
}

// New returns an Exporter serving the given collectors.
func New(cs []collectors.Collector, self *SelfMetrics) *Exporter {
	return &Exporter{collectors: cs, self: self}
}

// Describe implements prometheus.Collector with every catalogued family.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) { catalogue.DescribeAll(ch) }

// Collect implements prometheus.Collector. It only reads snapshots.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	for _, c := range e.collectors {
		for _, m := range c.Metrics() {
			ch <- m
		}
	}
	e.collectSelf(ch)
}

// collectSelf sends the self-metrics, the collectors' live figures and the
// build info.
func (e *Exporter) collectSelf(ch chan<- prometheus.Metric) {
	for _, m := range e.self.Metrics() {
		ch <- m
	}
	for _, c := range e.collectors {
		if l, ok := c.(collectors.LiveReporter); ok {
			for _, m := range l.LiveMetrics() {
				ch <- m
			}
		}
	}
	ch <- catalogue.MustMetric(catalogue.ExporterBuildInfo, 1,
		version.Version, version.Revision, version.Branch, runtime.Version(), runtime.GOOS, runtime.GOARCH, version.GetTags())
}

// liveCollector emits the exporter's own metrics (collectSelf), the live
// part of the exposition cache. It describes nothing, so that they are not
// checked against descriptors announced in advance (the collectors' live
// figures vary with the tables).
type liveCollector struct{ e *Exporter }

func (liveCollector) Describe(chan<- *prometheus.Desc)      {}
func (l liveCollector) Collect(ch chan<- prometheus.Metric) { l.e.collectSelf(ch) }

// NewRegistry returns a registry holding the exporter and the standard Go
// and process collectors.
func NewRegistry(e *Exporter, withRuntime bool) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, err
	}
	if withRuntime {
		for _, c := range runtimeCollectors() {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return reg, nil
}
