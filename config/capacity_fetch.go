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
// collector and to anything else reading the account's metrics. It also
// limits datapoints per second: 396,000 for a StartTime more than three
// hours old, 180,000 within three hours (same page; AWS re:Post, "Which API
// should I use, GetMetricData or GetMetricStatistics?"). Nearly every old
// datapoint an exporter asks for is the history fetch's, so it takes about
// 88% of that quota (the pace alone needs 1.13 times the floor the quota
// sets; cmd/bench measured 1.23 times it at 1,000 tables, the cycles before
// the fetch included); recent windows (the hourly refresh) share theirs with the
// CloudWatch collector and dashboards and take about 89%.
const (
	DefaultCapacityFetchConcurrency               = 8
	DefaultCapacityFetchRequestsPerSecond         = 25.0
	DefaultCapacityFetchDatapointsPerSecond       = 350000.0
	DefaultCapacityFetchRecentDatapointsPerSecond = 160000.0
	// maxCapacityFetchDatapointsPerSecond allows for a raised quota.
	maxCapacityFetchDatapointsPerSecond = 1e8
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
	// DatapointsPerSecond also paces the requests whose window starts
	// more than three hours before it ends by the datapoints they ask for
	// (CloudWatch's DPS quota for old StartTimes, 396,000 unless raised);
	// RecentDatapointsPerSecond those of shorter windows (its quota for
	// the last three hours, 180,000).
	DatapointsPerSecond       float64 `yaml:"datapoints_per_second"`
	RecentDatapointsPerSecond float64 `yaml:"recent_datapoints_per_second"`
}

func (c *CapacityFetch) applyDefaults() {
	if c.Concurrency == 0 {
		c.Concurrency = DefaultCapacityFetchConcurrency
	}
	if c.RequestsPerSecond == 0 {
		c.RequestsPerSecond = DefaultCapacityFetchRequestsPerSecond
	}
	if c.DatapointsPerSecond == 0 {
		c.DatapointsPerSecond = DefaultCapacityFetchDatapointsPerSecond
	}
	if c.RecentDatapointsPerSecond == 0 {
		c.RecentDatapointsPerSecond = DefaultCapacityFetchRecentDatapointsPerSecond
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
	if d := c.DatapointsPerSecond; !(d > 0 && d <= maxCapacityFetchDatapointsPerSecond) {
		return fmt.Errorf("%sdatapoints_per_second: must be > 0 and <= %g (CloudWatch's GetMetricData quota is 396,000 datapoints per second for StartTimes more than three hours old), got %v",
			key, maxCapacityFetchDatapointsPerSecond, d)
	}
	if d := c.RecentDatapointsPerSecond; !(d > 0 && d <= maxCapacityFetchDatapointsPerSecond) {
		return fmt.Errorf("%srecent_datapoints_per_second: must be > 0 and <= %g (CloudWatch's GetMetricData quota is 180,000 datapoints per second for StartTimes within three hours), got %v",
			key, maxCapacityFetchDatapointsPerSecond, d)
	}
	return nil
}
