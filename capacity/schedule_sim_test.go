package capacity

import (
	"math"
	"testing"
	"time"
)

// Known answers of scheduled actions in the simulation, by hand: a flat
// 10 units per second at a 70% target starts at ceil(10/0.7) = 15 units.
func TestScheduledActionsKnownAnswers(t *testing.T) {
	start := utc(2026, 12, 1, 0, 0)
	s := Series{Start: start, Sum: perMinute(180, flat(10))}
	base := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}

	t.Run("raise then lower Min", func(t *testing.T) {
		a := base
		a.Scheduled = []ScheduledAction{
			{Name: "up", Schedule: "cron(0 1 * * ? *)", Min: 100},
			{Name: "down", Schedule: "cron(0 2 * * ? *)", Min: 5},
		}
		sim, err := SimulateProvisioned(s, a)
		if err != nil {
			t.Fatal(err)
		}
		// Minute 60 (01:00) raises Min to 100, in effect from that minute
		// (no alarm lag, whatever the scale-out delay). Min stays 100 until
		// minute 120 (02:00); the minutes since 60 are below the scale-in
		// threshold (10 < 50% of 100), so the scale-in decided at the end of
		// minute 120 sets ceil(10/0.7) = 15 from minute 121.
		for i, c := range sim.Capacity {
			want := 15.0
			if i >= 60 && i < 121 {
				want = 100
			}
			if c != want {
				t.Fatalf("minute %d: capacity %v, want %v", i, c, want)
			}
		}
		wantEvents := []ScalingEvent{{Minute: 60, Effective: 60, From: 15, To: 100, Scheduled: true}, {Minute: 120, Effective: 121, From: 100, To: 15}}
		if len(sim.Events) != 2 || sim.Events[0] != wantEvents[0] || sim.Events[1] != wantEvents[1] {
			t.Errorf("events %+v, want %+v", sim.Events, wantEvents)
		}
		if want := (60*15 + 61*100 + 59*15) / 60.0; math.Abs(sim.UnitHours-want) > 1e-9 {
			t.Errorf("unit-hours %v, want %v", sim.UnitHours, want)
		}
	})

	t.Run("no delay", func(t *testing.T) {
		a := base
		a.ScaleOutDelay = 0
		a.Scheduled = []ScheduledAction{{Name: "up", Schedule: "at(2026-12-01T01:00:00)", Min: 100}}
		sim, err := SimulateProvisioned(s, a)
		if err != nil {
			t.Fatal(err)
		}
		if sim.Capacity[59] != 15 || sim.Capacity[60] != 100 || sim.Capacity[179] != 100 {
			t.Errorf("capacity at minutes 59, 60, 179: %v %v %v, want 15 100 100", sim.Capacity[59], sim.Capacity[60], sim.Capacity[179])
		}
	})

	t.Run("lower Max", func(t *testing.T) {
		a := base
		a.Scheduled = []ScheduledAction{{Name: "cap", Schedule: "cron(30 0 * * ? *)", Max: 8}}
		sim, err := SimulateProvisioned(s, a)
		if err != nil {
			t.Fatal(err)
		}
		// At 00:30 Max becomes 8: the decrease is taken at the end of minute
		// 30 (the first of the day: allowed), 8 from minute 31. Demand 10 > 8:
		// the burst bank (300 s × 15 at the start, the bucket holds at most
		// 300 seconds of capacity) then throttles; every minute from 31 is at
		// Max below what the policy wants (10 > 0.7 × 8).
		if sim.Capacity[30] != 15 || sim.Capacity[31] != 8 {
			t.Errorf("capacity at 30, 31: %v %v, want 15 8", sim.Capacity[30], sim.Capacity[31])
		}
		if sim.MinutesAtMax != 180-31 {
			t.Errorf("minutes at max %d, want %d", sim.MinutesAtMax, 180-31)
		}
		if sim.ThrottledUnits == 0 {
			t.Error("no throttling at 8 units for a demand of 10")
		}
	})

	t.Run("decrease budget", func(t *testing.T) {
		// Four scale-ins already used today: a Max lowered at 00:30 waits for
		// an hour without a decrease.
		a := base
		a.Scheduled = []ScheduledAction{{Name: "cap", Schedule: "cron(30 0 * * ? *)", Max: 8}}
		st, err := NewTableStream(start, Settings{Write: Provisioning{AutoScaling: &a}}, nil, ReadWrite{Write: 600})
		if err != nil {
			t.Fatal(err)
		}
		st.step.budget = decreaseBudget{day: start, count: FreeDecreasesPerDay, last: start.Add(-time.Minute)}
		var caps []float64
		for range 90 {
			caps = append(caps, st.Step(0, 600)[1].Capacity)
		}
		// The decrease is allowed at 00:59 (an hour after the last): decided
		// at the end of minute 58, effective from minute 59.
		if caps[58] != 15 || caps[59] != 8 {
			t.Errorf("capacity at 58, 59: %v %v, want 15 8", caps[58], caps[59])
		}
	})
}

// A stream with scheduled actions allocates nothing per minute once warm:
// the schedules are parsed once, Fires reads the clock in the action's zone
// without allocating.
func TestScheduledStreamAllocations(t *testing.T) {
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute, Scheduled: []ScheduledAction{
		{Name: "up", Schedule: "cron(25 19 ? * MON-FRI *)", Timezone: "Europe/Paris", Min: 100},
		{Name: "down", Schedule: "cron(0 21 ? * MON-FRI *)", Timezone: "Europe/Paris", Min: 5},
	}}
	st, err := NewTableStream(utc(2026, 12, 1, 0, 0), Settings{Read: Provisioning{AutoScaling: &a}, Write: Provisioning{AutoScaling: &a}}, nil, ReadWrite{Read: 600, Write: 600})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 * 1440 { // warm: the pending queue has grown
		st.Step(600, 600)
	}
	if n := testing.AllocsPerRun(1440, func() { st.Step(600, 600) }); n > 0.01 {
		t.Errorf("%v allocations per minute, want none", n)
	}
}
