package awssim

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// latencySet is the account-wide per-call latency (SetLatency).
type latencySet struct {
	mu    sync.RWMutex
	rules map[[2]string]time.Duration // {service, operation} -> delay
}

// SetLatency makes every request of service and operation wait d (wall
// clock, honouring the request's cancellation) before it is handled, as
// the network and AWS's own processing time do: a bench measuring how long
// an exporter takes to fetch its first figures injects a realistic per-call
// latency this way. An empty service or operation matches every one; the
// most specific rule applies (service and operation, then service, then
// every request). d <= 0 removes the rule. The latency is independent of
// injected faults: a request that a fault delays waits both.
func (s *Server) SetLatency(service, operation string, d time.Duration) {
	s.latency.mu.Lock()
	defer s.latency.mu.Unlock()
	k := [2]string{service, operation}
	if d <= 0 {
		delete(s.latency.rules, k)
		return
	}
	if s.latency.rules == nil {
		s.latency.rules = map[[2]string]time.Duration{}
	}
	s.latency.rules[k] = d
}

// of returns the latency of service/op.
func (ls *latencySet) of(service, op string) time.Duration {
	ls.mu.RLock()
	defer ls.mu.RUnlock()
	for _, k := range [][2]string{{service, op}, {service, ""}, {"", op}, {"", ""}} {
		if d, ok := ls.rules[k]; ok {
			return d
		}
	}
	return 0
}

// wait sleeps the latency of service/op, or until ctx is done.
func (ls *latencySet) wait(ctx context.Context, service, op string) error {
	d := ls.of(service, op)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("awssim: injected latency: %w", ctx.Err())
	}
}
