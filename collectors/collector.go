// The Collector interface, what every collector is built on (Deps), and
// the one fan-out over targets (eachTarget) that publishes and attributes
// each target's figures and errors.
package collectors

import (
	"context"
	"errors"
	"log/slog"
	"slices"
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

// Deps are what every collector is built on (its constructor's first
// argument).
type Deps struct {
	// Targets are the accounts and regions the collector reads; its
	// figures are published in their order.
	Targets []*awsclient.Target
	// Inventory holds the tables: discovery lists their names, the table
	// collector describes them, the other collectors read them.
	Inventory *Inventory
	// Logger receives what the collector notices that is not a failure
	// (failures are returned: see the package doc); the collector adds its
	// name as the collector attribute. Nil discards.
	Logger *slog.Logger
}

// logger returns the logger of the collector named name.
func (d Deps) logger(name string) *slog.Logger {
	if d.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Logger.With("collector", name)
}

// maxTargetsInFlight bounds how many accounts and regions the discovery,
// tables, autoscaling and capacity collectors read at once.
const maxTargetsInFlight = 8

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
	// A run's figures are appended as they come: at 1,000 tables they
	// are about 150,000 metrics, and the slack of the last doubling would
	// stay as long as the figures do.
	if cap(ms) > len(ms) {
		ms = slices.Clone(ms)
	}
	s.last[t.Key()] = ms
	if len(targets) == 1 {
		s.store(ms)
		return
	}
	n := 0
	for _, t := range targets {
		n += len(s.last[t.Key()])
	}
	// Sized, not grown: at 1,000 tables a snapshot holds about 150,000
	// metrics, and appending would leave up to as many free slots.
	all := make([]prometheus.Metric, 0, n)
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

// targetStates returns the state of every target, in the targets' order,
// creating with newState the state of a target state does not hold yet.
// Call it before eachTarget, under the collector's lock: the runs then
// touch their own target's state only.
func targetStates[S any](targets []*awsclient.Target, state map[string]S, newState func() S) []S {
	out := make([]S, len(targets))
	for i, t := range targets {
		st, ok := state[t.Key()]
		if !ok {
			st = newState()
			state[t.Key()] = st
		}
		out[i] = st
	}
	return out
}

// eachTarget is the one fan-out of every collector: it calls run for every
// target (i its index), up to limit targets at a time, started in the
// targets' order (a limit of 1 runs them one after the other), and returns
// when every run has. As soon as a target's run returns, the metrics it
// returned are published to snap (nil for a collector that emits none):
// a target that fails returns what it keeps serving, and a target that
// hangs holds back no other. Each error is attributed to its target
// (TargetError); they are returned joined, in the targets' order, and not
// logged (the package doc says where they are). run must touch only its
// own target's state, or lock.
func eachTarget(targets []*awsclient.Target, limit int, snap *targetSnapshot,
	run func(i int, t *awsclient.Target) ([]prometheus.Metric, error)) error {
	limit = max(limit, 1)
	errs := make([]error, len(targets))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, t := range targets {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ms, err := run(i, t)
			errs[i] = forTarget(t, err)
			if snap != nil {
				snap.publish(targets, t, ms)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
