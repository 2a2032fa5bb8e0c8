package config

// Capacity configures the derived capacity-mode collector: CloudWatch
// history, read/write-ratio drift, peak-to-average, surge retention and the
// cost what-if. Errors from validate name the key, e.g.
// "collectors.capacity.min_monthly_saving: ...".
type Capacity struct {
	Enabled *bool `yaml:"enabled"`
	// Interval between refreshes of the history and the derived gauges.
	Interval Duration `yaml:"interval"`
}

// On reports whether the collector is enabled (the default).
func (c Capacity) On() bool { return c.Enabled == nil || *c.Enabled }

func (c *Capacity) applyDefaults() {}

func (c *Capacity) validate() error { return nil }
