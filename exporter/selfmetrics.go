package exporter

import (
	"sort"
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
	requests   map[[4]string]float64
	errors     map[[5]string]float64
	cwMetrics  map[[2]string]float64
	collectors map[string]*collectorStats
}

type collectorStats struct {
	ran         bool
	duration    time.Duration
	success     bool
	lastSuccess time.Time
	errors      float64
}

// NewSelfMetrics returns empty self-metrics.
func NewSelfMetrics() *SelfMetrics {
	return &SelfMetrics{
		requests:   map[[4]string]float64{},
		errors:     map[[5]string]float64{},
		cwMetrics:  map[[2]string]float64{},
		collectors: map[string]*collectorStats{},
	}
}

// RecordRequest implements awsclient.Recorder.
func (s *SelfMetrics) RecordRequest(account, region, service, operation, errorCode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[[4]string{account, region, service, operation}]++
	if errorCode != "" {
		s.errors[[5]string{account, region, service, operation, errorCode}]++
	}
}

// RecordCloudWatchMetrics implements awsclient.Recorder.
func (s *SelfMetrics) RecordCloudWatchMetrics(account, region string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cwMetrics[[2]string{account, region}] += float64(n)
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
// or simulated time at, and met errs errors.
func (s *SelfMetrics) RecordRun(name string, d time.Duration, at time.Time, errs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collectors[name]
	if c == nil {
		c = &collectorStats{}
		s.collectors[name] = c
	}
	c.ran = true
	c.duration = d
	c.success = errs == 0
	c.errors += float64(errs)
	if c.success {
		c.lastSuccess = at
	}
}

// CloudWatchMetricsRequested returns the total for one account and region.
func (s *SelfMetrics) CloudWatchMetricsRequested(account, region string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwMetrics[[2]string{account, region}]
}

// Metrics returns the self-metrics as constant metrics, in a stable order.
func (s *SelfMetrics) Metrics() []prometheus.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []prometheus.Metric
	for _, k := range sortedKeys4(s.requests) {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterAWSRequestsTotal, s.requests[k], k[:]...))
	}
	for _, k := range sortedKeys5(s.errors) {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterAWSRequestErrorsTotal, s.errors[k], k[:]...))
	}
	for k, v := range s.cwMetrics {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterCloudWatchMetricsTotal, v, k[:]...))
	}
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
		success := 0.0
		if c.success {
			success = 1
		}
		ms = append(ms,
			catalogue.MustMetric(catalogue.ExporterCollectorDuration, c.duration.Seconds(), n),
			catalogue.MustMetric(catalogue.ExporterCollectorSuccess, success, n),
		)
		if !c.lastSuccess.IsZero() {
			ms = append(ms, catalogue.MustMetric(catalogue.ExporterCollectorLastSuccess, float64(c.lastSuccess.UnixNano())/1e9, n))
		}
	}
	return ms
}

func sortedKeys4(m map[[4]string]float64) [][4]string {
	out := make([][4]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		for x := range out[i] {
			if out[i][x] != out[j][x] {
				return out[i][x] < out[j][x]
			}
		}
		return false
	})
	return out
}

func sortedKeys5(m map[[5]string]float64) [][5]string {
	out := make([][5]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		for x := range out[i] {
			if out[i][x] != out[j][x] {
				return out[i][x] < out[j][x]
			}
		}
		return false
	})
	return out
}
