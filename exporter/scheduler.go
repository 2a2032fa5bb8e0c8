package exporter

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Job is a collector and its cadence.
type Job struct {
	Collector collectors.Collector
	Interval  time.Duration
	// Concurrent marks a job that reads the inventory but feeds no other
	// job: RunDue may run it at the same time as the jobs after it.
	Concurrent bool
}

// Scheduler runs collectors in the background, each on its own cadence. The
// time a collector is told ("now") comes from the clock, so a replay can run
// the same collectors on simulated time through RunOnce.
type Scheduler struct {
	jobs   []Job
	clock  clock.Clock
	self   *SelfMetrics
	logger *slog.Logger

	// targets are the accounts and regions every collector runs over; the
	// health self-metrics are kept per target.
	targets []*awsclient.Target

	mu      sync.Mutex
	lastDue map[string]time.Time
}

// SetTargets tells the scheduler the accounts and regions its collectors
// run over, so that each run's success is recorded per target. Call it
// before the first run.
func (s *Scheduler) SetTargets(targets []*awsclient.Target) { s.targets = targets }

// outcomes splits a run's error by target: a target fails when err holds a
// collectors.TargetError for it, every target fails on an error that
// belongs to none.
func (s *Scheduler) outcomes(err error) []TargetOutcome {
	if len(s.targets) == 0 {
		return nil
	}
	failed, all := collectors.FailedTargets(err)
	out := make([]TargetOutcome, 0, len(s.targets))
	for _, t := range s.targets {
		out = append(out, TargetOutcome{Account: t.Account, Region: t.Region, OK: !all && !failed[t.Key()]})
	}
	return out
}

// NewScheduler returns a scheduler for jobs, which RunOnce runs in order:
// put discovery before the collectors that read the inventory.
func NewScheduler(jobs []Job, clk clock.Clock, self *SelfMetrics, logger *slog.Logger) *Scheduler {
	for _, j := range jobs {
		self.AddCollector(j.Collector.Name())
	}
	return &Scheduler{jobs: jobs, clock: clk, self: self, logger: logger}
}

// RunOnce runs every job once, in order.
func (s *Scheduler) RunOnce(ctx context.Context) {
	for _, j := range s.jobs {
		s.runJob(ctx, j)
	}
}

// Run runs every job once, in order (a concurrent job alongside the jobs
// after it), then each on its own ticker until ctx ends. A job's ticker
// starts as soon as its own first run is over, so a slow first run (a long
// history fetch) does not hold back the others. A run is bounded by its job's interval so a hung call cannot stall a
// collector for ever.
func (s *Scheduler) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, j := range s.jobs {
		if ctx.Err() != nil {
			break
		}
		if !j.Concurrent {
			s.runJob(ctx, j)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if j.Concurrent {
				s.runJob(ctx, j)
			}
			ticker := time.NewTicker(j.Interval)
			defer ticker.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-ticker.C:
					s.runJob(ctx, j)
				}
			}
		}()
	}
	wg.Wait()
}

// runJob runs one job and handles its outcome: the self-metrics record it
// (per target), and its errors are logged here, once, in one line; the
// collectors return their failures and never log them (collectors' package
// doc).
func (s *Scheduler) runJob(ctx context.Context, j Job) {
	name := j.Collector.Name()
	runCtx := ctx
	if j.Interval > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, j.Interval)
		defer cancel()
	}
	started := time.Now()
	now := s.clock.Now()
	err := j.Collector.Run(runCtx, now)
	took := time.Since(started)
	n := collectors.CountErrors(err)
	s.self.RecordRun(name, took, s.clock.Now(), n, s.outcomes(err))
	if err != nil {
		s.logger.Warn("collector run finished with errors", "collector", name, "errors", n, "duration", took, "err", err)
		return
	}
	s.logger.Debug("collector run finished", "collector", name, "duration", took)
}

// RunOnceNamed runs, once and in order, the jobs whose collectors have the given names.
func (s *Scheduler) RunOnceNamed(ctx context.Context, names ...string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, j := range s.jobs {
		if want[j.Collector.Name()] {
			s.runJob(ctx, j)
		}
	}
}

// RunDue runs, in order, every job whose interval has passed on the clock
// since it last ran through RunDue (every job, the first time); concurrent
// jobs run alongside the jobs after them, and RunDue returns when all are
// done. A replay calls it after each step of simulated time.
func (s *Scheduler) RunDue(ctx context.Context) {
	now := s.clock.Now()
	s.mu.Lock()
	if s.lastDue == nil {
		s.lastDue = map[string]time.Time{}
	}
	var due []Job
	for _, j := range s.jobs {
		last, ok := s.lastDue[j.Collector.Name()]
		if !ok || now.Sub(last) >= j.Interval {
			due = append(due, j)
			s.lastDue[j.Collector.Name()] = now
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range due {
		if j.Concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.runJob(ctx, j)
			}()
			continue
		}
		s.runJob(ctx, j)
	}
	wg.Wait()
}
