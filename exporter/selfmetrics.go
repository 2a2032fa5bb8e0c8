package exporter

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// SelfMetrics counts what the exporter itself does: AWS calls, CloudWatch
// metrics requested, and each collector's runs. It implements
// awsclient.Recorder. It is safe for concurrent use.
type SelfMetrics struct {
	mu         sync.Mutex
	requests   counterSet
	errors     counterSet
	cwMetrics  counterSet
	collectors map[string]*collectorStats
}

// counterSet holds counter values by label values.
type counterSet map[string]*labelledValue

type labelledValue struct {
	labels []string
	value  float64
}

func (c counterSet) add(v float64, labels ...string) {
	k := strings.Join(labels, "\xff")
	if c[k] == nil {
		c[k] = &labelledValue{labels: labels}
	}
	c[k].value += v
}

func (c counterSet) get(labels ...string) float64 {
	if lv := c[strings.Join(labels, "\xff")]; lv != nil {
		return lv.value
	}
	return 0
}

// metrics returns the set as constant metrics of family, sorted by labels.
func (c counterSet) metrics(family string) []prometheus.Metric {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]prometheus.Metric, 0, len(keys))
	for _, k := range keys {
		out = append(out, catalogue.MustMetric(family, c[k].value, c[k].labels...))
	}
	return out
}

type collectorStats struct {
	ran      bool
	duration time.Duration
	errors   float64
	// targets holds the health of each account and region, by "account/region".
	targets map[string]*targetHealth
}

// targetHealth is one collector's outcome in one account and region.
type targetHealth struct {
	account, region string
	success         bool
	lastSuccess     time.Time
}

// TargetOutcome is a collector run's outcome in one account and region.
type TargetOutcome struct {
	Account, Region string
	OK              bool
}

// NewSelfMetrics returns empty self-metrics.
func NewSelfMetrics() *SelfMetrics {
	return &SelfMetrics{
		requests:   counterSet{},
		errors:     counterSet{},
		cwMetrics:  counterSet{},
		collectors: map[string]*collectorStats{},
	}
}

// RecordRequest implements awsclient.Recorder.
func (s *SelfMetrics) RecordRequest(account, region, service, operation, errorCode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.add(1, account, region, service, operation)
	if errorCode != "" {
		s.errors.add(1, account, region, service, operation, errorCode)
	}
}

// RecordCloudWatchMetrics implements awsclient.Recorder.
func (s *SelfMetrics) RecordCloudWatchMetrics(account, region string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cwMetrics.add(float64(n), account, region)
}

// AddCollector makes a collector's error counter visible (at 0) before its first run.
func (s *SelfMetrics) AddCollector(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.collectors[name] == nil {
		s.collectors[name] = &collectorStats{}
	}
}

// RecordRun records one collector run that took d, finished at wall-clock
// or simulated time at, met errs errors, and succeeded or failed in each
// account and region as outcomes say. A collector with no targets (none
// given) is recorded under an empty account and region.
func (s *SelfMetrics) RecordRun(name string, d time.Duration, at time.Time, errs int, outcomes []TargetOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collectors[name]
	if c == nil {
		c = &collectorStats{}
		s.collectors[name] = c
	}
	c.ran = true
	c.duration = d
	c.errors += float64(errs)
	if len(outcomes) == 0 {
		outcomes = []TargetOutcome{{OK: errs == 0}}
	}
	if c.targets == nil {
		c.targets = map[string]*targetHealth{}
	}
	for _, o := range outcomes {
		k := o.Account + "\xff" + o.Region
		h := c.targets[k]
		if h == nil {
			h = &targetHealth{account: o.Account, region: o.Region}
			c.targets[k] = h
		}
		h.success = o.OK
		if o.OK {
			h.lastSuccess = at
		}
	}
}

// CloudWatchMetricsRequested returns the total for one account and region.
func (s *SelfMetrics) CloudWatchMetricsRequested(account, region string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwMetrics.get(account, region)
}

// Metrics returns the self-metrics as constant metrics, in a stable order.
func (s *SelfMetrics) Metrics() []prometheus.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.requests.metrics(catalogue.ExporterAWSRequestsTotal)
	ms = append(ms, s.errors.metrics(catalogue.ExporterAWSRequestErrorsTotal)...)
	ms = append(ms, s.cwMetrics.metrics(catalogue.ExporterCloudWatchMetricsTotal)...)
	names := make([]string, 0, len(s.collectors))
	for n := range s.collectors {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := s.collectors[n]
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterCollectorErrorsTotal, c.errors, n))
		if !c.ran {
			continue
		}
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterCollectorDuration, c.duration.Seconds(), n))
		keys := make([]string, 0, len(c.targets))
		for k := range c.targets {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			h := c.targets[k]
			success := 0.0
			if h.success {
				success = 1
			}
			ms = append(ms, catalogue.MustMetric(catalogue.ExporterCollectorSuccess, success, n, h.account, h.region))
			if !h.lastSuccess.IsZero() {
				ms = append(ms, catalogue.MustMetric(catalogue.ExporterCollectorLastSuccess, float64(h.lastSuccess.UnixNano())/1e9, n, h.account, h.region))
			}
		}
	}
	return ms
}
