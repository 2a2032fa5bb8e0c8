// Package config reads and validates the exporter's YAML configuration file.
// Every error names the offending key (as a dotted path) and its line, and an
// unknown key is an error: a typo must never be silently ignored.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration file.
type Config struct {
	// Accounts to monitor; each is polled in each of its regions.
	Accounts []Account `yaml:"accounts"`
	// Tables filters which tables are monitored.
	Tables TableFilter `yaml:"tables"`
	// Collectors sets each collector's cadence.
	Collectors Collectors `yaml:"collectors"`
	// AWS holds settings shared by every AWS client.
	AWS AWS `yaml:"aws"`
	// Shard splits the tables between replicas ("i/n"); empty: unsharded.
	// The --shard flag overrides it.
	Shard Shard `yaml:"shard"`
}

// Account is one AWS account, reached with the default credential chain or
// with a role assumed through STS.
type Account struct {
	// Name is the value of the account label on every series.
	Name string `yaml:"name"`
	// RoleARN is an optional IAM role to assume for this account.
	RoleARN string `yaml:"role_arn"`
	// ExternalID is passed to AssumeRole when set.
	ExternalID string `yaml:"external_id"`
	// Regions to poll, e.g. us-east-1.
	Regions []string `yaml:"regions"`
}

// TableFilter selects tables by name and tags. A table is monitored when its
// name matches any include pattern (all tables when there is none), matches no
// exclude pattern, and carries every tag in Tags with a value matching its
// pattern. Patterns are RE2 regular expressions matched against the whole name.
type TableFilter struct {
	Include []Regexp          `yaml:"include"`
	Exclude []Regexp          `yaml:"exclude"`
	Tags    map[string]Regexp `yaml:"tags"`
}

// Collectors holds the settings of each background collector.
type Collectors struct {
	Discovery   Interval   `yaml:"discovery"`
	Tables      Interval   `yaml:"tables"`
	AutoScaling Toggle     `yaml:"autoscaling"`
	CloudWatch  CloudWatch `yaml:"cloudwatch"`
	TTL         TTL        `yaml:"ttl"`
	Capacity    Capacity   `yaml:"capacity"`
}

// TTL configures the TTL health sampler, which reads random segments of a
// parallel Scan of each table with TTL enabled.
type TTL struct {
	Enabled *bool `yaml:"enabled"`
	// Interval between sampler runs; each run samples the tables that are
	// due, round-robin, within the run's share of the hourly budget.
	Interval Duration `yaml:"interval"`
	// TableInterval is the least time between two samples of one table.
	TableInterval Duration `yaml:"table_interval"`
	// SampleItems is the number of items a sample aims to read.
	SampleItems int `yaml:"sample_items"`
	// MaxReadRate caps the read capacity units per second the sampler
	// consumes on one table.
	MaxReadRate float64 `yaml:"max_read_rate"`
	// Budget caps the read capacity units the sampler consumes.
	Budget TTLBudget `yaml:"budget"`
	// Attributes names the TTL attribute of tables whose TTL is disabled,
	// so that they are sampled too (e.g. before TTL is turned on).
	Attributes map[string]string `yaml:"attributes"`
}

// On reports whether the sampler is enabled (the default).
func (t TTL) On() bool { return t.Enabled == nil || *t.Enabled }

// TTLBudget caps the sampler's reads, in read capacity units.
type TTLBudget struct {
	// PerTableSample caps one sample of one table.
	PerTableSample float64 `yaml:"per_table_sample"`
	// PerHour caps all samples of one account and region in a rolling hour.
	PerHour float64 `yaml:"per_hour"`
}

// Interval is a collector that only has a cadence.
type Interval struct {
	Interval Duration `yaml:"interval"`
}

// Toggle is a collector with a cadence that can be switched off.
type Toggle struct {
	Enabled  *bool    `yaml:"enabled"`
	Interval Duration `yaml:"interval"`
}

// On reports whether the collector is enabled (the default).
func (t Toggle) On() bool { return t.Enabled == nil || *t.Enabled }

