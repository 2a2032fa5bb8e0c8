package capacity

import (
	"math"
	"testing"
	"time"
)

// checkInvariants asserts the auto-scaling rules on a finished simulation.
func checkInvariants(t *testing.T, s Series, a AutoScalingSettings, sim Simulation) {
	t.Helper()
	delay := int(math.Ceil(a.ScaleOutDelay.Minutes()))
	events := map[int][]ScalingEvent{} // by effective minute
	for _, ev := range sim.Events {
		events[ev.Effective] = append(events[ev.Effective], ev)
	}
	for i, c := range sim.Capacity {
		if c < a.Min || c > a.Max {
			t.Fatalf("minute %d: capacity %v outside [%v, %v]", i, c, a.Min, a.Max)
		}
		if i == 0 || c == sim.Capacity[i-1] {
			continue
		}
		found := false
		for _, ev := range events[i] {
			found = found || ev.To == c
		}
		if !found {
			t.Fatalf("minute %d: capacity changed %v → %v without an event effective then", i, sim.Capacity[i-1], c)
		}
	}
	var lastOut = -1 << 30
	for _, ev := range sim.Events {
		m := ev.Minute
		if !ev.Out() {
			continue
		}
		// Never before 2 minutes above target.
		if m < 1 || !(s.Sum[m-1]/60 > a.Target*sim.Capacity[m-1]) || !(s.Sum[m]/60 > a.Target*sim.Capacity[m]) {
			t.Fatalf("scale-out at minute %d without 2 minutes above target", m)
		}
		// Takes effect only after the delay.
		if ev.Effective != m+1+delay {
			t.Fatalf("scale-out at minute %d effective at %d, want %d", m, ev.Effective, m+1+delay)
		}
		if ev.Effective < len(sim.Capacity) && sim.Capacity[ev.Effective-1] >= ev.To {
			t.Fatalf("scale-out to %v at minute %d already in effect at minute %d", ev.To, m, ev.Effective-1)
		}
		if m-lastOut < int(math.Ceil(a.ScaleOutCooldown.Minutes())) {
			t.Fatalf("scale-out at minute %d inside the cooldown of the one at %d", m, lastOut)
		}
		lastOut = m
	}
	// Decreases: 4 per UTC day at any time, then ≤ 1 per hour.
	perDay := map[time.Time][]time.Time{}
	for _, ev := range sim.Events {
		if ev.Out() {
			continue
		}
		if a.DisableScaleIn {
			t.Fatalf("scale-in at minute %d with scale-in disabled", ev.Minute)
		}
		at := s.Start.Add(time.Duration(ev.Minute+1) * time.Minute).UTC()
		day := at.Truncate(24 * time.Hour)
		perDay[day] = append(perDay[day], at)
	}
	for day, times := range perDay {
		if len(times) > FreeDecreasesPerDay+23 {
			t.Fatalf("%s: %d decreases, DynamoDB allows at most 27", day.Format(time.DateOnly), len(times))
		}
		for k := FreeDecreasesPerDay; k < len(times); k++ {
			if gap := times[k].Sub(times[k-1]); gap < time.Hour {
				t.Fatalf("%s: decrease %d only %v after the previous one", day.Format(time.DateOnly), k+1, gap)
			}
		}
	}
}

func TestSimulationInvariants(t *testing.T) {
	cooldowns := DefaultAutoScaling()
	cooldowns.ScaleOutCooldown, cooldowns.ScaleInCooldown = 5*time.Minute, 20*time.Minute
	instant := DefaultAutoScaling()
	instant.ScaleOutDelay = 0
	capped := AutoScalingSettings{Target: 0.5, Min: 20, Max: 400, ScaleOutDelay: 90 * time.Second}
	noIn := DefaultAutoScaling()
	noIn.DisableScaleIn = true

	rates := map[string]func(int) float64{
		"sine":    sine(1000, 900),
		"spiky":   spiky(100, 30),
		"random1": randomWalk(11, 500),
		"random2": randomWalk(12, 50),
		"flash":   flashSale(200, 50),
		"idle":    idleBurst(2000),
	}
	policies := map[string]AutoScalingSettings{
		"default": DefaultAutoScaling(), "cooldowns": cooldowns, "instant": instant, "capped": capped, "no scale-in": noIn,
	}
	for rn, rate := range rates {
		for pn, a := range policies {
			t.Run(rn+"/"+pn, func(t *testing.T) {
				s := Series{Start: traceStart, Sum: perMinute(3*1440, rate)}
				sim, err := SimulateProvisioned(s, a)
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, s, a, sim)
			})
		}
	}
}

