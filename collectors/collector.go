// Package collectors holds one collector per AWS source. Each runs in the
// background on its own cadence (driven by the exporter's scheduler or by a
// replay), keeps what it learned, and hands the exporter a snapshot of
// constant metrics: a scrape never calls AWS.
package collectors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// Collector is one background job.
type Collector interface {
	// Name is the value of the collector label of the self-metrics.
	Name() string
	// Run does one cycle at simulated or real time now. A partial failure
	// (one table, one region) is returned as an error joining every problem,
	// and the collector keeps serving what it knew.
	Run(ctx context.Context, now time.Time) error
	// Metrics returns the collector's last snapshot.
	Metrics() []prometheus.Metric
}

// LiveReporter is implemented by a collector with figures that move while a
// run is in progress (the capacity history's first fetch): they are read
// on every scrape, apart from the snapshot, which is encoded once per
// publish and so only changes at the end of a run.
type LiveReporter interface {
	// LiveMetrics returns the figures as they are now.
	LiveMetrics() []prometheus.Metric
}

// snapshot holds the last set of metrics a collector built; reads never block.
type snapshot struct {
	p atomic.Pointer[[]prometheus.Metric]
}

func (s *snapshot) store(ms []prometheus.Metric) { s.p.Store(&ms) }

// targetSnapshot is a snapshot made of each target's last figures, in the
// targets' order, for a collector that publishes each target's figures as
// soon as its run is done (targets run concurrently).
type targetSnapshot struct {
	snapshot
	mu   sync.Mutex
	last map[string][]prometheus.Metric // by target key
}

// publish replaces t's figures and stores the snapshot of all targets.
func (s *targetSnapshot) publish(targets []*awsclient.Target, t *awsclient.Target, ms []prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string][]prometheus.Metric{}
	}
	s.last[t.Key()] = ms
	var all []prometheus.Metric
	for _, t := range targets {
		all = append(all, s.last[t.Key()]...)
	}
	s.store(all)
}

// previous returns t's last published figures.
func (s *targetSnapshot) previous(t *awsclient.Target) []prometheus.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[t.Key()]
}

// Metrics returns the stored metrics (nil before the first store).
func (s *snapshot) Metrics() []prometheus.Metric {
	if p := s.p.Load(); p != nil {
		return *p
	}
	return nil
}

// TargetError is the part of a collector run's error that belongs to one
// account and region, so that the exporter can tell, per target, whether
// the run succeeded: one failing region must not hide behind the others.
type TargetError struct {
	Account, Region string
	Err             error
}

// Error implements error; the wrapped messages already name the target.
func (e *TargetError) Error() string { return e.Err.Error() }

// Unwrap keeps errors.Is and errors.As working through a TargetError.
func (e *TargetError) Unwrap() error { return e.Err }

// forTarget wraps a non-nil err as t's.
func forTarget(t *awsclient.Target, err error) error {
	if err == nil {
		return nil
	}
	return &TargetError{Account: t.Account, Region: t.Region, Err: err}
}

// FailedTargets returns the "account/region" keys (awsclient.Target.Key) of
// the targets err holds a TargetError for, and whether err also holds an
// error attributed to no target (then every target counts as failed).
func FailedTargets(err error) (failed map[string]bool, unattributed bool) {
	failed = map[string]bool{}
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if te, ok := err.(*TargetError); ok {
			failed[te.Account+"/"+te.Region] = true
			return
		}
		if multi, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range multi.Unwrap() {
				walk(e)
			}
			return
		}
		unattributed = true
	}
	walk(err)
	return failed, unattributed
}

// CountErrors returns how many errors err holds when it was built with
// errors.Join (possibly nested, possibly inside a TargetError), 1 for any
// other non-nil error, 0 for nil.
func CountErrors(err error) int {
	if err == nil {
		return 0
	}
	if te, ok := err.(*TargetError); ok {
		return CountErrors(te.Err)
	}
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		n := 0
		for _, e := range multi.Unwrap() {
			n += CountErrors(e)
		}
		return n
	}
	return 1
}

// eachTarget runs one cycle of a collector that keeps state per target: for
// every target it fetches (or creates with newState) the target's state,
// runs run, and collects the state's metrics. It returns the metrics of
// every target and the errors joined; a failing target keeps serving what
// its state holds.
func eachTarget[S any](targets []*awsclient.Target, state map[string]S, newState func() S,
	run func(*awsclient.Target, S) error, metrics func(*awsclient.Target, S) []prometheus.Metric) ([]prometheus.Metric, error) {
	var errs []error
	var ms []prometheus.Metric
	for _, t := range targets {
		st, ok := state[t.Key()]
		if !ok {
			st = newState()
			state[t.Key()] = st
		}
		if err := run(t, st); err != nil {
			errs = append(errs, forTarget(t, err))
		}
		ms = append(ms, metrics(t, st)...)
	}
	return ms, errors.Join(errs...)
}

// eachTargetConcurrently is eachTarget with every target's run in its own
// goroutine, so that a region whose calls hang does not use up the run's
// time of the regions after it. run must only touch its own target's
// state. Metrics and errors keep the targets' order.
func eachTargetConcurrently[S any](targets []*awsclient.Target, state map[string]S, newState func() S,
	run func(*awsclient.Target, S) error, metrics func(*awsclient.Target, S) []prometheus.Metric) ([]prometheus.Metric, error) {
	states := make([]S, len(targets))
	for i, t := range targets {
		st, ok := state[t.Key()]
		if !ok {
			st = newState()
			state[t.Key()] = st
		}
		states[i] = st
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = forTarget(t, run(t, states[i]))
		}()
	}
	wg.Wait()
	var ms []prometheus.Metric
	for i, t := range targets {
		ms = append(ms, metrics(t, states[i])...)
	}
	return ms, errors.Join(errs...)
}