// CloudWatch configures the CloudWatch collector.
type CloudWatch struct {
	Enabled *bool `yaml:"enabled"`
	// Interval between GetMetricData cycles, and the cadence of the fast
	// tier (throttle events, errors, TTL deletions). Each fetch requests a
	// series once, whatever the number of minutes it fetches, so a longer
	// interval costs proportionally less and loses no counter data.
	Interval Duration `yaml:"interval"`
	// SlowInterval is the cadence of the slow tier (consumed capacity and
	// latency), a multiple of Interval. Default: the smallest multiple of
	// Interval that is at least 10m.
	SlowInterval Duration `yaml:"slow_interval"`
	// Delay is how far behind now a minute must be before it is read, because
	// CloudWatch publishes DynamoDB data late and may revise it.
	Delay Duration `yaml:"delay"`
	// MaxCatchUp bounds how many minutes a cycle fetches after failures.
	MaxCatchUp Duration `yaml:"max_catch_up"`
}

// On reports whether the collector is enabled (the default).
func (c CloudWatch) On() bool { return c.Enabled == nil || *c.Enabled }

// AWS holds client settings.
type AWS struct {
	// Concurrency bounds the AWS calls in flight per account and region.
	Concurrency int `yaml:"concurrency"`
	// CallTimeout bounds each attempt of an AWS call (the SDK retries a
	// timed-out attempt within its budget), so that a hung answer does not
	// hold a collector's run until its interval ends.
	CallTimeout Duration `yaml:"call_timeout"`
	// Endpoints overrides service endpoints (LocalStack, tests, the simulator).
	Endpoints Endpoints `yaml:"endpoints"`
}

// Endpoints are per-service endpoint URLs; empty means the SDK's default
// resolution, which also honours AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE>.
type Endpoints struct {
	DynamoDB               string `yaml:"dynamodb"`
	CloudWatch             string `yaml:"cloudwatch"`
	ApplicationAutoScaling string `yaml:"application_autoscaling"`
	STS                    string `yaml:"sts"`
}

// Defaults used for every setting the file leaves out.
const (
	DefaultAccountName         = "default"
	DefaultDiscoveryInterval   = 5 * time.Minute
	DefaultTablesInterval      = 5 * time.Minute
	DefaultAutoScalingInterval = 5 * time.Minute
	DefaultCloudWatchInterval  = time.Minute
	// DefaultCloudWatchSlowInterval is the slow tier's cadence when the
	// fast tier runs every minute: 10m divides the alert pack's 10-minute
	// rate window, and brings a table with 2 GSIs under 150 metrics an hour.
	DefaultCloudWatchSlowInterval = 10 * time.Minute
	DefaultCloudWatchDelay        = 3 * time.Minute
	DefaultMaxCatchUp             = 15 * time.Minute
	DefaultConcurrency            = 4
	DefaultCallTimeout            = 30 * time.Second
	DefaultTTLInterval            = 5 * time.Minute
	DefaultTTLTableInterval       = time.Hour
	DefaultTTLSampleItems         = 1500
	DefaultTTLMaxReadRate         = 20
	DefaultTTLPerTableSample      = 500
	DefaultTTLPerHour             = 3600
)

// Duration is a time.Duration written as in Prometheus ("90s", "5m", "1h30m", "1d").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Regexp is a compiled, fully anchored regular expression that remembers its source.
type Regexp struct {
	*regexp.Regexp
	Source string
}

// MatchString reports whether the whole of s matches.
func (r Regexp) MatchString(s string) bool { return r.Regexp != nil && r.Regexp.MatchString(s) }

// Default returns the configuration used when no file is given.
func Default() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

// Load reads and validates the file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return c, nil
}

