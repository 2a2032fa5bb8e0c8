package collectors

import (
	"reflect"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// TestHourlyHistory: consumed Sums per minute become units per second per
// UTC clock hour, GSIs add to the base table, and provisioned capacity is
// read off the simulation by its own start.
func TestHourlyHistory(t *testing.T) {
	start := time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)
	minutes := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	ws := []capacity.Workload{
		{Trace: capacity.Trace{Start: start, Read: minutes(150, 60), Write: minutes(150, 120)}},
		{Trace: capacity.Trace{Start: start, Read: minutes(150, 30)}},
	}
	// The 30d window's simulation starts an hour later than the trace.
	simStart := start.Add(time.Hour)
	e := capacity.Evaluation{Workloads: []capacity.WorkloadResult{
		{Read: capacity.Simulation{Start: simStart, Capacity: minutes(90, 5)}, Write: capacity.Simulation{Start: simStart, Capacity: minutes(90, 4)}},
		{Read: capacity.Simulation{Start: simStart, Capacity: minutes(90, 2)}, Write: capacity.Simulation{Start: simStart, Capacity: minutes(90, 1)}},
	}}
	h := hourlyHistory(ws, e)
	if !h.Start.Equal(start.Truncate(time.Hour)) {
		t.Errorf("start %v, want 10:00", h.Start)
	}
	// 10:30–13:00: hours 10, 11 and 12.
	if want := []float64{1.5, 1.5, 1.5}; !reflect.DeepEqual(h.ConsumedRead, want) {
		t.Errorf("consumed read %v, want %v (1 + 0.5 units/s)", h.ConsumedRead, want)
	}
	if want := []float64{2, 2, 2}; !reflect.DeepEqual(h.ConsumedWrite, want) {
		t.Errorf("consumed write %v, want %v", h.ConsumedWrite, want)
	}
	if want := []float64{0, 7, 7}; !reflect.DeepEqual(h.ProvisionedRead, want) {
		t.Errorf("provisioned read %v, want %v (from 11:30, 5 + 2)", h.ProvisionedRead, want)
	}
	if want := []float64{0, 5, 5}; !reflect.DeepEqual(h.ProvisionedWrite, want) {
		t.Errorf("provisioned write %v, want %v", h.ProvisionedWrite, want)
	}
}