// TestDecreaseBudgetBites feeds a 2-hour sawtooth that halves every 20
// minutes: scale-in is wanted 5 times in 2 hours, DynamoDB allows 4 a day at
// any time, then 1 an hour.
func TestDecreaseBudgetBites(t *testing.T) {
	start := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
	s := Series{Start: start, Sum: perMinute(2*1440, func(i int) float64 {
		return 10000 * math.Pow(0.5, float64((i%120)/20))
	})}
	a := DefaultAutoScaling()
	sim, err := SimulateProvisioned(s, a)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s, a, sim)
	var first []int // decision minutes of day one's decreases
	for _, ev := range sim.Events {
		if !ev.Out() && ev.Minute < 1440-1 {
			first = append(first, ev.Minute)
		}
	}
	if len(first) < 20 || len(first) > 27 {
		t.Fatalf("day one: %d decreases, want between 20 and 27 (budget-bound)", len(first))
	}
	if first[3]-first[0] > 60 {
		t.Errorf("the 4 free decreases took %d minutes, want them within the first hour", first[3]-first[0])
	}
	t.Logf("day one: %d decreases at minutes %v", len(first), first)
}

// TestScaleOutDelay checks a step: 2 minutes to decide, then the delay, with
// the demand above capacity meanwhile throttled after burst.
func TestScaleOutDelay(t *testing.T) {
	const step = 30
	tests := []struct {
		delay    time.Duration
		effectAt int
	}{
		{0, step + 2},
		{time.Minute, step + 3},
		{5 * time.Minute, step + 7},
		{150 * time.Second, step + 5}, // rounded up to 3 minutes
	}
	for _, tc := range tests {
		t.Run(tc.delay.String(), func(t *testing.T) {
			s := Series{Start: traceStart, Sum: perMinute(120, func(i int) float64 {
				if i >= step {
					return 7000
				}
				return 700
			})}
			a := DefaultAutoScaling()
			a.ScaleOutDelay = tc.delay
			sim, err := SimulateProvisioned(s, a)
			if err != nil {
				t.Fatal(err)
			}
			if sim.Capacity[tc.effectAt-1] != 1000 || sim.Capacity[tc.effectAt] != 10000 {
				t.Fatalf("capacity at minutes %d,%d = %v,%v; want 1000 then 10000",
					tc.effectAt-1, tc.effectAt, sim.Capacity[tc.effectAt-1], sim.Capacity[tc.effectAt])
			}
			// 1000 units/s at 70% leaves 300 s × 300 units/s banked = 90,000 units.
			lateMinutes := float64(tc.effectAt - step)
			want := math.Max(0, lateMinutes*(7000-1000)*60-300*1000)
			if math.Abs(sim.ThrottledUnits-want) > 1e-6 {
				t.Errorf("throttled %v units, want %v", sim.ThrottledUnits, want)
			}
			if sim.ScaleOuts != 1 {
				t.Errorf("%d scale-outs, want 1", sim.ScaleOuts)
			}
		})
	}
}

// TestScaleOutNeedsTwoMinutes checks that a single hot minute does nothing.
func TestScaleOutNeedsTwoMinutes(t *testing.T) {
	s := Series{Start: traceStart, Sum: perMinute(60, func(i int) float64 {
		if i == 10 || i == 20 || i == 21 {
			return 2000
		}
		return 700
	})}
	a := DefaultAutoScaling()
	a.ScaleOutDelay = 0
	sim, err := SimulateProvisioned(s, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Events) == 0 || sim.Events[0].Minute != 21 {
		t.Fatalf("events %+v, want the first scale-out decided at minute 21", sim.Events)
	}
	if sim.Capacity[11] != 1000 || sim.Capacity[22] != math.Ceil(2000/0.7) {
		t.Errorf("capacity at 11 = %v (want 1000), at 22 = %v (want %v)", sim.Capacity[11], sim.Capacity[22], math.Ceil(2000/0.7))
	}
}

