package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"weak"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exposition"
)

// App is a fully wired exporter: targets, collectors, scheduler and registry.
type App struct {
	Config     *config.Config
	Targets    []*awsclient.Target
	Inventory  *collectors.Inventory
	CloudWatch *collectors.CloudWatch
	// Capacity is the capacity-mode collector, nil when disabled.
	Capacity  *collectors.Capacity
	Scheduler *Scheduler
	// Clock is the time source the collectors are run at.
	Clock    clock.Clock
	Self     *SelfMetrics
	Registry *prometheus.Registry

	exporter       *Exporter
	runtimeMetrics bool
	// published tells the expositions built by Handler that a collector
	// has run (and published a snapshot).
	published *publisher
}

// publisher tells expositions that a collector has published a snapshot.
// It holds them weakly: a handler dropped by its caller is not kept alive
// (nor re-encoded on every publish) for the app's sake.
type publisher struct {
	mu sync.Mutex
	xs []weak.Pointer[exposition.Cache]
}

func (p *publisher) add(x *exposition.Cache) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.xs = append(p.xs, weak.Make(x))
}

// publish calls Published on every exposition still in use.
func (p *publisher) publish() {
	p.mu.Lock()
	alive := p.xs[:0]
	var xs []*exposition.Cache
	for _, w := range p.xs {
		if x := w.Value(); x != nil {
			alive = append(alive, w)
			xs = append(xs, x)
		}
	}
	clear(p.xs[len(alive):])
	p.xs = alive
	p.mu.Unlock()
	for _, x := range xs {
		x.Published()
	}
}

// publishing is a collector whose runs are announced to a publisher once
// done: each run publishes a snapshot (even a failed one keeps serving
// what it knew, in a new snapshot or the same).
type publishing struct {
	collectors.Collector
	p *publisher
}

// Run implements collectors.Collector.
func (c publishing) Run(ctx context.Context, now time.Time) error {
	defer c.p.publish()
	return c.Collector.Run(ctx, now)
}

// Options tune Build.
type Options struct {
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// AWS tunes the AWS clients (endpoints from the config are applied on top).
	AWS awsclient.Options
	// RuntimeMetrics adds the Go and process collectors to the registry.
	RuntimeMetrics bool
	// Logger receives the collectors' logs.
	Logger *slog.Logger
	// TTLPace replaces the TTL sampler's wall-clock pacing (tests, replays).
	TTLPace func(ctx context.Context, d time.Duration) error
	// TTLSeed makes the TTL sampler's segment choice reproducible when non-zero.
	TTLSeed uint64
	// UnpacedDatapoints lifts the capacity history fetch's datapoint pace
	// (requests stay paced): for an account that enforces no datapoint
	// quota, such as the simulated one by default, where the pace would
	// only make tests, replays and the demo wait in real time.
	UnpacedDatapoints bool
}

