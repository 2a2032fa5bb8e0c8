package config

import (
	"fmt"
	"math"
)

// Defaults of collectors.capacity.fetch. CloudWatch allows GetMetricData 50
// transactions per second per account and Region (Amazon CloudWatch User
// Guide, "CloudWatch service quotas",
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html):
// the history fetch takes half, leaving the rest to the CloudWatch
// collector and to anything else reading the account's metrics.
const (
	DefaultCapacityFetchConcurrency       = 8
	DefaultCapacityFetchRequestsPerSecond = 25.0
	// maxCapacityFetchRequestsPerSecond allows for a raised quota.
	maxCapacityFetchRequestsPerSecond = 1000.0
	maxCapacityFetchConcurrency       = 64
)

// CapacityFetch bounds the GetMetricData requests of the capacity history,
// per account and region. The first fetch reads the whole history (about
// 1,900 requests for 1,000 tables with 2 GSIs over 90 days); later ones
// only the minutes since the last.
type CapacityFetch struct {
	// Concurrency is how many requests are in flight at once.
	Concurrency int `yaml:"concurrency"`
	// RequestsPerSecond paces the requests, without bursts; keep it under
	// the account's GetMetricData quota (50 per second unless raised)
	// minus what else reads CloudWatch.
	RequestsPerSecond float64 `yaml:"requests_per_second"`
	// DatapointsPerSecond, when set, also paces the requests by the
	// datapoints they ask for (CloudWatch limits datapoints per second
	// too); 0 paces by requests only.
	DatapointsPerSecond float64 `yaml:"datapoints_per_second"`
}

func (c *CapacityFetch) applyDefaults() {
	if c.Concurrency == 0 {
		c.Concurrency = DefaultCapacityFetchConcurrency
	}
	if c.RequestsPerSecond == 0 {
		c.RequestsPerSecond = DefaultCapacityFetchRequestsPerSecond
	}
}

func (c *CapacityFetch) validate() error {
	const key = "collectors.capacity.fetch."
	if c.Concurrency < 1 || c.Concurrency > maxCapacityFetchConcurrency {
		return fmt.Errorf("%sconcurrency: must be between 1 and %d, got %d", key, maxCapacityFetchConcurrency, c.Concurrency)
	}
	if r := c.RequestsPerSecond; !(r > 0 && r <= maxCapacityFetchRequestsPerSecond) || math.IsNaN(r) {
		return fmt.Errorf("%srequests_per_second: must be > 0 and <= %g (CloudWatch's default GetMetricData quota is 50 per second), got %v",
			key, maxCapacityFetchRequestsPerSecond, r)
	}
	if d := c.DatapointsPerSecond; !(d >= 0) || math.IsInf(d, 0) {
		return fmt.Errorf("%sdatapoints_per_second: must be >= 0 (0: no datapoint pace), got %v", key, d)
	}
	return nil
}
