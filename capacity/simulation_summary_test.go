package capacity

import (
	"testing"
	"time"
)

// A summary keeps every figure of the run and drops the per-minute arrays.
func TestSimulationSummary(t *testing.T) {
	sum := make([]float64, 3*24*60)
	for i := range sum {
		sum[i] = 600
		if i%1440 >= 600 && i%1440 < 660 {
			sum[i] = 30000 // a daily rush of 500 units/s
		}
	}
	s := Series{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Sum: sum}
	full, err := SimulateFixed(s, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := full.Summary()
	if got.Capacity != nil || got.demand != nil || got.throttled != nil || got.atMax != nil {
		t.Errorf("summary keeps per-minute arrays: %d %d %d %d", len(got.Capacity), len(got.demand), len(got.throttled), len(got.atMax))
	}
	if got.UnitHours != full.UnitHours || got.Demand != full.Demand || got.ThrottledUnits != full.ThrottledUnits ||
		got.ThrottledMinutes != full.ThrottledMinutes || got.PeakDemand != full.PeakDemand || got.ThrottledUnits == 0 {
		t.Errorf("summary figures %+v differ from the run's", got)
	}
	e := Evaluation{Workloads: []WorkloadResult{{Read: full, Write: full}}}.Summary()
	if e.Workloads[0].Read.Capacity != nil || e.Workloads[0].Write.throttled != nil {
		t.Error("Evaluation.Summary keeps per-minute arrays")
	}
	if full.Capacity == nil {
		t.Error("Summary changed the simulation it was called on")
	}
}
