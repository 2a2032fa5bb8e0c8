package capacity

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// rush is a daily cycle with a 40-minute 2.5x rush at minute 600 of each
// trace day, for a 90% target that throttles every day.
func rush(base float64) func(int) float64 {
	return func(i int) float64 {
		r := base * (1 + 0.3*math.Sin(2*math.Pi*float64(i)/1440))
		if m := i % 1440; m >= 600 && m < 640 {
			r *= 2.5
		}
		return r
	}
}

func TestWindowOfTheWholeRunIsTheRun(t *testing.T) {
	a := DefaultAutoScaling()
	a.Target = 0.9
	tr := trace(3*1440, rush(500), sine(100, 50))
	run, err := SimulateTable(tr, Settings{Read: Provisioning{AutoScaling: &a}}, DefaultAutoScaling())
	if err != nil {
		t.Fatal(err)
	}
	for _, sim := range []Simulation{run.Read, run.Write} {
		if w := sim.Window(0, len(sim.Capacity)); !reflect.DeepEqual(w, sim) {
			t.Errorf("Window over every minute differs from the run:\n%+v\n%+v", w.Events, sim.Events)
		}
	}
	// Windows split the run's additive figures exactly.
	n := len(run.Read.Capacity)
	lo, hi := run.Read.Window(0, 1000), run.Read.Window(1000, n)
	if math.Abs(lo.UnitHours+hi.UnitHours-run.Read.UnitHours) > 1e-9 || lo.ThrottledUnits+hi.ThrottledUnits != run.Read.ThrottledUnits ||
		lo.ScaleOuts+hi.ScaleOuts != run.Read.ScaleOuts || lo.ScaleIns+hi.ScaleIns != run.Read.ScaleIns {
		t.Errorf("windows [0,1000) + [1000,%d) do not add up to the run", n)
	}
}

// TestEvaluateWindowsOffOneRun: windows are read off one simulation, so a
// window's figures are those of the run's minutes (not of a cold start at
// its first minute), do not change when the history grows by minutes that
// are quiet, and never exceed a longer window's.
func TestEvaluateWindowsOffOneRun(t *testing.T) {
	p := usEast1(t)
	a := DefaultAutoScaling()
	a.Target = 0.9
	s := Settings{Read: Provisioning{AutoScaling: &a}, Write: Provisioning{AutoScaling: &a}}
	windows := []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour}
	// The history ends 3 minutes before a rush (minute 600 of a day), so
	// the 7-day window starts 3 minutes before one; with 5 more minutes it
	// starts 2 minutes into it. A cold start at the window's first minute
	// (the old way) moves the figure by a fifth between the two.
	n := 31*1440 + 597
	var prev []Evaluation
	for k, extra := range []int{0, 5} {
		tr := trace(n+extra, rush(500), rush(100))
		es, err := EvaluateTableWindows(OnDemand, p, Options{}, windows, Workload{Trace: tr, Settings: s})
		if err != nil {
			t.Fatal(err)
		}
		w7, w30 := es[0], es[1]
		if w7.Hours != 7*24 || w30.Hours != 30*24 {
			t.Fatalf("window hours %v and %v, want 168 and 720", w7.Hours, w30.Hours)
		}
		if w7.Throttled.Total() <= 0 || w7.Throttled.Total() > w30.Throttled.Total() || w7.Provisioned.Total() > w30.Provisioned.Total() || w7.OnDemand.Total() > w30.OnDemand.Total() {
			t.Errorf("7-day figures (throttled %v, provisioned %v) vs 30-day (%v, %v): want positive and not above", w7.Throttled.Total(), w7.Provisioned.Total(), w30.Throttled.Total(), w30.Provisioned.Total())
		}
		cold, err := Evaluate(Trace{Start: tr.Start.Add(time.Duration(n+extra-7*1440) * time.Minute), Read: tr.Read[n+extra-7*1440:], Write: tr.Write[n+extra-7*1440:]}, OnDemand, s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("history +%d min: 7d throttled %.0f (cold start at the window: %.0f), 30d %.0f", extra, w7.Throttled.Total(), cold.Throttled.Total(), w30.Throttled.Total())
		if k == 1 {
			// Over the minutes both runs' 7-day windows share, the
			// capacity and the throttling are the same minute by minute.
			a, b := prev[0].Workloads[0].Read, w7.Workloads[0].Read
			for i := extra; i < len(a.Capacity); i++ {
				if a.Capacity[i] != b.Capacity[i-extra] {
					t.Fatalf("shared minute %d: capacity %v in the first run, %v in the second", i, a.Capacity[i], b.Capacity[i-extra])
				}
			}
			shared := func(s Simulation, from, to int) float64 { return s.Window(from, to).ThrottledUnits }
			if x, y := shared(a, extra, len(a.Capacity)), shared(b, 0, len(b.Capacity)-extra); x != y {
				t.Errorf("throttling over the shared minutes: %v then %v", x, y)
			}
			// The 5 minutes leaving and entering the 7-day window throttle
			// alike (every day is the same): the figure barely moves.
			if d := math.Abs(w7.Throttled.Total() - prev[0].Throttled.Total()); d > 0.02*prev[0].Throttled.Total() {
				t.Errorf("7-day throttling moved from %.0f to %.0f with 5 more minutes of history", prev[0].Throttled.Total(), w7.Throttled.Total())
			}
		}
		prev = es
	}
}
