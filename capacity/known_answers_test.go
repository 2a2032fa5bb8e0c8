package capacity

import (
	"math"
	"slices"
	"testing"
	"time"
)

// Known answers: expected figures stated by AWS's documentation, not derived
// from this package. Each case names its source.
//
// On-demand throttling (a new table serves up to 4,000 write and 12,000 read
// request units per second; traffic above twice the previous peak within 30
// minutes may throttle) is not modelled: the model prices on-demand as
// Σ consumed units × unit price and assumes on-demand serves the trace. The
// simulator (simulation/sim) models it; the model-vs-simulator comparison
// shows where that matters.

// knownStart is a UTC midnight, so the daily decrease budget starts fresh.
var knownStart = time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)

// steady returns n minutes at rate units/s, with the given minutes replaced.
func steady(n int, rate float64, at map[int]float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		r := rate
		if v, ok := at[i]; ok {
			r = v
		}
		out[i] = r * 60
	}
	return out
}

func TestKnownAnswersAutoScaling(t *testing.T) {
	// 100 RCU at a 70% target, no delay, so every decision is visible.
	policy := AutoScalingSettings{Target: 0.70, Min: 1, Max: 40000, Initial: 100}
	type event struct {
		minute int
		to     float64
	}
	tests := []struct {
		name   string
		source string
		sums   []float64
		want   []event // scaling decisions (decision minute, new capacity)
	}{
		{
			name:   "100 RCU at 70%: 52 RCU/s for an hour is above 50, no scale-in",
			source: "AWS re:Post: 100 RCU at a 70% target scales in when consumption stays below 50 RCU (target − 20 points) for 15 minutes; the old reading, target × 0.8 = 56, would scale in",
			sums:   steady(60, 52, nil),
			want:   nil,
		},
		{
			name:   "100 RCU at 70%: 49 RCU/s scales in after the 15th minute",
			source: "same: 15 consecutive datapoints below 50 RCU, then capacity = demand ÷ target = ceil(49 ÷ 0.7) = 70",
			sums:   steady(60, 49, nil),
			want:   []event{{14, 70}},
		},
		{
			name:   "scale-in level: the highest demand of the 15 minutes ÷ target",
			source: "awslabs/amazon-dynamodb-tools capacity-mode-evaluator: scale in to max(consumed of the last 15 minutes) ÷ target = ceil(45 ÷ 0.7) = 65, not the last minute's 10 ÷ 0.7",
			sums:   steady(15, 45, map[int]float64{14: 10}),
			want:   []event{{14, 65}},
		},
		{
			name:   "one minute above target does not scale out",
			source: "DynamoDB developer guide, auto scaling: the high alarm needs 2 consecutive datapoints above target",
			sums:   steady(10, 60, map[int]float64{5: 80}),
			want:   nil,
		},
		{
			name:   "two minutes above target scale out to demand ÷ target",
			source: "same: 2 consecutive minutes above 70 of 100, then capacity = ceil(80 ÷ 0.7) = 115",
			sums:   steady(10, 60, map[int]float64{5: 80, 6: 80}),
			want:   []event{{6, 115}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := SimulateProvisioned(Series{Start: knownStart, Sum: tc.sums}, policy)
			if err != nil {
				t.Fatal(err)
			}
			var got []event
			for _, ev := range sim.Events {
				got = append(got, event{ev.Minute, ev.To})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("decisions %v, want %v (%s)", got, tc.want, tc.source)
			}
		})
	}
}

