package config

import (
	"fmt"
	"math"
	"time"
)

// Defaults of collectors.capacity.
const (
	DefaultCapacityInterval          = time.Hour
	DefaultCapacityDelay             = 3 * time.Minute
	DefaultCapacityHistory           = 90 * 24 * time.Hour
	DefaultCapacityPeakPercentile    = 99.0
	DefaultCapacitySurgeFactor       = 3.0
	DefaultCapacityScaleOutDelay     = 5 * time.Minute
	DefaultCapacityMinMonthlySaving  = 50.0
	DefaultCapacityMinRequestRate    = 100.0
	DefaultCapacityMaxThrottledRatio = 0.001
)

// Bounds of collectors.capacity.history: a week is the shortest window the
// gauges use; CloudWatch keeps hourly points for 455 days.
const (
	minCapacityHistory = 7 * 24 * time.Hour
	maxCapacityHistory = 455 * 24 * time.Hour
)

// Capacity configures the derived capacity-mode collector: CloudWatch
// history, read/write-ratio drift, peak-to-average, surge retention and the
// cost what-if. Errors from validate name the key, e.g.
// "collectors.capacity.min_monthly_saving: ...".
type Capacity struct {
	Enabled *bool `yaml:"enabled"`
	// Interval between refreshes of the history and the derived gauges.
	Interval Duration `yaml:"interval"`
	// Delay is how far behind now the history ends, because CloudWatch
	// publishes late; the last minutes are fetched again on the next refresh.
	Delay Duration `yaml:"delay"`
	// History is how much consumed-capacity history is kept per table and
	// index (1-minute points for 15 days, 5-minute to 63 days, hourly beyond).
	History Duration `yaml:"history"`
	// PeakPercentile is the percentile of 1-minute rates taken as the peak
	// of the peak-to-average ratio (0 < p <= 100).
	PeakPercentile float64 `yaml:"peak_percentile"`
	// SurgeFactor is how many times the preceding 4-week baseline a weekly
	// baseline must reach to count as a surge.
	SurgeFactor float64 `yaml:"surge_factor"`
	// ScaleOutDelay is the time the simulated auto-scaling takes from a
	// scale-out decision to the new capacity being usable.
	ScaleOutDelay Duration `yaml:"scale_out_delay"`
	// MinMonthlySaving is the smallest monthly saving, in USD, worth
	// recommending a switch.
	MinMonthlySaving float64 `yaml:"min_monthly_saving"`
	// MinRequestRate is the mean request units per second under which a
	// switch to provisioned is not recommended.
	MinRequestRate float64 `yaml:"min_request_rate"`
	// MaxThrottledRatio is the share of demand the provisioned simulation may
	// throttle and still be recommended.
	MaxThrottledRatio float64 `yaml:"max_throttled_ratio"`
	// Prices override the built-in list prices per region and table class.
	Prices []CapacityPrice `yaml:"prices"`
	// Fetch bounds the concurrency and rate of the history requests.
	Fetch CapacityFetch `yaml:"fetch"`
	// Engineering is the team's time each billing mode costs per table
	// (default off): the capacity report adds it to the bill.
	Engineering CapacityEngineering `yaml:"engineering"`
}

// CapacityEngineering is the team's time one table costs a month in each
// billing mode and the cost of an hour, in USD. Off unless hourly_rate and
// some hours are set; one without the other is an error.
type CapacityEngineering struct {
	HourlyRate    float64 `yaml:"hourly_rate"`
	HoursPerMonth struct {
		OnDemand    float64 `yaml:"on_demand"`
		Provisioned float64 `yaml:"provisioned"`
	} `yaml:"hours_per_month"`
}

// CapacityPrice overrides some or all capacity prices of one region (and
// optionally one table class), in USD. Zero prices keep the list price.
type CapacityPrice struct {
	Region                  string  `yaml:"region"`
	TableClass              string  `yaml:"table_class"`
	OnDemandReadPerMillion  float64 `yaml:"on_demand_read_per_million"`
	OnDemandWritePerMillion float64 `yaml:"on_demand_write_per_million"`
	ProvisionedRCUHour      float64 `yaml:"provisioned_rcu_hour"`
	ProvisionedWCUHour      float64 `yaml:"provisioned_wcu_hour"`
	// StorageGBMonth is the storage price per GB-month (2^30 bytes); with
	// table_class empty it is the STANDARD price, and STANDARD_INFREQUENT_ACCESS
	// is taken as 0.4 times it. Built in for us-east-1 only: elsewhere the
	// storage and table-class figures are absent until it is set.
	StorageGBMonth float64 `yaml:"storage_gb_month"`
}

// On reports whether the collector is enabled (the default).
func (c Capacity) On() bool { return c.Enabled == nil || *c.Enabled }

