package main

import (
	"context"
	"fmt"
	"io"
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

// demoCmd runs the exporter against the built-in simulated account.
type demoCmd struct {
	Scenario string `help:"Scenario to simulate: a built-in name (${scenarios}) or a YAML file." default:"demo"`
	webFlags `embed:"" set:"web_listen_address=127.0.0.1:9849"`
	logFlags
}

// loadScenario reads a built-in scenario by name or a scenario file by path.
func loadScenario(nameOrPath string) (*sim.Scenario, error) {
	for _, n := range sim.BuiltinNames() {
		if n == nameOrPath {
			return sim.Builtin(n)
		}
	}
	if _, err := os.Stat(nameOrPath); err != nil {
		return nil, fmt.Errorf("--scenario %q is neither a built-in scenario (%s) nor a readable file", nameOrPath, strings.Join(sim.BuiltinNames(), ", "))
	}
	return sim.LoadScenarioFile(nameOrPath)
}

// simulatedAccount starts the simulated account for a scenario on clk; the
// account's own failures (an internal error, a response it could not write)
// are logged to logger.
func simulatedAccount(sc *sim.Scenario, clk clock.Clock, logger *slog.Logger) (*awssim.Server, *sim.Engine, error) {
	srv := awssim.New(awssim.WithClock(clk), awssim.WithLogger(logger.With("component", "awssim")))
	eng, err := sim.New(sc, srv, clk)
	if err != nil {
		return nil, nil, fmt.Errorf("simulating scenario %s: %w", sc.Name, err)
	}
	if err := srv.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting the simulated AWS account: %w", err)
	}
	return srv, eng, nil
}

// simulatedConfig is the exporter configuration used against the simulated
// account: every region of the scenario, shorter cadences than in production.
func simulatedConfig(sc *sim.Scenario, srvURL string) (*config.Config, awsclient.Options, error) {
	yaml := fmt.Sprintf(`
accounts:
  - name: demo
    regions: [%s]
collectors:
  discovery: {interval: 30s}
  tables: {interval: 30s}
  autoscaling: {interval: 30s}
  cloudwatch: {interval: 1m, delay: 2m}
  ttl: {interval: 1m, table_interval: 10m}
  capacity: {interval: 15m}
`, strings.Join(sc.Account.Regions, ", "))
	cfg, err := config.Parse([]byte(yaml))
	if err != nil {
		return nil, awsclient.Options{}, fmt.Errorf("simulated account configuration: %w", err)
	}
	return cfg, awsclient.Options{
		Credentials: credentials.NewStaticCredentialsProvider("DEMOACCESSKEY", "demo-secret-not-real", ""),
		Endpoints:   config.Endpoints{DynamoDB: srvURL, CloudWatch: srvURL, ApplicationAutoScaling: srvURL, STS: srvURL},
	}, nil
}

// Run starts the simulated account on a loopback port and the exporter
// against it, and serves until interrupted.
func (d *demoCmd) Run(ctx context.Context) error {
	return d.run(ctx, time.Now(), os.Stdout)
}

// shiftedClock is the wall clock moved by shift: it runs at the wall
// clock's speed from another time.
type shiftedClock struct{ shift time.Duration }

// Now returns the wall-clock time moved by the shift.
func (c shiftedClock) Now() time.Time { return time.Now().Add(c.shift) }

// demoClock returns the clock the demo runs on at wall-clock time now: the
// wall clock, or, for a scenario that pins its start, the scenario's own
// clock, reading that start at now and running in real time from it. On
// the wall clock a start pinned long ago would have the simulation run
// every minute from it to now (years of minutes, far past the horizon).
func demoClock(sc *sim.Scenario, now time.Time) (clock.Clock, error) {
	if sc.Start == "" {
		return clock.Real{}, nil
	}
	start, err := time.Parse(time.RFC3339, sc.Start)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: start %q: %w", sc.Name, sc.Start, err)
	}
	return shiftedClock{shift: start.Sub(now)}, nil
}

func (d *demoCmd) run(ctx context.Context, now time.Time, out io.Writer) error {
	sc, err := loadScenario(d.Scenario)
	if err != nil {
		return err
	}
	clk, err := demoClock(sc, now)
	if err != nil {
		return err
	}
	started := time.Now()
	srv, eng, err := simulatedAccount(sc, clk, d.logger(os.Stderr))
	if err != nil {
		return err
	}
	defer srv.Close()
	return runDemo(ctx, srv, sc, d.webFlags, d.logFlags, func(addrs []string) {
		fmt.Fprintf(out, "dynamodb_exporter demo: scenario %q, %d tables, %s of history simulated in %s\n",
			sc.Name, len(eng.Tables()), eng.Now().Sub(eng.HistoryStart()).Round(time.Hour), time.Since(started).Round(time.Millisecond))
		if sc.Start != "" {
			fmt.Fprintf(out, "dynamodb_exporter demo: on the scenario's clock, from its start %s, in real time\n", eng.Start().Format(time.RFC3339))
		}
		fmt.Fprintf(out, "dynamodb_exporter demo: simulated AWS account at %s\n", srv.URL())
		for _, addr := range addrs {
			fmt.Fprintf(out, "dynamodb_exporter demo: metrics at http://%s/metrics (Ctrl-C to stop)\n", addr)
		}
	})
}

func runDemo(ctx context.Context, srv *awssim.Server, sc *sim.Scenario, web webFlags, lf logFlags, ready func(addrs []string)) error {
	cfg, awsOpts, err := simulatedConfig(sc, srv.URL())
	if err != nil {
		return err
	}
	// The exporter runs on the simulated account's clock (the scenario's
	// own when it pins its start).
	opts := exporter.Options{Logger: lf.logger(os.Stderr), RuntimeMetrics: true, AWS: awsOpts, Clock: srv.Clock()}
	return serve(ctx, cfg, opts, web, opts.Logger, ready)
}
