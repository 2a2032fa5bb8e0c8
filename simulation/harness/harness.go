// Package harness runs the exporter on a simulated AWS account: it loads a
// scenario, starts the scenario's simulated account (package awssim, driven
// by package sim) on a loopback port, configures the exporter for it and
// moves both along one clock. The demo and replay commands use it, and so
// does every test that needs "an exporter on a simulated account".
//
// It is the only package that imports both the simulation and the exporter:
// the simulation is a witness of the exporter's models and never imports
// them, and the exporter knows nothing of the simulation. A test in this
// package (TestOnlyTheHarnessJoinsSimulationAndExporter) keeps it so.
package harness

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// AccessKeyID and SecretAccessKey are the dummy static credentials the
// exporter and the CLI's tools use against the simulated account, which
// accepts any. A test can look for the secret in output that must not
// contain it.
const (
	AccessKeyID     = "DEMOACCESSKEY"
	SecretAccessKey = "demo-secret-not-real"
)

// Scenario is a loaded scenario (package sim's).
type Scenario = sim.Scenario

// Scenarios returns the names of the built-in scenarios.
func Scenarios() []string { return sim.BuiltinNames() }

// LoadScenario reads a built-in scenario by name or a scenario file by path.
func LoadScenario(nameOrPath string) (*sim.Scenario, error) {
	for _, n := range sim.BuiltinNames() {
		if n == nameOrPath {
			return sim.Builtin(n)
		}
	}
	if _, err := os.Stat(nameOrPath); err != nil {
		return nil, fmt.Errorf("scenario %q is neither a built-in scenario (%s) nor a readable file", nameOrPath, strings.Join(sim.BuiltinNames(), ", "))
	}
	return sim.LoadScenarioFile(nameOrPath)
}

// Account is a scenario's simulated AWS account, served on a loopback port.
type Account struct {
	Scenario *sim.Scenario
	Server   *awssim.Server
	Engine   *sim.Engine
}