// Parse parses and validates a configuration document.
func Parse(data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	c := &Config{}
	if len(root.Content) > 0 {
		if err := decode(root.Content[0], c); err != nil {
			return nil, err
		}
		// A second document in the file is ignored by the walker; refuse it.
		dec := yaml.NewDecoder(bytes.NewReader(data))
		var first, second yaml.Node
		_ = dec.Decode(&first)
		if err := dec.Decode(&second); err == nil {
			return nil, errors.New("the file holds more than one YAML document")
		}
	}
	c.applyDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) applyDefaults() {
	if len(c.Accounts) == 0 {
		c.Accounts = []Account{{}}
	}
	for i := range c.Accounts {
		if c.Accounts[i].Name == "" {
			c.Accounts[i].Name = DefaultAccountName
		}
	}
	setDefault(&c.Collectors.Discovery.Interval, DefaultDiscoveryInterval)
	setDefault(&c.Collectors.Tables.Interval, DefaultTablesInterval)
	setDefault(&c.Collectors.AutoScaling.Interval, DefaultAutoScalingInterval)
	setDefault(&c.Collectors.CloudWatch.Interval, DefaultCloudWatchInterval)
	setDefault(&c.Collectors.CloudWatch.Delay, DefaultCloudWatchDelay)
	cw := &c.Collectors.CloudWatch
	if cw.SlowInterval == 0 && cw.Interval > 0 {
		// The smallest multiple of the interval that is at least the default.
		n := (DefaultCloudWatchSlowInterval + cw.Interval.D() - 1) / cw.Interval.D()
		cw.SlowInterval = Duration(n * cw.Interval.D())
	}
	// The catch-up window holds at least one slow-tier window.
	setDefault(&cw.MaxCatchUp, max(DefaultMaxCatchUp, cw.SlowInterval.D()))
	setDefault(&c.Collectors.TTL.Interval, DefaultTTLInterval)
	setDefault(&c.Collectors.TTL.TableInterval, DefaultTTLTableInterval)
	t := &c.Collectors.TTL
	if t.SampleItems == 0 {
		t.SampleItems = DefaultTTLSampleItems
	}
	if t.MaxReadRate == 0 {
		t.MaxReadRate = DefaultTTLMaxReadRate
	}
	if t.Budget.PerTableSample == 0 {
		t.Budget.PerTableSample = DefaultTTLPerTableSample
	}
	if t.Budget.PerHour == 0 {
		t.Budget.PerHour = DefaultTTLPerHour
	}
	setDefault(&c.AWS.CallTimeout, DefaultCallTimeout)
	if c.AWS.Concurrency == 0 {
		c.AWS.Concurrency = DefaultConcurrency
	}
	c.Collectors.Capacity.applyDefaults()
}

func setDefault(d *Duration, v time.Duration) {
	if *d == 0 {
		*d = Duration(v)
	}
}

