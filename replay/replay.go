package replay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// Stepper runs the collectors that are due at the clock's time.
type Stepper interface {
	RunDue(ctx context.Context)
}

// Options describe one replay.
type Options struct {
	// Clock is shared by the simulation and the exporter; Run moves it.
	Clock *clock.Manual
	// Start is the first scrape's time; Duration and Step set the others.
	Start    time.Time
	Duration time.Duration
	Step     time.Duration
	// Advance brings the simulation to the given time before each step
	// (nil when the simulated account needs no driving).
	Advance func(time.Time) error
	// Scheduler runs the exporter's collectors that are due.
	Scheduler Stepper
	// Gatherer is scraped after each step.
	Gatherer prometheus.Gatherer
	// Progress is told after each step how many of the steps are done.
	Progress func(done, total int)
}

// Run replays [Start, Start+Duration] in steps of Step into rec.
func Run(ctx context.Context, o Options, rec *Recorder) error {
	if o.Step <= 0 || o.Duration < 0 {
		return fmt.Errorf("replay: step must be positive and duration not negative (step %s, duration %s)", o.Step, o.Duration)
	}
	if o.Clock == nil || o.Scheduler == nil || o.Gatherer == nil {
		return errors.New("replay: clock, scheduler and gatherer are required")
	}
	total := int(o.Duration/o.Step) + 1
	for i := range total {
		if err := ctx.Err(); err != nil {
			return err
		}
		at := o.Start.Add(time.Duration(i) * o.Step)
		o.Clock.Set(at)
		if o.Advance != nil {
			if err := o.Advance(at); err != nil {
				return fmt.Errorf("replay: advancing the simulation to %s: %w", at.Format(time.RFC3339), err)
			}
		}
		o.Scheduler.RunDue(ctx)
		if err := rec.Record(o.Gatherer, at); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(i+1, total)
		}
	}
	return nil
}
