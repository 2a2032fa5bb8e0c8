package capacity

import (
	"math"
	"testing"
	"time"
)

// TestStreamMatchesSimulateTable: fed minute by minute, a TableStream
// gives every minute's capacity, throttled units, at-maximum flag and
// scaling decisions of SimulateTable on the same trace, for each kind of
// provisioning; a clone advances without moving the original; and the
// evaluation of its totals (EvaluateResults) is EvaluateTable's.
func TestStreamMatchesSimulateTable(t *testing.T) {
	capped := AutoScalingSettings{Target: 0.7, Min: 5, Max: 400, ScaleInCooldown: 5 * time.Minute, ScaleOutCooldown: 2 * time.Minute, ScaleOutDelay: 4 * time.Minute}
	noIn := AutoScalingSettings{Target: 0.5, Min: 1, Max: 40000, DisableScaleIn: true}
	sched := AutoScalingSettings{Target: 0.7, Min: 5, Max: 4000, ScaleOutDelay: 5 * time.Minute, Scheduled: []ScheduledAction{
		{Name: "raise", Schedule: "cron(0 1,13 * * ? *)", Min: 800},
		{Name: "lower", Schedule: "cron(0 3,15 * * ? *)", Min: 5},
		{Name: "cap", Schedule: "cron(30 20 * * ? *)", Max: 100},
		{Name: "uncap", Schedule: "cron(0 22 * * ? *)", Max: 4000},
	}}
	cases := []struct {
		name string
		tr   Trace
		s    Settings
	}{
		{"default, daily cycle and spikes", trace(3*1440+17, sine(300, 200), spiky(50, 8)), Settings{}},
		{"capped max, flash sale", trace(2*1440, flashSale(100, 30), randomWalk(3, 40)), Settings{Read: Provisioning{AutoScaling: &capped}, Write: Provisioning{AutoScaling: &capped}}},
		{"scheduled actions", trace(2*1440+11, sine(300, 200), spiky(50, 8)), Settings{Read: Provisioning{AutoScaling: &sched}, Write: Provisioning{AutoScaling: &sched}}},
		{"fixed and no scale-in", trace(2*1440+3, randomWalk(9, 200), idleBurst(500)), Settings{Read: Provisioning{Fixed: 150}, Write: Provisioning{AutoScaling: &noIn}}},
	}
	prices, err := PricesFor("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		want, err := SimulateTable(c.tr, c.s, DefaultAutoScaling())
		if err != nil {
			t.Fatal(err)
		}
		st, err := NewTableStream(c.tr.Start, c.s, nil, ReadWrite{Read: c.tr.Read[0], Write: c.tr.Write[0]})
		if err != nil {
			t.Fatal(err)
		}
		if st.ReadMethod != want.ReadMethod || st.WriteMethod != want.WriteMethod {
			t.Fatalf("%s: methods %s/%s, want %s/%s", c.name, st.ReadMethod, st.WriteMethod, want.ReadMethod, want.WriteMethod)
		}
		var got [2]Simulation
		var clone *TableStream
		var cloneOut [2]MinuteOutcome
		for i := range c.tr.Minutes() {
			if i == c.tr.Minutes()/2 {
				clone = st.Clone()
				cloneOut = clone.Step(c.tr.Read[i], c.tr.Write[i])
				clone.Step(0, 0)
			}
			out := st.Step(c.tr.Read[i], c.tr.Write[i])
			if i == c.tr.Minutes()/2 && out != cloneOut {
				t.Fatalf("%s: the clone's minute %+v, the stream's %+v", c.name, cloneOut, out)
			}
			for k, sim := range []Simulation{want.Read, want.Write} {
				o := out[k]
				if o.Capacity != sim.Capacity[i] || o.Throttled != sim.throttled[i] || o.AtMax != sim.atMax[i] {
					t.Fatalf("%s: %s minute %d: stream %+v, SimulateTable capacity %v throttled %v at max %v",
						c.name, Dimension(k), i, o, sim.Capacity[i], sim.throttled[i], sim.atMax[i])
				}
				g := &got[k]
				g.UnitHours += o.Capacity / 60
				g.ThrottledUnits += o.Throttled
				if o.Throttled > 0 {
					g.ThrottledMinutes++
				}
				if o.AtMax {
					g.MinutesAtMax++
				}
				if o.ScaleOut {
					g.ScaleOuts++
				}
				if o.ScaleIn {
					g.ScaleIns++
				}
			}
		}
		if st.Minutes() != c.tr.Minutes() || !st.Next().Equal(c.tr.Start.Add(time.Duration(c.tr.Minutes())*time.Minute)) {
			t.Fatalf("%s: stream at %d minutes, next %v", c.name, st.Minutes(), st.Next())
		}
		for k, sim := range []Simulation{want.Read, want.Write} {
			g := got[k]
			if g.ScaleOuts != sim.ScaleOuts || g.ScaleIns != sim.ScaleIns || g.ThrottledMinutes != sim.ThrottledMinutes || g.MinutesAtMax != sim.MinutesAtMax ||
				math.Abs(g.UnitHours-sim.UnitHours) > 1e-9*sim.UnitHours || math.Abs(g.ThrottledUnits-sim.ThrottledUnits) > 1e-9*math.Max(1, sim.ThrottledUnits) {
				t.Errorf("%s: %s totals %+v, SimulateTable %+v", c.name, Dimension(k), g, sim.Summary())
			}
			if sim.ScaleOuts+sim.ScaleIns == 0 && c.s.Read.Fixed == 0 {
				t.Errorf("%s: %s: no scaling at all, the case proves little", c.name, Dimension(k))
			}
		}
		e, err := EvaluateTable(OnDemand, prices, Options{}, Workload{Trace: c.tr, Settings: c.s})
		if err != nil {
			t.Fatal(err)
		}
		got[0].Demand, got[1].Demand = sum(c.tr.Read), sum(c.tr.Write)
		r, err := EvaluateResults(OnDemand, prices, Options{}, []WorkloadResult{{Hours: c.tr.Hours(), Read: got[0], Write: got[1], ReadMethod: st.ReadMethod, WriteMethod: st.WriteMethod}})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.MonthlySaving-e.MonthlySaving) > 1e-9*math.Max(1, math.Abs(e.MonthlySaving)) || r.Recommendation != e.Recommendation ||
			math.Abs(r.Provisioned.Total()-e.Provisioned.Total()) > 1e-12 || r.OnDemand != e.OnDemand || r.MeanRate != e.MeanRate {
			t.Errorf("%s: EvaluateResults %+v\nEvaluateTable %+v", c.name, r.Summary(), e.Summary())
		}
	}
	if _, err := NewTableStream(traceStart, Settings{}, nil, ReadWrite{Read: math.NaN()}); err == nil {
		t.Error("a NaN first minute was accepted")
	}
	if _, err := EvaluateResults(OnDemand, prices, Options{}, []WorkloadResult{{Hours: 0.5}}); err == nil {
		t.Error("half an hour was evaluated")
	}
}