// Build wires an exporter from a validated configuration.
func Build(ctx context.Context, cfg *config.Config, opts Options) (*App, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	self := NewSelfMetrics()
	awsOpts := opts.AWS
	awsOpts.Recorder = self
	mergeEndpoints(&awsOpts.Endpoints, cfg.AWS.Endpoints)
	targets, err := awsclient.NewTargets(ctx, cfg, awsOpts)
	if err != nil {
		return nil, fmt.Errorf("building AWS clients: %w", err)
	}
	inv := collectors.NewInventory()
	deps := collectors.Deps{Targets: targets, Inventory: inv, Logger: opts.Logger}
	jobs := []Job{
		{collectors.NewDiscovery(deps, collectors.DiscoverySettings{Filter: cfg.Tables, Shard: cfg.Shard}), cfg.Collectors.Discovery.Interval.D(), false},
		{collectors.NewTables(deps, collectors.TablesSettings{Filter: cfg.Tables, Concurrency: cfg.AWS.Concurrency}), cfg.Collectors.Tables.Interval.D(), false},
	}
	if cfg.Collectors.AutoScaling.On() {
		jobs = append(jobs, Job{collectors.NewAutoScaling(deps, collectors.AutoScalingSettings{}), cfg.Collectors.AutoScaling.Interval.D(), false})
	}
	cw := collectors.NewCloudWatch(deps, cloudWatchSettings(cfg))
	if t := cfg.Collectors.TTL; t.On() {
		ts := ttlSettings(t, opts)
		// The backlog's storage is priced as the capacity collector's
		// storage (collectors.capacity.prices).
		ts.Prices = CapacitySettings(cfg.Collectors.Capacity).Prices
		jobs = append(jobs, Job{collectors.NewTTL(deps, ts), t.Interval.D(), true})
	}
	// Capacity mode: derived gauges and cost what-if from CloudWatch
	// history; concurrent, so its long first history fetch holds back no
	// other collector.
	var capacityCollector *collectors.Capacity
	if c := cfg.Collectors.Capacity; c.On() {
		settings := CapacitySettings(c)
		if opts.UnpacedDatapoints {
			settings.Fetch.DatapointsPerSecond, settings.Fetch.RecentDatapointsPerSecond = 0, 0
		}
		capacityCollector = collectors.NewCapacity(deps, settings)
		jobs = append(jobs, Job{capacityCollector, c.Interval.D(), true})
	}
	// CloudWatch last: the TTL and capacity jobs run alongside it.
	if cfg.Collectors.CloudWatch.On() {
		jobs = append(jobs, Job{cw, cfg.Collectors.CloudWatch.Interval.D(), false})
	}

	// Every run, whoever drives it (the scheduler, a replay, a test),
	// tells the expositions to encode the new snapshot.
	pub := &publisher{}
	cs := make([]collectors.Collector, len(jobs))
	for i, j := range jobs {
		cs[i] = j.Collector
		jobs[i].Collector = publishing{j.Collector, pub}
	}
	exp := New(cs, self)
	reg, err := NewRegistry(exp, opts.RuntimeMetrics)
	if err != nil {
		return nil, fmt.Errorf("registering collectors: %w", err)
	}
	sched := NewScheduler(jobs, opts.Clock, self, opts.Logger)
	sched.SetTargets(targets)
	return &App{
		Config:     cfg,
		Targets:    targets,
		Inventory:  inv,
		CloudWatch: cw,
		Capacity:   capacityCollector,
		Scheduler:  sched,
		Clock:      opts.Clock,
		Self:       self,
		Registry:   reg,

		exporter:       exp,
		runtimeMetrics: opts.RuntimeMetrics,
		published:      pub,
	}, nil
}

// mergeEndpoints fills empty endpoints in dst from src.
func mergeEndpoints(dst *config.Endpoints, src config.Endpoints) {
	if dst.DynamoDB == "" {
		dst.DynamoDB = src.DynamoDB
	}
	if dst.CloudWatch == "" {
		dst.CloudWatch = src.CloudWatch
	}
	if dst.ApplicationAutoScaling == "" {
		dst.ApplicationAutoScaling = src.ApplicationAutoScaling
	}
	if dst.STS == "" {
		dst.STS = src.STS
	}
}

// cloudWatchSettings converts the collectors.cloudwatch configuration.
func cloudWatchSettings(cfg *config.Config) collectors.CloudWatchSettings {
	c := cfg.Collectors.CloudWatch
	return collectors.CloudWatchSettings{
		Interval:     c.Interval.D(),
		SlowInterval: c.SlowInterval.D(),
		Delay:        c.Delay.D(),
		MaxCatchUp:   c.MaxCatchUp.D(),
		// Account-level series come from the first shard only.
		SkipAccountLevel: cfg.Shard.Index > 0,
	}
}