var (
	accountNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	regionRE      = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
	roleARNRE     = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/.+$`)
)

func (c *Config) validate() error {
	names := map[string]bool{}
	for i, a := range c.Accounts {
		key := fmt.Sprintf("accounts[%d]", i)
		if !accountNameRE.MatchString(a.Name) {
			return fmt.Errorf("%s.name: %q is not a valid account name (letters, digits, '_', '.', '-')", key, a.Name)
		}
		if names[a.Name] {
			return fmt.Errorf("%s.name: %q is used by two accounts; names must be unique", key, a.Name)
		}
		names[a.Name] = true
		if a.RoleARN != "" && !roleARNRE.MatchString(a.RoleARN) {
			return fmt.Errorf("%s.role_arn: %q is not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)", key, a.RoleARN)
		}
		if a.ExternalID != "" && a.RoleARN == "" {
			return fmt.Errorf("%s.external_id: set without role_arn", key)
		}
		seen := map[string]bool{}
		for j, r := range a.Regions {
			if !regionRE.MatchString(r) {
				return fmt.Errorf("%s.regions[%d]: %q is not an AWS region name (e.g. us-east-1)", key, j, r)
			}
			if seen[r] {
				return fmt.Errorf("%s.regions[%d]: region %q is listed twice", key, j, r)
			}
			seen[r] = true
		}
	}
	for k := range c.Tables.Tags {
		if k == "" {
			return errors.New("tables.tags: empty tag key")
		}
	}
	positive := []struct {
		key string
		d   Duration
	}{
		{"collectors.discovery.interval", c.Collectors.Discovery.Interval},
		{"collectors.tables.interval", c.Collectors.Tables.Interval},
		{"collectors.autoscaling.interval", c.Collectors.AutoScaling.Interval},
		{"collectors.cloudwatch.interval", c.Collectors.CloudWatch.Interval},
		{"collectors.cloudwatch.slow_interval", c.Collectors.CloudWatch.SlowInterval},
		{"collectors.cloudwatch.delay", c.Collectors.CloudWatch.Delay},
		{"collectors.cloudwatch.max_catch_up", c.Collectors.CloudWatch.MaxCatchUp},
		{"aws.call_timeout", c.AWS.CallTimeout},
	}
	for _, p := range positive {
		if p.d < 0 {
			return fmt.Errorf("%s: must not be negative, got %s", p.key, p.d.D())
		}
	}
	cw := c.Collectors.CloudWatch
	if cw.Interval.D() < time.Minute || cw.Interval.D()%time.Minute != 0 {
		return fmt.Errorf("collectors.cloudwatch.interval: must be a whole number of minutes, at least 1m (CloudWatch keeps DynamoDB metrics per minute), got %s", cw.Interval.D())
	}
	if cw.SlowInterval.D() < cw.Interval.D() || cw.SlowInterval.D()%cw.Interval.D() != 0 {
		return fmt.Errorf("collectors.cloudwatch.slow_interval: must be a multiple of collectors.cloudwatch.interval %s (the slow tier is fetched on some of its cycles), got %s", cw.Interval.D(), cw.SlowInterval.D())
	}
	if cw.MaxCatchUp.D() < cw.SlowInterval.D() {
		return fmt.Errorf("collectors.cloudwatch.max_catch_up: %s is shorter than collectors.cloudwatch.slow_interval %s: every slow-tier fetch would lose minutes", cw.MaxCatchUp.D(), cw.SlowInterval.D())
	}
	if cw.MaxCatchUp.D() > 3*time.Hour {
		return fmt.Errorf("collectors.cloudwatch.max_catch_up: %s is longer than 3h, the window in which ListMetrics can prove a series was quiet", cw.MaxCatchUp.D())
	}
	for _, p := range []struct {
		key string
		d   Duration
	}{
		{"collectors.discovery.interval", c.Collectors.Discovery.Interval},
		{"collectors.tables.interval", c.Collectors.Tables.Interval},
		{"collectors.autoscaling.interval", c.Collectors.AutoScaling.Interval},
		{"collectors.ttl.interval", c.Collectors.TTL.Interval},
		{"collectors.ttl.table_interval", c.Collectors.TTL.TableInterval},
	} {
		if p.d.D() < 10*time.Second {
			return fmt.Errorf("%s: %s is too short; use at least 10s", p.key, p.d.D())
		}
	}
	t := c.Collectors.TTL
	if t.SampleItems < 10 || t.SampleItems > 1000000 {
		return fmt.Errorf("collectors.ttl.sample_items: must be between 10 and 1000000, got %d", t.SampleItems)
	}
	if t.MaxReadRate < 0.5 {
		return fmt.Errorf("collectors.ttl.max_read_rate: must be at least 0.5 read capacity units per second, got %g", t.MaxReadRate)
	}
	if t.Budget.PerTableSample < 1 {
		return fmt.Errorf("collectors.ttl.budget.per_table_sample: must be at least 1 read capacity unit, got %g", t.Budget.PerTableSample)
	}
	if t.Budget.PerHour < t.Budget.PerTableSample {
		return fmt.Errorf("collectors.ttl.budget.per_hour: %g is less than collectors.ttl.budget.per_table_sample %g", t.Budget.PerHour, t.Budget.PerTableSample)
	}
	for table, attr := range t.Attributes {
		if attr == "" {
			return fmt.Errorf("collectors.ttl.attributes.%s: empty attribute name", table)
		}
	}
	if err := c.Collectors.Capacity.validate(); err != nil {
		return err
	}
	if c.AWS.Concurrency < 1 || c.AWS.Concurrency > 64 {
		return fmt.Errorf("aws.concurrency: must be between 1 and 64, got %d", c.AWS.Concurrency)
	}
	if s := c.Shard; s.Count != 0 {
		if err := s.check(); err != nil {
			return fmt.Errorf("shard: %q: %w", s.String(), err)
		}
	}
	for _, e := range []struct{ key, url string }{
		{"aws.endpoints.dynamodb", c.AWS.Endpoints.DynamoDB},
		{"aws.endpoints.cloudwatch", c.AWS.Endpoints.CloudWatch},
		{"aws.endpoints.application_autoscaling", c.AWS.Endpoints.ApplicationAutoScaling},
		{"aws.endpoints.sts", c.AWS.Endpoints.STS},
	} {
		if err := CheckURL(e.url); err != nil {
			return fmt.Errorf("%s: %w", e.key, err)
		}
	}
	return nil
}

// Selects reports whether a table with the given name and tags passes the
// filters. tags may be nil when the tags are not known yet; then only names
// are checked and NeedsTags tells whether the caller must fetch them.
func (f TableFilter) Selects(name string, tags map[string]string) bool {
	if !f.SelectsName(name) {
		return false
	}
	for k, re := range f.Tags {
		v, ok := tags[k]
		if !ok || !re.MatchString(v) {
			return false
		}
	}
	return true
}

// SelectsName applies only the include and exclude patterns.
func (f TableFilter) SelectsName(name string) bool {
	if len(f.Include) > 0 {
		in := false
		for _, re := range f.Include {
			if re.MatchString(name) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, re := range f.Exclude {
		if re.MatchString(name) {
			return false
		}
	}
	return true
}

// NeedsTags reports whether tag filters are configured.
func (f TableFilter) NeedsTags() bool { return len(f.Tags) > 0 }
