package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// CloudWatch list prices (us-east-1), from Amazon CloudWatch pricing,
// https://aws.amazon.com/cloudwatch/pricing/ ("API requests"): GetMetricData
// is billed $0.01 per 1,000 metrics requested; the other API requests,
// ListMetrics among them, $0.01 per 1,000 requests after the free tier's
// first 1,000,000 requests a month, which the bench does not subtract (it is
// shared by everything else in the account).
const (
	pricePerThousandMetrics  = 0.01
	pricePerThousandRequests = 0.01
	hoursPerMonth            = 30 * 24 // as `dynamodb_exporter check` counts a month
)

// cadence is one polling cadence of the default configuration.
type cadence struct {
	what  string
	every time.Duration
	// elsewhere marks a cadence the bench accounts for without the
	// window when it is longer (the hourly capacity refresh from the
	// exporter's plan, the TTL samples from the start).
	elsewhere bool
}

// cadences lists the exporter's polling cadences, from its configuration
// defaults: the window must hold a whole number of cycles of each one it
// covers, so that a count over it extrapolates to an hour exactly.
func cadences() []cadence {
	return []cadence{
		{"CloudWatch collector", config.DefaultCloudWatchInterval, false},
		{"CloudWatch slow tier", config.DefaultCloudWatchSlowInterval, false},
		{"discovery collector", config.DefaultDiscoveryInterval, false},
		{"tables collector", config.DefaultTablesInterval, false},
		{"auto-scaling collector", config.DefaultAutoScalingInterval, false},
		{"TTL sampler runs", config.DefaultTTLInterval, false},
		{"capacity history refresh", config.DefaultCapacityInterval, true},
		{"TTL sample of each table", config.DefaultTTLTableInterval, true},
	}
}

// checkWindow returns an error unless window is a whole number of cycles of
// every cadence it covers and covers every cadence not accounted for
// elsewhere; it returns the cadences longer than the window.
func checkWindow(window time.Duration, cs []cadence) (longer []cadence, err error) {
	if window <= 0 {
		return nil, fmt.Errorf("-window %s: must be positive", window)
	}
	for _, c := range cs {
		switch {
		case c.every > window && !c.elsewhere:
			return nil, fmt.Errorf("-window %s is shorter than the %s's cadence (every %s): its requests would not be counted", window, c.what, c.every)
		case c.every > window:
			longer = append(longer, c)
		case window%c.every != 0:
			return nil, fmt.Errorf("-window %s is not a whole number of cycles of the %s (every %s): the count would not extrapolate to an hour", window, c.what, c.every)
		}
	}
	return longer, nil
}

// perHour extrapolates a count over window to an hour. The window holds
// whole cycles of every cadence it covers (checkWindow).
func perHour(n float64, window time.Duration) float64 {
	return n * float64(time.Hour) / float64(window)
}

// monthly is the cost of a per-hour count at a price per 1,000.
func monthly(perHour, pricePerThousand float64) float64 {
	return perHour * hoursPerMonth * pricePerThousand / 1000
}

// tally counts the requests of a span of the endpoint's request log.
type tally struct {
	gmdRequests, gmdMetrics int
	listMetrics             int
	// actions counts the control-plane calls, by "Service Operation":
	// every request but GetMetricData, ListMetrics and Scan.
	actions map[string]int
	// scans and readUnits are the TTL sampler's Scan calls and the read
	// units the account charged for them.
	scans     int
	readUnits float64
	// scanned holds the tables Scan read.
	scanned map[string]bool
}

// count tallies the records that arrived in [from, to).
func count(recs []awssim.RequestRecord, from, to time.Time) tally {
	t := tally{actions: map[string]int{}, scanned: map[string]bool{}}
	for _, r := range recs {
		if r.Time.Before(from) || !r.Time.Before(to) {
			continue
		}
		switch {
		case r.Service == awssim.ServiceCloudWatch && r.Operation == "GetMetricData":
			t.gmdRequests++
			t.gmdMetrics += r.Queries
		case r.Service == awssim.ServiceCloudWatch && r.Operation == "ListMetrics":
			t.listMetrics++
		case r.Service == awssim.ServiceDynamoDB && r.Operation == "Scan":
			t.scans++
			t.readUnits += r.ReadUnits
			for _, tb := range r.Tables {
				t.scanned[tb] = true
			}
		default:
			t.actions[serviceName(r.Service)+" "+r.Operation]++
		}
	}
	return t
}

// serviceName is a service's name as AWS writes it.
func serviceName(s string) string {
	switch s {
	case awssim.ServiceDynamoDB:
		return "DynamoDB"
	case awssim.ServiceAutoScaling:
		return "Application Auto Scaling"
	case awssim.ServiceCloudWatch:
		return "CloudWatch"
	case awssim.ServiceSTS:
		return "STS"
	}
	return s
}

// cloudWatch is the CloudWatch traffic of one size, per hour.
type cloudWatch struct {
	window time.Duration
	// Counted over the window, per hour.
	metrics, requests, listMetrics float64
	// Cadences longer than the window: the capacity history refresh, as
	// the exporter's own plan states it (`dynamodb_exporter check`), per
	// hour; refreshSource says where it comes from.
	refreshMetrics, refreshRequests float64
	refreshSource                   string
	// firstFetch is what the exporter requested until its first full data.
	firstFetchMetrics, firstFetchRequests int
}

// metricsPerHour is every metric requested in an hour.
func (c cloudWatch) metricsPerHour() float64 { return c.metrics + c.refreshMetrics }

// metricsPerTableHour is metricsPerHour per table.
func (c cloudWatch) metricsPerTableHour(tables int) float64 {
	return c.metricsPerHour() / float64(tables)
}

// monthlyCost is the CloudWatch bill of a 30-day month at list prices.
func (c cloudWatch) monthlyCost() float64 {
	return monthly(c.metricsPerHour(), pricePerThousandMetrics) + monthly(c.listMetrics, pricePerThousandRequests)
}

// refreshPlan matches the capacity line of `dynamodb_exporter check`.
var refreshPlan = regexp.MustCompile(`capacity history: first fetch (\d+) GetMetricData requests, (\d+) metrics requested; then every (\S+) (\d+) requests, (\d+) metrics`)

// parseRefresh returns the capacity history refresh of a `check` output,
// per hour.
func parseRefresh(out string) (requests, metrics float64, err error) {
	m := refreshPlan.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("no capacity history plan in the output of check")
	}
	every, err := time.ParseDuration(m[3])
	if err != nil || every <= 0 {
		return 0, 0, fmt.Errorf("capacity refresh interval %q: %v", m[3], err)
	}
	r, _ := strconv.Atoi(m[4])
	n, _ := strconv.Atoi(m[5])
	return perHour(float64(r), every), perHour(float64(n), every), nil
}

// ttlReadUnitsPerHour extrapolates the read units the TTL sampler spent
// since the exporter started, elapsed ago. The sampler samples each table at
// most once per tableInterval: when it has sampled every TTL table once and
// less than tableInterval has passed, what it spent is one interval's worth;
// otherwise (its hourly budget spreads the tables over runs, or the run
// lasted longer) the spend is a rate over the time elapsed.
func ttlReadUnitsPerHour(units float64, elapsed, tableInterval time.Duration, everyTableSampled bool) float64 {
	span := elapsed
	if everyTableSampled && span < tableInterval {
		span = tableInterval
	}
	if span <= 0 {
		return 0
	}
	return perHour(units, span)
}

// sortedActions returns the actions of a per-hour map, most called first.
func sortedActions(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		if a < b {
			return -1
		}
		return 1
	})
	return keys
}