func TestSimulateHourlyMean(t *testing.T) {
	// Start at :30 so the first and last hours are half covered.
	start := time.Date(2025, 1, 1, 10, 30, 0, 0, time.UTC)
	sim, err := SimulateFixed(Series{Start: start, Sum: make([]float64, 120)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.HourlyMean) != 3 || math.Abs(sim.UnitHours-20) > 1e-9 {
		t.Fatalf("hourly means %v, unit-hours %v; want 3 hours of 10, 20 unit-hours", sim.HourlyMean, sim.UnitHours)
	}
}

func TestBurstBucket(t *testing.T) {
	tests := []struct {
		name                string
		stored, demand, cap float64
		throttled, after    float64
	}{
		{"under capacity banks the rest", 0, 3000, 100, 0, 3000},
		{"bank capped at 300 s", 29000, 0, 100, 0, 30000},
		{"burst covers the excess", 30000, 8000, 100, 0, 28000},
		{"excess beyond burst throttled", 1000, 8000, 100, 1000, 0},
		{"bank shrinks with capacity", 30000, 6000, 10, 2400, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := burstBucket{stored: tc.stored}
			got := b.serve(tc.demand, tc.cap)
			if got != tc.throttled || b.stored != tc.after {
				t.Errorf("throttled %v stored %v; want %v and %v", got, b.stored, tc.throttled, tc.after)
			}
		})
	}
}

func TestDecreaseBudget(t *testing.T) {
	day := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	var b decreaseBudget
	steps := []struct {
		t     time.Time
		allow bool
	}{
		{at(0, 1), true}, {at(0, 2), true}, {at(0, 3), true}, {at(0, 4), true},
		{at(0, 30), false}, {at(1, 3), false}, {at(1, 4), true},
		{at(1, 50), false}, {at(2, 4), true},
		{at(24, 0), true}, // a new UTC day
	}
	for k, st := range steps {
		got := b.allow(st.t)
		if got != st.allow {
			t.Fatalf("step %d (%s): allow = %v, want %v", k, st.t.Format(time.TimeOnly), got, st.allow)
		}
		if got {
			b.record(st.t)
		}
	}
}

// TestTableDecreasesInvariant: over varied traces, the decreases of a table
// or GSI (read, write or both in one minute counting once) follow DynamoDB's
// allowance: 4 per UTC day at any time, then one when none happened in the
// preceding hour.
func TestTableDecreasesInvariant(t *testing.T) {
	a := DefaultAutoScaling()
	a.ScaleOutDelay = time.Minute
	checked := 0
	for name, tr := range map[string]Trace{
		"random":  trace(3*1440, randomWalk(21, 800), randomWalk(22, 300)),
		"sine":    trace(3*1440, sine(1000, 900), sine(300, 250)),
		"spiky":   trace(3*1440, spiky(100, 30), randomWalk(23, 50)),
		"halving": {Start: knownStart, Read: halving(0), Write: halving(7)},
	} {
		run, err := SimulateTable(tr, Settings{Read: Provisioning{AutoScaling: &a}, Write: Provisioning{AutoScaling: &a}}, a)
		if err != nil {
			t.Fatal(err)
		}
		perDay := map[string][]int{}
		for _, m := range decreases(run.Read, run.Write) {
			day := tr.Start.Add(time.Duration(m+1) * time.Minute).UTC().Format(time.DateOnly)
			perDay[day] = append(perDay[day], m)
		}
		for day, ms := range perDay {
			checked += len(ms)
			for k := FreeDecreasesPerDay; k < len(ms); k++ {
				if ms[k]-ms[k-1] < 60 {
					t.Errorf("%s %s: table decrease %d at minute %d, %d minutes after the previous one", name, day, k+1, ms[k], ms[k]-ms[k-1])
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked %d decreases, want traces that scale in often", checked)
	}
	t.Logf("checked %d table decreases", checked)
}