// ttlSettings converts the collectors.ttl configuration and the sampler's
// options.
func ttlSettings(t config.TTL, opts Options) collectors.TTLSettings {
	return collectors.TTLSettings{
		Interval:       t.Interval.D(),
		TableInterval:  t.TableInterval.D(),
		SampleItems:    t.SampleItems,
		MaxReadRate:    t.MaxReadRate,
		PerTableSample: t.Budget.PerTableSample,
		PerHour:        t.Budget.PerHour,
		Attributes:     t.Attributes,
		Pace:           opts.TTLPace,
		Seed:           opts.TTLSeed,
	}
}

// CapacitySettings converts the collectors.capacity configuration.
func CapacitySettings(c config.Capacity) collectors.CapacitySettings {
	s := collectors.CapacitySettings{
		Delay:          c.Delay.D(),
		History:        c.History.D(),
		PeakPercentile: c.PeakPercentile,
		SurgeFactor:    c.SurgeFactor,
		ScaleOutDelay:  c.ScaleOutDelay.D(),
		Fetch: collectors.FetchSettings{
			Concurrency:               c.Fetch.Concurrency,
			RequestsPerSecond:         c.Fetch.RequestsPerSecond,
			DatapointsPerSecond:       c.Fetch.DatapointsPerSecond,
			RecentDatapointsPerSecond: c.Fetch.RecentDatapointsPerSecond,
		},
		Options: capacity.Options{
			MinMonthlySaving:  zeroAsNone(c.MinMonthlySaving),
			MinRequestRate:    zeroAsNone(c.MinRequestRate),
			MaxThrottledRatio: zeroAsNone(c.MaxThrottledRatio),
		},
	}
	s.Engineering = capacity.Engineering{HourlyRate: c.Engineering.HourlyRate,
		OnDemandHours: c.Engineering.HoursPerMonth.OnDemand, ProvisionedHours: c.Engineering.HoursPerMonth.Provisioned}
	d := capacity.DefaultAutoScaling()
	d.ScaleOutDelay = c.ScaleOutDelay.D()
	s.Options.DefaultAutoScaling = &d
	for _, p := range c.Prices {
		s.Prices = append(s.Prices, capacity.PriceOverride{
			Region: p.Region, TableClass: capacity.TableClass(p.TableClass),
			Prices: capacity.Prices{
				OnDemandReadPerMillion: p.OnDemandReadPerMillion, OnDemandWritePerMillion: p.OnDemandWritePerMillion,
				ProvisionedRCUHour: p.ProvisionedRCUHour, ProvisionedWCUHour: p.ProvisionedWCUHour,
				StorageGBMonth: p.StorageGBMonth,
			},
		})
	}
	return s
}

// zeroAsNone maps a configured threshold to capacity.Options, where zero
// means "the default" and a negative value means "none".
func zeroAsNone(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

// CapacityReports runs discovery and the table collector once, then fetches
// the capacity history of the monitored tables (only table when not empty)
// at the app's clock and returns each table's figures, as the capacity
// collector computes them. The error names what failed: no monitored table
// (then there is no report), or the tables whose figures are missing.
func (a *App) CapacityReports(ctx context.Context, table string, logger *slog.Logger) ([]collectors.TableReport, error) {
	a.Scheduler.RunOnceNamed(ctx, "discovery", "tables")
	s := CapacitySettings(a.Config.Collectors.Capacity)
	if table != "" {
		s.Tables = func(name string) bool { return name == table }
	}
	c := collectors.NewCapacity(collectors.Deps{Targets: a.Targets, Inventory: a.Inventory, Logger: logger}, s)
	runErr := c.Run(ctx, a.Clock.Now())
	reports := c.Reports()
	if len(reports) == 0 {
		if table != "" {
			return nil, errors.Join(fmt.Errorf("table %q is not monitored (check the name and the tables filters)", table), runErr)
		}
		return nil, errors.Join(errors.New("no monitored table"), runErr)
	}
	return reports, runErr
}
