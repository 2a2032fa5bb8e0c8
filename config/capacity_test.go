package config

import (
	"strings"
	"testing"
	"time"
)

func TestCapacityDefaults(t *testing.T) {
	c, err := Parse([]byte("accounts: [{regions: [us-east-1]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Collectors.Capacity
	if !got.On() || got.Interval.D() != time.Hour || got.Delay.D() != 3*time.Minute || got.History.D() != 90*24*time.Hour ||
		got.PeakPercentile != 99 || got.SurgeFactor != 3 || got.ScaleOutDelay.D() != 5*time.Minute ||
		got.MinMonthlySaving != 50 || got.MinRequestRate != 100 || got.MaxThrottledRatio != 0.001 || len(got.Prices) != 0 {
		t.Errorf("defaults = %+v", got)
	}
}

func TestCapacityParsesPrices(t *testing.T) {
	c, err := Parse([]byte(`
collectors:
  capacity:
    enabled: false
    history: 30d
    prices:
      - region: eu-west-3
        on_demand_read_per_million: 0.15
        on_demand_write_per_million: 0.75
        provisioned_rcu_hour: 0.000155
        provisioned_wcu_hour: 0.000775
      - region: us-east-1
        table_class: STANDARD_INFREQUENT_ACCESS
        provisioned_wcu_hour: 0.0008
`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Collectors.Capacity
	if got.On() || got.History.D() != 30*24*time.Hour || len(got.Prices) != 2 || got.Prices[0].ProvisionedWCUHour != 0.000775 || got.Prices[1].TableClass != "STANDARD_INFREQUENT_ACCESS" {
		t.Errorf("parsed %+v", got)
	}
}

func TestCapacityValidationNamesTheKey(t *testing.T) {
	tests := []struct {
		yaml, want string
	}{
		{"min_monthly_saving: -1", "collectors.capacity.min_monthly_saving: must be >= 0, got -1"},
		{"min_request_rate: -5", "collectors.capacity.min_request_rate: must be >= 0, got -5"},
		{"max_throttled_ratio: 2", "collectors.capacity.max_throttled_ratio: must be between 0 and 1, got 2"},
		{"peak_percentile: 101", "collectors.capacity.peak_percentile: must be > 0 and <= 100, got 101"},
		{"surge_factor: 0.5", "collectors.capacity.surge_factor: must be > 1, got 0.5"},
		{"interval: 30s", "collectors.capacity.interval: must be a whole number of minutes"},
		{"delay: 2h", "collectors.capacity.delay: must be between 0s and 1h"},
		{"history: 3d", "collectors.capacity.history: must be a whole number of hours between 7d and 455d"},
		{"scale_out_delay: 2h", "collectors.capacity.scale_out_delay: must be between 0s and 1h"},
		{"prices: [{region: moon-1, provisioned_rcu_hour: 1}]", `collectors.capacity.prices[0].region: "moon-1" is not an AWS region name`},
		{"prices: [{region: us-east-1, table_class: GLACIER, provisioned_rcu_hour: 1}]", `collectors.capacity.prices[0].table_class: "GLACIER"`},
		{"prices: [{region: us-east-1, provisioned_rcu_hour: -1}]", "collectors.capacity.prices[0].provisioned_rcu_hour: must be >= 0, got -1"},
		{"prices: [{region: us-east-1}]", "collectors.capacity.prices[0]: sets no price"},
		{"prices: [{region: eu-west-3, storage_gb_month: -0.1}]", "collectors.capacity.prices[0].storage_gb_month: must be >= 0, got -0.1"},
		{"min_saving: 3", `collectors.capacity.min_saving (line 2): unknown key "min_saving"`},
		{"engineering: {hourly_rate: -5, hours_per_month: {provisioned: 2}}", "collectors.capacity.engineering.hourly_rate: must be a number >= 0, got -5"},
		{"engineering: {hourly_rate: 90, hours_per_month: {on_demand: -1}}", "collectors.capacity.engineering.hours_per_month.on_demand: must be a number >= 0, got -1"},
		{"engineering: {hourly_rate: 90}", "collectors.capacity.engineering.hours_per_month: hourly_rate is set but no hours are"},
		{"engineering: {hours_per_month: {provisioned: 4}}", "collectors.capacity.engineering.hourly_rate: hours_per_month is set but hourly_rate is not"},
		{"engineering: {rate: 90}", `unknown key "rate"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := Parse([]byte("collectors:\n  capacity: {" + strings.TrimSpace(tc.yaml) + "}\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCapacityStoragePriceAlone: an entry may set the storage price only.
func TestCapacityStoragePriceAlone(t *testing.T) {
	cfg, err := Parse([]byte("collectors:\n  capacity:\n    prices:\n      - {region: eu-west-3, storage_gb_month: 0.29}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Collectors.Capacity.Prices; len(p) != 1 || p[0].StorageGBMonth != 0.29 {
		t.Errorf("prices %+v, want one with storage_gb_month 0.29", p)
	}
}

// TestCapacityEngineeringHours: the team's time is off by default and read
// as given when set.
func TestCapacityEngineeringHours(t *testing.T) {
	cfg, err := Parse([]byte("accounts: [{regions: [us-east-1]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := cfg.Collectors.Capacity.Engineering; e.HourlyRate != 0 || e.HoursPerMonth.OnDemand != 0 || e.HoursPerMonth.Provisioned != 0 {
		t.Errorf("default engineering %+v, want off", e)
	}
	cfg, err = Parse([]byte("collectors:\n  capacity:\n    engineering: {hourly_rate: 95, hours_per_month: {on_demand: 0.5, provisioned: 4}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := cfg.Collectors.Capacity.Engineering; e.HourlyRate != 95 || e.HoursPerMonth.OnDemand != 0.5 || e.HoursPerMonth.Provisioned != 4 {
		t.Errorf("engineering %+v, want 95 an hour, 0.5 and 4 hours", e)
	}
}
