package replay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

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
	// Scrapes are gathered in step, then filed by a second goroutine while
	// the next step runs: filing is a fifth of a replay's work.
	type scrape struct {
		mfs []*dto.MetricFamily
		at  time.Time
	}
	scrapes := make(chan scrape, 16)
	filed := make(chan error, 1)
	go func() {
		var err error
		for s := range scrapes {
			if err == nil {
				err = rec.add(s.mfs, s.at)
			}
		}
		filed <- err
	}()
	err := run(ctx, o, total, func(mfs []*dto.MetricFamily, at time.Time) { scrapes <- scrape{mfs, at} })
	close(scrapes)
	if ferr := <-filed; err == nil {
		err = ferr
	}
	return err
}

func run(ctx context.Context, o Options, total int, file func([]*dto.MetricFamily, time.Time)) error {
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
		mfs, err := o.Gatherer.Gather()
		if err != nil {
			return fmt.Errorf("replay: gathering at %s: %w", at.Format(time.RFC3339), err)
		}
		file(mfs, at)
		if o.Progress != nil {
			o.Progress(i+1, total)
		}
	}
	return nil
}
