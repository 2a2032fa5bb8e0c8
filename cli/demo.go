package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
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
func loadScenario(nameOrPath string) (*sim.Scenario, error) {
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
		for _, c := range acct.Commands(d.program()) {
			fmt.Fprintf(out, "  %s\n", c)
		}
	})
}

// program is how the user ran this process, for the commands the demo
// prints: "go run ." when go run built it (its binary is in a go-build
// scratch directory), else the path it was started as.
func (d *demoCmd) program() string {
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
	// own when it pins its start).
	opts := exporter.Options{Logger: lf.logger(os.Stderr), RuntimeMetrics: true, AWS: acct.AWS(), Clock: acct.Server.Clock()}
	return serve(ctx, cfg, opts, web, opts.Logger, ready)
}
