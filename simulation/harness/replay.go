package harness

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/replay"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// Replay formats: what Prometheus would have scraped, as OpenMetrics (for
// promtool tsdb create-blocks-from openmetrics) or as promtool's
// input_series (for promtool test rules).
const (
	FormatOpenMetrics = "openmetrics"
	FormatPromtool    = "promtool"
)

// ReplayOptions say what to replay and how.
type ReplayOptions struct {
	// Start is when the replay starts when the scenario pins no start of
	// its own.
	Start    time.Time
	Duration time.Duration
	// Step is the scrape interval.
	Step time.Duration
	// Format is FormatOpenMetrics or FormatPromtool.
	Format string
	// Collectors is YAML for the configuration's collectors key; empty
	// means production cadences, so that what rules see is what they
	// would see for real.
	Collectors string
	Logger     *slog.Logger
	// Progress, when set, is told after each step.
	Progress func(done, total int)
}

// Replay simulates sc for o.Duration, runs the exporter's collectors on the
// same simulated clock, and writes every scrape to w in o.Format. Only the
// TTL sampler's pacing is dropped.
func Replay(ctx context.Context, sc *sim.Scenario, o ReplayOptions, w io.Writer) error {
	if o.Format != FormatOpenMetrics && o.Format != FormatPromtool {
		return fmt.Errorf("replay format %q: want %s or %s", o.Format, FormatOpenMetrics, FormatPromtool)
	}
	start, err := startOf(sc, o.Start)
	if err != nil {
		return err
	}
	run, err := StartRun(ctx, sc, start, RunOptions{Collectors: o.Collectors, Logger: o.Logger})
	if err != nil {
		return err
	}
	defer run.Close()
	rec := replay.NewRecorder()
	if err := replay.Run(ctx, replay.Options{
		Clock: run.Clock, Start: start, Duration: o.Duration, Step: o.Step,
		Advance: run.Account.Engine.AdvanceTo, Scheduler: run.App.Scheduler, Gatherer: run.App.Registry, Progress: o.Progress,
	}, rec); err != nil {
		return err
	}
	if o.Format == FormatPromtool {
		return rec.WritePromtoolSeries(w)
	}
	return rec.WriteOpenMetrics(w)
}