// TestKnownAnswerBurst: "DynamoDB currently retains up to five minutes (300
// seconds) of unused read and write capacity" (DynamoDB developer guide,
// "Burst capacity"). 100 WCU idle, then 200 WCU/s: 5 minutes are served from
// 30,000 banked units, a sixth minute throttles 6,000.
func TestKnownAnswerBurst(t *testing.T) {
	for _, tc := range []struct {
		hot       int
		throttled float64
	}{{5, 0}, {6, 6000}} {
		at := map[int]float64{}
		for i := 10; i < 10+tc.hot; i++ {
			at[i] = 200
		}
		sim, err := SimulateFixed(Series{Start: knownStart, Sum: steady(30, 0, at)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if sim.ThrottledUnits != tc.throttled {
			t.Errorf("%d minutes at 200 on 100 WCU: throttled %v, want %v", tc.hot, sim.ThrottledUnits, tc.throttled)
		}
	}
}

// halving is a demand that halves every 20 minutes from minute offset for
// two hours, then stays flat: each halving makes auto-scaling want a
// decrease 15 minutes later.
func halving(offset int) []float64 {
	return perMinute(240, func(i int) float64 {
		k := min(max(i+offset, 0)/20, 6)
		return 1000 * math.Pow(0.5, float64(k))
	})
}

// decreases returns the decision minutes of a simulation's decreases.
func decreases(sims ...Simulation) []int {
	var out []int
	for _, s := range sims {
		for _, ev := range s.Events {
			if !ev.Out() && !slices.Contains(out, ev.Minute) {
				out = append(out, ev.Minute)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestKnownAnswerDecreasesPerTable: "you can decrease ... up to four times
// anytime per day ... plus one additional decrease per hour if there was no
// decrease in the preceding hour", counted per table or GSI, a decrease of
// read, write or both counting once (DynamoDB developer guide, "Service,
// account, and table quotas in Amazon DynamoDB", decreasing provisioned
// throughput; DescribeTable's NumberOfDecreasesToday is per table or GSI).
func TestKnownAnswerDecreasesPerTable(t *testing.T) {
	a := DefaultAutoScaling()
	a.ScaleOutDelay, a.Min = 0, 1
	settings := Settings{Read: Provisioning{AutoScaling: &a}, Write: Provisioning{AutoScaling: &a}}
	alone, err := SimulateProvisioned(Series{Start: knownStart, Sum: halving(0)}, a)
	if err != nil {
		t.Fatal(err)
	}
	// Read alone: halvings at 20, 40, 60, 80 → decreases decided at 34, 54,
	// 74, 94 (4 at any time), the fifth an hour after the fourth.
	if got := decreases(alone); !slices.Equal(got[:5], []int{34, 54, 74, 94, 154}) {
		t.Fatalf("read alone: decreases at %v, want 34 54 74 94 154 ...", got)
	}

	// Read and write decreasing in the same minutes count once each time:
	// each dimension gets the decreases it gets alone.
	same, err := SimulateTable(Trace{Start: knownStart, Read: halving(0), Write: halving(0)}, settings, a)
	if err != nil {
		t.Fatal(err)
	}
	if r, w := decreases(same.Read), decreases(same.Write); !slices.Equal(r, decreases(alone)) || !slices.Equal(w, r) {
		t.Errorf("same-minute decreases: read %v, write %v; want both %v (one decrease of both counts once)", r, w, decreases(alone))
	}

	// Write halving 10 minutes earlier: its decreases (24, 44) use up the
	// table's allowance with the read's (34, 54); the fifth of the table
	// waits an hour after the fourth. Separate budgets would give read 34,
	// 54, 74, 94.
	offset, err := SimulateTable(Trace{Start: knownStart, Read: halving(0), Write: halving(10)}, settings, a)
	if err != nil {
		t.Fatal(err)
	}
	got := decreases(offset.Read, offset.Write)
	if !slices.Equal(got[:5], []int{24, 34, 44, 54, 114}) {
		t.Errorf("table decreases at %v (read %v, write %v), want 24 34 44 54 114 ...", got, decreases(offset.Read), decreases(offset.Write))
	}
	for k := 4; k < len(got); k++ {
		if got[k]-got[k-1] < 60 {
			t.Errorf("decrease %d at minute %d only %d minutes after the previous one", k+1, got[k], got[k]-got[k-1])
		}
	}
}
