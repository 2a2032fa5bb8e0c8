package exporter

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// recorder is a collector that records when it ran and fails on demand.
type recorder struct {
	name string
	mu   sync.Mutex
	runs []time.Time
	log  *[]string
	fail error
}

func (r *recorder) Name() string                 { return r.name }
func (r *recorder) Metrics() []prometheus.Metric { return nil }
func (r *recorder) Run(_ context.Context, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, now)
	*r.log = append(*r.log, r.name)
	return r.fail
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.runs)
}

func TestSchedulerRunsInOrderOnTheClockAndCountsErrors(t *testing.T) {
	var order []string
	a := &recorder{name: "discovery", log: &order}
	b := &recorder{name: "tables", log: &order, fail: errors.Join(errors.New("one"), errors.New("two"))}
	clk := clock.NewManual(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	self := NewSelfMetrics()
	s := NewScheduler([]Job{{a, time.Minute, false}, {b, time.Minute, false}}, clk, self, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.RunOnce(context.Background())
	if len(order) != 2 || order[0] != "discovery" || order[1] != "tables" {
		t.Fatalf("run order = %v", order)
	}
	if !a.runs[0].Equal(clk.Now()) {
		t.Errorf("collector told %v, clock says %v", a.runs[0], clk.Now())
	}
	if got := self.collectors["tables"].errors; got != 2 {
		t.Errorf("errors counted = %v, want 2 (joined errors count one by one)", got)
	}
	if self.collectors["tables"].targets["\xff"].success || !self.collectors["discovery"].targets["\xff"].success {
		t.Error("success flags wrong")
	}
	s.RunOnceNamed(context.Background(), "tables")
	if a.count() != 1 || b.count() != 2 {
		t.Errorf("RunOnceNamed ran discovery %d, tables %d times", a.count(), b.count())
	}
}

func TestSchedulerRunRepeatsAndStops(t *testing.T) {
	var order []string
	a := &recorder{name: "fast", log: &order}
	s := NewScheduler([]Job{{a, 10 * time.Millisecond, false}}, clock.Real{}, NewSelfMetrics(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for a.count() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if a.count() < 3 {
		t.Errorf("ran %d times in 5 s at a 10 ms interval", a.count())
	}
}

func TestSchedulerRunDueFollowsEachInterval(t *testing.T) {
	var fastLog, slowLog []string
	fast := &recorder{name: "fast", log: &fastLog}
	slow := &recorder{name: "slow", log: &slowLog}
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := NewScheduler([]Job{{fast, time.Minute, false}, {slow, 5 * time.Minute, true}}, clk, NewSelfMetrics(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for range 10 {
		s.RunDue(context.Background())
		clk.Advance(time.Minute)
	}
	if fast.count() != 10 || slow.count() != 2 {
		t.Errorf("over 10 minutes: fast ran %d (want 10), slow %d (want 2: minutes 0 and 5)", fast.count(), slow.count())
	}
}