// StartAccount simulates sc on clk and serves its account on a free
// loopback port; the account's own failures (an internal error, a response
// it could not write) are logged to logger. Close stops it.
func StartAccount(sc *sim.Scenario, clk clock.Clock, logger *slog.Logger) (*Account, error) {
	srv := awssim.New(awssim.WithClock(clk), awssim.WithLogger(logger.With("component", "awssim")))
	eng, err := sim.New(sc, srv, clk)
	if err != nil {
		return nil, fmt.Errorf("simulating scenario %s: %w", sc.Name, err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("starting the simulated AWS account: %w", err)
	}
	return &Account{Scenario: sc, Server: srv, Engine: eng}, nil
}

// URL is the account's endpoint, for every AWS service it simulates.
func (a *Account) URL() string { return a.Server.URL() }

// Close stops serving the account.
func (a *Account) Close() { a.Server.Close() }

// AWS returns the AWS client options that reach the account: every
// endpoint at its URL and the dummy static credentials.
func (a *Account) AWS() awsclient.Options {
	return awsOptions(a.URL())
}

// awsOptions returns the AWS client options that reach a simulated account
// served at url: every endpoint there and the dummy static credentials.
func awsOptions(url string) awsclient.Options {
	return awsclient.Options{
		Credentials: credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
		Endpoints:   config.Endpoints{DynamoDB: url, CloudWatch: url, ApplicationAutoScaling: url, STS: url},
	}
}

// DemoCollectors are the collector cadences of the demo: shorter than in
// production, so that a person watching sees every family within minutes.
const DemoCollectors = `{discovery: {interval: 30s}, tables: {interval: 30s}, autoscaling: {interval: 30s}, cloudwatch: {interval: 1m, delay: 2m}, ttl: {interval: 1m, table_interval: 10m}, capacity: {interval: 15m}}`

// Config returns the exporter configuration for the account: one account
// named demo with every region of the scenario, and collectors, YAML for
// the configuration's collectors key (DemoCollectors, other cadences), or
// the production defaults when empty.
func (a *Account) Config(collectors string) (*config.Config, error) {
	y := "accounts: [{name: demo, regions: [" + strings.Join(a.Scenario.Account.Regions, ", ") + "]}]\n"
	if collectors != "" {
		y += "collectors: " + collectors + "\n"
	}
	cfg, err := config.Parse([]byte(y))
	if err != nil {
		return nil, fmt.Errorf("simulated account configuration: %w", err)
	}
	return cfg, nil
}

// startOf returns the scenario's start time: its own when it pins one, else
// fallback; truncated to the minute, in UTC.
func startOf(sc *sim.Scenario, fallback time.Time) (time.Time, error) {
	start := fallback
	if sc.Start != "" {
		t, err := time.Parse(time.RFC3339, sc.Start)
		if err != nil {
			return time.Time{}, fmt.Errorf("scenario %s: start %q: %w", sc.Name, sc.Start, err)
		}
		start = t
	}
	return start.UTC().Truncate(time.Minute), nil
}

// Run is an exporter built against a simulated account, both on a manual
// clock that Advance moves.
type Run struct {
	Clock   *clock.Manual
	Account *Account
	App     *exporter.App
}

// RunOptions adjust a Run; the zero value is the usual test set-up.
type RunOptions struct {
	// Collectors is YAML for the configuration's collectors key (see
	// Account.Config); empty means the production defaults.
	Collectors string
	// Config, when set, is used instead of Account.Config(Collectors);
	// endpoints and credentials still come from the account.
	Config *config.Config
	// Logger receives the exporter's and the account's logs (default:
	// discarded).
	Logger *slog.Logger
	// TTLSeed fixes the TTL sampler's random choices (default 1).
	TTLSeed uint64
	// Adjust, when set, changes the exporter's options before it is built
	// (another DynamoDB endpoint, retries, runtime metrics…).
	Adjust func(*exporter.Options)
}

// StartRun simulates sc from start on a manual clock, serves its account
// and builds the exporter against it, with no pacing of the TTL sampler
// (so that a replay does not wait in real time). Close stops the account.
func StartRun(ctx context.Context, sc *sim.Scenario, start time.Time, o RunOptions) (*Run, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	clk := clock.NewManual(start)
	acct, err := StartAccount(sc, clk, logger)
	if err != nil {
		return nil, err
	}
	cfg := o.Config
	if cfg == nil {
		if cfg, err = acct.Config(o.Collectors); err != nil {
			acct.Close()
			return nil, err
		}
	}
	app, err := Build(ctx, acct.URL(), cfg, clk, o)
	if err != nil {
		acct.Close()
		return nil, err
	}
	return &Run{Clock: clk, Account: acct, App: app}, nil
}

// Build builds the exporter from cfg against a simulated account served at
// url, on clk, with no pacing of the TTL sampler nor of the history fetch's
// datapoints, and the options o sets
// (its Collectors and Config are not used here).
func Build(ctx context.Context, url string, cfg *config.Config, clk clock.Clock, o RunOptions) (*exporter.App, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	seed := o.TTLSeed
	if seed == 0 {
		seed = 1
	}
	opts := exporter.Options{
		Clock: clk, AWS: awsOptions(url), Logger: logger,
		TTLPace: func(context.Context, time.Duration) error { return nil },
		TTLSeed: seed,
		// The simulated account enforces CloudWatch's datapoint quota
		// only when asked (awssim.Server.SetDatapointQuota, as cmd/bench
		// does with the exporter's own default pace).
		UnpacedDatapoints: true,
	}
	if o.Adjust != nil {
		o.Adjust(&opts)
	}
	return exporter.Build(ctx, cfg, opts)
}

// Advance moves the clock and the simulation to at and runs the collectors
// that are due.
func (r *Run) Advance(ctx context.Context, at time.Time) error {
	r.Clock.Set(at)
	if err := r.Account.Engine.AdvanceTo(at); err != nil {
		return err
	}
	r.App.Scheduler.RunDue(ctx)
	return nil
}

// Close stops the simulated account.
func (r *Run) Close() { r.Account.Close() }

// Commands returns the shell commands that point the CLI's AWS tools
// (check, capacity report, ttl audit) at the account: an export of the
// endpoint, the dummy credentials and the region, then one command per
// tool, each run as program (./dynamodb_exporter, go run .). The TTL audit
// is of the scenario's first table with TTL, when it has one.
func (a *Account) Commands(program string) []string {
	region := a.Scenario.Account.Regions[0]
	out := []string{
		fmt.Sprintf("export AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=%s",
			a.URL(), AccessKeyID, SecretAccessKey, region),
		program + " check",
		program + " capacity report",
	}
	for _, t := range a.Scenario.Tables {
		if t.TTL != nil && (t.Region == "" || t.Region == region) {
			out = append(out, program+" ttl audit --table "+t.Name)
			break
		}
	}
	return out
}

// shiftedClock is the wall clock moved by shift: it runs at the wall
// clock's speed from another time.
type shiftedClock struct{ shift time.Duration }

// Now returns the wall-clock time moved by the shift.
func (c shiftedClock) Now() time.Time { return time.Now().Add(c.shift) }

// WallClock returns the clock a scenario runs on in real time, read at
// wall-clock time now (the demo): the
// wall clock, or, for a scenario that pins its start, the scenario's own
// clock, reading that start at now and running in real time from it. On
// the wall clock a start pinned long ago would have the simulation run
// every minute from it to now (years of minutes, far past the horizon).
func WallClock(sc *sim.Scenario, now time.Time) (clock.Clock, error) {
	if sc.Start == "" {
		return clock.Real{}, nil
	}
	start, err := time.Parse(time.RFC3339, sc.Start)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: start %q: %w", sc.Name, sc.Start, err)
	}
	return shiftedClock{shift: start.Sub(now)}, nil
}
