package config

import (
	"strings"
	"testing"
)

func TestCapacityFetchDefaultsAndParse(t *testing.T) {
	c, err := Parse([]byte("accounts: [{regions: [us-east-1]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Collectors.Capacity.Fetch; got != (CapacityFetch{Concurrency: 8, RequestsPerSecond: 25, DatapointsPerSecond: 350000, RecentDatapointsPerSecond: 160000}) {
		t.Errorf("defaults = %+v", got)
	}
	c, err = Parse([]byte("collectors:\n  capacity:\n    fetch: {concurrency: 2, requests_per_second: 45.5, datapoints_per_second: 90000, recent_datapoints_per_second: 700000}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Collectors.Capacity.Fetch; got != (CapacityFetch{Concurrency: 2, RequestsPerSecond: 45.5, DatapointsPerSecond: 90000, RecentDatapointsPerSecond: 700000}) {
		t.Errorf("parsed %+v", got)
	}
}

func TestCapacityFetchValidationNamesTheKey(t *testing.T) {
	tests := []struct {
		yaml, want string
	}{
		{"concurrency: -1", "collectors.capacity.fetch.concurrency: must be between 1 and 64, got -1"},
		{"concurrency: 65", "collectors.capacity.fetch.concurrency: must be between 1 and 64, got 65"},
		{"requests_per_second: -2", "collectors.capacity.fetch.requests_per_second: must be > 0 and <= 1000"},
		{"requests_per_second: 5000", "collectors.capacity.fetch.requests_per_second: must be > 0 and <= 1000"},
		{"requests_per_second: .nan", `collectors.capacity.fetch.requests_per_second (line 2): expected a finite number, got ".nan"`},
		{"datapoints_per_second: -1", "collectors.capacity.fetch.datapoints_per_second: must be > 0 and <= 1e+08"},
		{"datapoints_per_second: 2e8", "collectors.capacity.fetch.datapoints_per_second: must be > 0 and <= 1e+08"},
		{"recent_datapoints_per_second: -5", "collectors.capacity.fetch.recent_datapoints_per_second: must be > 0 and <= 1e+08"},
		{"datapoints_per_second: .inf", `collectors.capacity.fetch.datapoints_per_second (line 2): expected a finite number, got ".inf"`},
		{"rate: 3", `collectors.capacity.fetch.rate (line 2): unknown key "rate"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := Parse([]byte("collectors:\n  capacity: {fetch: {" + strings.TrimSpace(tc.yaml) + "}}\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
