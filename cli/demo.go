package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// demoCmd runs the exporter against the built-in simulated account.
type demoCmd struct {
	Scenario string `help:"Scenario to simulate: a built-in name (${scenarios}) or a YAML file." default:"demo"`
	// Program, when set, is how the printed commands run the exporter
	// (tests); by default how this process was started.
	Program  string `kong:"-"`
	webFlags `embed:"" set:"web_listen_address=127.0.0.1:9849"`
	logFlags
}

// loadScenario reads a built-in scenario by name or a scenario file by path,
// naming the --scenario flag in its error.
func loadScenario(nameOrPath string) (*harness.Scenario, error) {
	sc, err := harness.LoadScenario(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("--scenario: %w", err)
	}
	return sc, nil
}

// Run starts the simulated account on a loopback port and the exporter
// against it, and serves until interrupted.
func (d *demoCmd) Run(ctx context.Context) error {
	return d.run(ctx, time.Now(), os.Stdout)
}

func (d *demoCmd) run(ctx context.Context, now time.Time, out io.Writer) error {
	sc, err := loadScenario(d.Scenario)
	if err != nil {
		return err
	}
	clk, err := harness.WallClock(sc, now)
	if err != nil {
		return err
	}
	started := time.Now()
	acct, err := harness.StartAccount(sc, clk, d.logger(os.Stderr))
	if err != nil {
		return err
	}
	defer acct.Close()
	eng, srv := acct.Engine, acct.Server
	return runDemo(ctx, acct, d.webFlags, d.logFlags, func(addrs []string) {
		fmt.Fprintf(out, "dynamodb_exporter demo: scenario %q, %d tables, %s of history simulated in %s\n",
			sc.Name, len(eng.Tables()), eng.Now().Sub(eng.HistoryStart()).Round(time.Hour), time.Since(started).Round(time.Millisecond))
		if sc.Start != "" {
			fmt.Fprintf(out, "dynamodb_exporter demo: on the scenario's clock, from its start %s, in real time\n", eng.Start().Format(time.RFC3339))
		}
		fmt.Fprintf(out, "dynamodb_exporter demo: simulated AWS account at %s\n", srv.URL())
		for _, addr := range addrs {
			fmt.Fprintf(out, "dynamodb_exporter demo: metrics at http://%s/metrics (Ctrl-C to stop)\n", addr)
		}
		fmt.Fprintln(out, "dynamodb_exporter demo: the CLI's tools on the simulated account (it accepts the dummy credentials), from another shell:")
		for _, c := range acct.Commands(invokedAs()) {
			fmt.Fprintf(out, "  %s\n", c)
		}
	})
}

// invokedAs is how the user ran this process, for the commands the demo
// prints: "go run ." when go run built it (its binary is in a go-build
// scratch directory), else the path it was started as.
func invokedAs() string {
	p := os.Args[0]
	if strings.Contains(p, string(filepath.Separator)+"go-build") {
		return "go run ."
	}
	return p
}

// runDemo serves the exporter on acct with the demo's cadences until ctx
// ends; ready, when not nil, receives the addresses listened on.
func runDemo(ctx context.Context, acct *harness.Account, web webFlags, lf logFlags, ready func(addrs []string)) error {
	cfg, err := acct.Config(harness.DemoCollectors)
	if err != nil {
		return err
	}
	// The exporter runs on the simulated account's clock (the scenario's
	// own when it pins its start). The account enforces no datapoint
	// quota, so the history fetch is not paced by datapoints: the demo's
	// capacity figures come as soon as the requests allow.
	opts := exporter.Options{Logger: lf.logger(os.Stderr), RuntimeMetrics: true, AWS: acct.AWS(), Clock: acct.Server.Clock(), UnpacedDatapoints: true}
	return serve(ctx, cfg, opts, web, opts.Logger, ready)
}
