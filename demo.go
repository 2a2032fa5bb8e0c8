package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
)

// demoCmd runs the exporter against the built-in simulated account.
type demoCmd struct {
	ListenAddress string `name:"web.listen-address" help:"Address to listen on." default:"127.0.0.1:9849" env:"DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS"`
	logFlags
}

// demoConfig is the exporter configuration used against the simulated account.
const demoConfig = `
accounts:
  - name: demo
    regions: [us-east-1, eu-west-1]
collectors:
  discovery: {interval: 30s}
  tables: {interval: 30s}
  autoscaling: {interval: 30s}
  cloudwatch: {interval: 1m, delay: 2m}
`

// Run starts the simulated account on a loopback port and the exporter
// against it, and serves until interrupted.
func (d *demoCmd) Run(ctx context.Context) error {
	sim := awssim.NewFixture(clock.Real{})
	if err := sim.Start(); err != nil {
		return fmt.Errorf("starting the simulated AWS account: %w", err)
	}
	defer sim.Close()
	return runDemo(ctx, sim, d.ListenAddress, d.logFlags, func(addr string) {
		fmt.Fprintf(os.Stdout, "dynamodb_exporter demo: simulated AWS account at %s\n", sim.URL())
		fmt.Fprintf(os.Stdout, "dynamodb_exporter demo: metrics at http://%s/metrics (first values within seconds; Ctrl-C to stop)\n", addr)
	})
}

func runDemo(ctx context.Context, sim *awssim.Server, listen string, lf logFlags, ready func(addr string)) error {
	cfg, err := config.Parse([]byte(demoConfig))
	if err != nil {
		return fmt.Errorf("demo configuration: %w", err)
	}
	url := sim.URL()
	opts := exporter.Options{
		Logger:         lf.logger(os.Stderr),
		RuntimeMetrics: true,
		AWS: awsclient.Options{
			Credentials: credentials.NewStaticCredentialsProvider("DEMOACCESSKEY", "demo-secret-not-real", ""),
			Endpoints:   config.Endpoints{DynamoDB: url, CloudWatch: url, ApplicationAutoScaling: url, STS: url},
		},
	}
	return serve(ctx, cfg, opts, webFlags{ListenAddress: listen, TelemetryPath: "/metrics"}, opts.Logger, ready)
}
