package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/replay"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// replayCmd runs a scenario and the exporter in fast-forward.
type replayCmd struct {
	Scenario string        `required:"" help:"Scenario to replay: a built-in name (${scenarios}) or a YAML file."`
	Duration time.Duration `help:"Simulated time to replay." default:"72h"`
	Step     time.Duration `help:"Scrape interval of the replay." default:"1m"`
	Start    string        `help:"Scenario start, RFC 3339 (default: the scenario's own start, else now minus --duration, so the replay ends now)."`
	Output   string        `short:"o" help:"File to write (default: standard output)."`
	Format   string        `help:"openmetrics (for promtool tsdb create-blocks-from openmetrics) or promtool (input_series for promtool test rules)." default:"openmetrics" enum:"openmetrics,promtool"`
	logFlags
}

// Run replays the scenario and writes what Prometheus would have scraped.
func (c *replayCmd) Run(ctx context.Context) error {
	sc, err := loadScenario(c.Scenario)
	if err != nil {
		return err
	}
	start := time.Now().UTC().Add(-c.Duration).Truncate(time.Minute)
	if c.Start != "" {
		if start, err = time.Parse(time.RFC3339, c.Start); err != nil {
			return fmt.Errorf("--start %q: %w", c.Start, err)
		}
	}
	var w io.Writer = os.Stdout
	if c.Output != "" {
		f, err := os.Create(c.Output)
		if err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	progress := func(done, total int) {
		if done%600 == 0 || done == total {
			fmt.Fprintf(os.Stderr, "replayed %d/%d steps\n", done, total)
		}
	}
	if err := runReplay(ctx, sc, start, c.Duration, c.Step, c.Format, bw, c.logger(os.Stderr), progress); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the replay: %w", err)
	}
	return nil
}

// runReplay simulates sc from start for duration, runs the exporter's
// collectors on the same simulated clock, and writes every scrape in format.
func runReplay(ctx context.Context, sc *sim.Scenario, start time.Time, duration, step time.Duration, format string, w io.Writer, logger *slog.Logger, progress func(done, total int)) error {
	return runReplayWith(ctx, sc, start, duration, step, format, "", w, logger, progress)
}

// runReplayWith is runReplay with more exporter configuration: collectors
// is YAML for the configuration's collectors key (e.g. other cadences), or
// empty for the defaults.
func runReplayWith(ctx context.Context, sc *sim.Scenario, start time.Time, duration, step time.Duration, format, collectors string, w io.Writer, logger *slog.Logger, progress func(done, total int)) error {
	if sc.Start != "" {
		t, err := time.Parse(time.RFC3339, sc.Start)
		if err != nil {
			return fmt.Errorf("scenario start: %w", err)
		}
		start = t
	}
	start = start.UTC().Truncate(time.Minute)
	clk := clock.NewManual(start)
	srv, eng, err := simulatedAccount(sc, clk, logger)
	if err != nil {
		return err
	}
	defer srv.Close()
	// Production cadences, so that what the rules see is what they would
	// see for real; only the TTL sampler's pacing is dropped.
	cfgYAML := "accounts: [{name: demo, regions: [" + strings.Join(sc.Account.Regions, ", ") + "]}]\n"
	if collectors != "" {
		cfgYAML += "collectors: " + collectors + "\n"
	}
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		return err
	}
	_, awsOpts, err := simulatedConfig(sc, srv.URL())
	if err != nil {
		return err
	}
	app, err := exporter.Build(ctx, cfg, exporter.Options{
		Clock: clk, AWS: awsOpts, Logger: logger,
		TTLPace: func(context.Context, time.Duration) error { return nil },
		TTLSeed: 1,
	})
	if err != nil {
		return err
	}
	rec := replay.NewRecorder()
	if err := replay.Run(ctx, replay.Options{
		Clock: clk, Start: start, Duration: duration, Step: step,
		Advance: eng.AdvanceTo, Scheduler: app.Scheduler, Gatherer: app.Registry, Progress: progress,
	}, rec); err != nil {
		return err
	}
	if format == "promtool" {
		return rec.WritePromtoolSeries(w)
	}
	return rec.WriteOpenMetrics(w)
}