func (c *Capacity) applyDefaults() {
	setDefault(&c.Interval, DefaultCapacityInterval)
	setDefault(&c.Delay, DefaultCapacityDelay)
	setDefault(&c.History, DefaultCapacityHistory)
	setDefault(&c.ScaleOutDelay, DefaultCapacityScaleOutDelay)
	c.Fetch.applyDefaults()
	for _, f := range []struct {
		v   *float64
		def float64
	}{
		{&c.PeakPercentile, DefaultCapacityPeakPercentile},
		{&c.SurgeFactor, DefaultCapacitySurgeFactor},
		{&c.MinMonthlySaving, DefaultCapacityMinMonthlySaving},
		{&c.MinRequestRate, DefaultCapacityMinRequestRate},
		{&c.MaxThrottledRatio, DefaultCapacityMaxThrottledRatio},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
}

func (c *Capacity) validate() error {
	const key = "collectors.capacity."
	if d := c.Interval.D(); d < time.Minute || d%time.Minute != 0 {
		return fmt.Errorf("%sinterval: must be a whole number of minutes, at least 1m, got %s", key, d)
	}
	if d := c.Delay.D(); d < 0 || d > time.Hour {
		return fmt.Errorf("%sdelay: must be between 0s and 1h, got %s", key, d)
	}
	if d := c.History.D(); d < minCapacityHistory || d > maxCapacityHistory || d%time.Hour != 0 {
		return fmt.Errorf("%shistory: must be a whole number of hours between 7d and 455d, got %s", key, d)
	}
	if d := c.ScaleOutDelay.D(); d < 0 || d > time.Hour {
		return fmt.Errorf("%sscale_out_delay: must be between 0s and 1h, got %s", key, d)
	}
	if err := c.Fetch.validate(); err != nil {
		return err
	}
	checks := []struct {
		name   string
		v      float64
		ok     bool
		expect string
	}{
		{"peak_percentile", c.PeakPercentile, c.PeakPercentile > 0 && c.PeakPercentile <= 100, "> 0 and <= 100"},
		{"surge_factor", c.SurgeFactor, c.SurgeFactor > 1, "> 1"},
		{"min_monthly_saving", c.MinMonthlySaving, c.MinMonthlySaving >= 0, ">= 0"},
		{"min_request_rate", c.MinRequestRate, c.MinRequestRate >= 0, ">= 0"},
		{"max_throttled_ratio", c.MaxThrottledRatio, c.MaxThrottledRatio >= 0 && c.MaxThrottledRatio <= 1, "between 0 and 1"},
	}
	for _, ch := range checks {
		if !ch.ok || math.IsInf(ch.v, 0) {
			return fmt.Errorf("%s%s: must be %s, got %v", key, ch.name, ch.expect, ch.v)
		}
	}
	if err := c.Engineering.validate(key + "engineering."); err != nil {
		return err
	}
	for i, p := range c.Prices {
		k := fmt.Sprintf("%sprices[%d]", key, i)
		if !regionRE.MatchString(p.Region) {
			return fmt.Errorf("%s.region: %q is not an AWS region name (e.g. us-east-1)", k, p.Region)
		}
		if p.TableClass != "" && p.TableClass != "STANDARD" && p.TableClass != "STANDARD_INFREQUENT_ACCESS" {
			return fmt.Errorf("%s.table_class: %q is not STANDARD or STANDARD_INFREQUENT_ACCESS", k, p.TableClass)
		}
		any := false
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"on_demand_read_per_million", p.OnDemandReadPerMillion},
			{"on_demand_write_per_million", p.OnDemandWritePerMillion},
			{"provisioned_rcu_hour", p.ProvisionedRCUHour},
			{"provisioned_wcu_hour", p.ProvisionedWCUHour},
			{"storage_gb_month", p.StorageGBMonth},
		} {
			if f.v < 0 || math.IsInf(f.v, 0) || math.IsNaN(f.v) {
				return fmt.Errorf("%s.%s: must be >= 0, got %v", k, f.name, f.v)
			}
			any = any || f.v > 0
		}
		if !any {
			return fmt.Errorf("%s: sets no price (on_demand_read_per_million, on_demand_write_per_million, provisioned_rcu_hour, provisioned_wcu_hour, storage_gb_month)", k)
		}
	}
	return nil
}

func (e CapacityEngineering) validate(key string) error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"hourly_rate", e.HourlyRate},
		{"hours_per_month.on_demand", e.HoursPerMonth.OnDemand},
		{"hours_per_month.provisioned", e.HoursPerMonth.Provisioned},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s%s: must be a number >= 0, got %v", key, f.name, f.v)
		}
	}
	hours := e.HoursPerMonth.OnDemand > 0 || e.HoursPerMonth.Provisioned > 0
	switch {
	case e.HourlyRate > 0 && !hours:
		return fmt.Errorf("%shours_per_month: hourly_rate is set but no hours are (on_demand, provisioned): set the hours a month one table takes in each mode, or remove hourly_rate", key)
	case e.HourlyRate == 0 && hours:
		return fmt.Errorf("%shourly_rate: hours_per_month is set but hourly_rate is not: set the cost of an hour in USD, or remove hours_per_month", key)
	}
	return nil
}
