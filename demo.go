package main

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

// demoCmd runs the exporter against the built-in simulated account.
type demoCmd struct {
	ListenAddress string `name:"web.listen-address" help:"Address to listen on." default:"127.0.0.1:9849" env:"DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS"`
	Scenario      string `help:"Scenario to simulate: a built-in name (${scenarios}) or a YAML file." default:"demo"`
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
	sc, err := loadScenario(d.Scenario)
	if err != nil {
		return err
	}
	started := time.Now()
	srv, eng, err := simulatedAccount(sc, clock.Real{}, d.logger(os.Stderr))
	if err != nil {
		return err
	}
	defer srv.Close()
	return runDemo(ctx, srv, sc, d.ListenAddress, d.logFlags, func(addr string) {
		fmt.Fprintf(os.Stdout, "dynamodb_exporter demo: scenario %q, %d tables, %s of history simulated in %s\n",
			sc.Name, len(eng.Tables()), eng.Now().Sub(eng.HistoryStart()).Round(time.Hour), time.Since(started).Round(time.Millisecond))
		fmt.Fprintf(os.Stdout, "dynamodb_exporter demo: simulated AWS account at %s\n", srv.URL())
		fmt.Fprintf(os.Stdout, "dynamodb_exporter demo: metrics at http://%s/metrics (Ctrl-C to stop)\n", addr)
	})
}

func runDemo(ctx context.Context, srv *awssim.Server, sc *sim.Scenario, listen string, lf logFlags, ready func(addr string)) error {
	cfg, awsOpts, err := simulatedConfig(sc, srv.URL())
	if err != nil {
		return err
	}
	opts := exporter.Options{Logger: lf.logger(os.Stderr), RuntimeMetrics: true, AWS: awsOpts}
	return serve(ctx, cfg, opts, webFlags{ListenAddress: listen, TelemetryPath: "/metrics"}, opts.Logger, ready)
}
