package capacity

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// rise is 100 units/s for an hour, then to units/s from minute 60 for
// minutes, then 100 again, over n minutes: a rise within one minute.
func rise(n int, to float64, minutes int) []float64 {
	return perMinute(n, func(i int) float64 {
		if i >= 60 && i < 60+minutes {
			return to
		}
		return 100
	})
}

// policy is a target-tracking policy with the default scale-out delay (5
// minutes) and no cooldowns.
func policy(target, maxCapacity float64) *AutoScalingSettings {
	return &AutoScalingSettings{Target: target, Min: 1, Max: maxCapacity, ScaleOutDelay: DefaultScaleOutDelay}
}

// diagnoseRead diagnoses the whole trace of reads (no writes) under the
// read policy p.
func diagnoseRead(t *testing.T, sums []float64, p *AutoScalingSettings) Diagnosis {
	t.Helper()
	d, err := DiagnoseTable(Trace{Start: knownStart, Read: sums}, Settings{Read: Provisioning{AutoScaling: p}}, DefaultAutoScaling(), []time.Duration{30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if d[0].ReadMethod != MethodAutoScaling {
		t.Fatalf("read modelled with %s", d[0].ReadMethod)
	}
	return d[0].Read
}

// minute returns the start of minute i of the known-answer traces.
func minute(i int) time.Time { return knownStart.Add(time.Duration(i) * time.Minute) }

// TestKnownAnswersDiagnosis works each cause out by hand from the rules of
// SimulateProvisioned: 100 units/s before the rise, the capacity the
// policy wants for it (ceil(100 ÷ target)), a full burst bucket of 300
// seconds of that capacity, a scale-out decided at the end of the second
// minute above target (minute 61) and in effect 5 minutes later (minute
// 67) at ceil(demand ÷ target), at most Max.
func TestKnownAnswersDiagnosis(t *testing.T) {
	type last = map[Cause]int // cause → its latest throttled or saturated minute
	cases := []struct {
		name      string
		sums      []float64
		p         *AutoScalingSettings
		want      ByCause
		saturated ByCause // saturated minutes by cause
		last      last
		compare   bool
	}{
		{
			// 70%: capacity 143, burst 42,900; 400/s is 15,420 a minute
			// above it: the burst lasts 2 minutes, minute 62 throttles
			// 3,360, minutes 63-66 15,420 each; 572 from minute 67 serves.
			// Minutes 62-66 are saturated (400 ≥ 143, the burst spent);
			// 60 and 61 are served by the burst, which still holds more
			// than a minute of capacity after them (27,480 and 12,060).
			name: "a steep rise at a 70% target: reaction",
			sums: rise(240, 400, 60), p: policy(0.70, 40000),
			want: ByCause{CauseReaction: 3360 + 4*15420}, saturated: ByCause{CauseReaction: 5}, last: last{CauseReaction: 66},
		},
		{
			// 90%: capacity 112, burst 33,600; 200/s is 5,280 a minute
			// above it: the burst lasts until minute 66, which throttles
			// 3,360. At 70% (143, burst 42,900) the 7 minutes before 223
			// (or 286) apply cost 23,940 of burst: nothing throttles.
			// At 90% the burst holds 1,920 after minute 65 (less than a
			// minute of 112) and minute 66 throttles: both saturated; at
			// 70% the burst never falls under a minute of 143 (18,960
			// left after minute 66): target.
			name: "a 90% target whose rise a 70% target serves: target",
			sums: rise(240, 200, 60), p: policy(0.90, 40000), compare: true,
			want: ByCause{CauseTarget: 3360}, saturated: ByCause{CauseTarget: 2}, last: last{CauseTarget: 66},
		},
		{
			// 90%: 112, burst 33,600, 400/s is 17,280 a minute above it:
			// minute 61 throttles 960, minutes 62-66 17,280 each. At 70%
			// the same minutes throttle 3,360 (62) and 15,420 (63-66):
			// reaction; the rest is the target's. Saturated: minute 61 at
			// 90% only (the 70% run's burst still holds 12,060): target;
			// 62-66 at both: reaction.
			name: "a steep rise at a 90% target: target and reaction",
			sums: rise(240, 400, 60), p: policy(0.90, 40000), compare: true,
			want:      ByCause{CauseReaction: 3360 + 4*15420, CauseTarget: 960 + (17280 - 3360) + 4*(17280-15420)},
			saturated: ByCause{CauseReaction: 5, CauseTarget: 1},
			last:      last{CauseReaction: 66, CauseTarget: 66},
		},
		{
			// 70%, maximum 200: minutes 62-66 throttle while the scale-out
			// applies, as in the first case (reaction); from minute 67 the
			// capacity is held at 200 while the policy wants 572: 12,000 a
			// minute for minutes 67-89 (at_max). Saturated: minutes 62-66
			// (reaction, as in the first case) and 67-89 (at_max).
			name: "demand above the maximum: at_max",
			sums: rise(240, 400, 30), p: policy(0.70, 200),
			want:      ByCause{CauseAtMax: 23 * 12000, CauseReaction: 3360 + 4*15420},
			saturated: ByCause{CauseAtMax: 23, CauseReaction: 5},
			last:      last{CauseAtMax: 89, CauseReaction: 66},
		},
		{
			name: "a daily cycle at a 70% target: nothing",
			sums: perMinute(3*1440, sine(300, 100)), p: policy(0.70, 40000),
		},
		{
			name: "a daily cycle at a 90% target: nothing",
			sums: perMinute(3*1440, sine(300, 100)), p: policy(0.90, 40000), compare: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := diagnoseRead(t, tc.sums, tc.p)
			if d.Compared != tc.compare {
				t.Errorf("compared with 70%%: %v, want %v", d.Compared, tc.compare)
			}
			for _, c := range Causes() {
				if math.Abs(d.Throttled[c]-tc.want[c]) > 1e-6 {
					t.Errorf("%s: %v units, want %v", c, d.Throttled[c], tc.want[c])
				}
				if d.SaturatedMinutes[c] != tc.saturated[c] {
					t.Errorf("%s: %v saturated minutes, want %v", c, d.SaturatedMinutes[c], tc.saturated[c])
				}
				var want time.Time
				if m, ok := tc.last[c]; ok {
					want = minute(m)
				}
				if !d.Last[c].Equal(want) {
					t.Errorf("%s: last throttled or saturated minute %v, want %v", c, d.Last[c], want)
				}
			}
			sim, err := SimulateProvisioned(Series{Start: knownStart, Sum: tc.sums}, *tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(d.Throttled.Total()-sim.ThrottledUnits) > 1e-6 {
				t.Errorf("causes add up to %v, the simulation throttles %v", d.Throttled.Total(), sim.ThrottledUnits)
			}
			if d.ScalingDecisions != float64(sim.ScaleOuts+sim.ScaleIns) || d.Minutes != len(tc.sums) {
				t.Errorf("%v decisions over %d minutes, the simulation %d over %d", d.ScalingDecisions, d.Minutes, sim.ScaleOuts+sim.ScaleIns, len(tc.sums))
			}
			if u := d.Utilization(); math.Abs(u-sim.Demand/(sim.UnitHours*3600)) > 1e-12 || !(u > 0.4 && u < 0.95) {
				t.Errorf("utilization %v, the simulation's demand over capacity %v", u, sim.Demand/(sim.UnitHours*3600))
			}
		})
	}
}

// steps is a capped history: 100 units/s, then from each step's minute
// its rate (units/s), over n minutes.
func steps(n int, st ...[2]float64) []float64 {
	return perMinute(n, func(i int) float64 {
		r := 100.0
		for _, s := range st {
			if float64(i) >= s[0] {
				r = s[1]
			}
		}
		return r
	})
}

// noisy is a rate with deterministic noise of ±frac.
func noisy(rate func(int) float64, frac float64) func(int) float64 {
	r := rand.New(rand.NewPCG(3, 5))
	var cache []float64
	return func(i int) float64 {
		for len(cache) <= i {
			cache = append(cache, 1+frac*(2*r.Float64()-1))
		}
		return rate(i) * cache[i]
	}
}

// TestKnownAnswersSaturation: on a history capped by the table's real
// throttling (what CloudWatch's consumed capacity shows) the simulation of
// the same policy throttles nothing, and the saturated minutes (demand at
// or above the simulated capacity) say where and why it throttled. Worked
// out by hand from the rules of SimulateProvisioned, as
// TestKnownAnswersDiagnosis; each capped history is what the real table
// served under its policy.
func TestKnownAnswersSaturation(t *testing.T) {
	type last = map[Cause]int // cause → its latest saturated minute
	cases := []struct {
		name      string
		sums      []float64
		p         *AutoScalingSettings
		saturated ByCause
		last      last
		compare   bool
	}{
		{
			// 90%: capacity ceil(100 ÷ 0.9) = 112, burst 33,600. Demand
			// rose to 200 (5,280 a minute above it): the burst served
			// minutes 60-65 in full (1,920 left), minute 66 served 144 with
			// the rest of it, then the scale-out to ceil(200 ÷ 0.9) = 223,
			// decided at the end of minute 61, applied at minute 67. The
			// simulation: minutes 65 and 66 at or above 112 with under a
			// minute of burst left. At 70% (143, burst 42,900, 3,420 a
			// minute above it) the burst is never spent: target.
			name: "a 90% target whose rise saturates once the burst is spent: target",
			sums: steps(240, [2]float64{60, 200}, [2]float64{66, 144}, [2]float64{67, 200}, [2]float64{180, 100}),
			p:    policy(0.90, 40000), compare: true,
			saturated: ByCause{CauseTarget: 2}, last: last{CauseTarget: 66},
		},
		{
			// 70%: capacity 143, burst 42,900. Demand rose to 400: the
			// burst served minutes 60 and 61 in full (15,420 each), 12,060
			// more in minute 62 (143 + 201 = 344 units/s), then the table
			// served 143 until the scale-out to ceil(400 ÷ 0.7) = 572,
			// decided at the end of minute 61, applied at minute 67. The
			// simulation takes the same decision: minutes 62-66 at or above
			// 143 with the burst spent (60 and 61 leave 27,480 and 12,060).
			name:      "a 70% target whose rise outruns auto-scaling: reaction",
			sums:      steps(240, [2]float64{60, 400}, [2]float64{62, 344}, [2]float64{63, 143}, [2]float64{67, 400}, [2]float64{120, 100}),
			p:         policy(0.70, 40000),
			saturated: ByCause{CauseReaction: 5}, last: last{CauseReaction: 66},
		},
		{
			// The same rise with a maximum of 200: the scale-out stops at
			// 200 (minute 67), which the table serves to minute 89 while
			// the policy wants 572: minutes 67-89 saturated at the maximum;
			// 60-66 as above, reaction.
			name:      "a rise capped at the maximum: at_max",
			sums:      steps(240, [2]float64{60, 400}, [2]float64{62, 344}, [2]float64{63, 143}, [2]float64{67, 200}, [2]float64{90, 100}),
			p:         policy(0.70, 200),
			saturated: ByCause{CauseAtMax: 23, CauseReaction: 5}, last: last{CauseAtMax: 89, CauseReaction: 66},
		},
		{
			// A 40% target polled in bursts: 420 units/s, 1,100 for 3
			// minutes every 30 (capacity ceil(420 ÷ 0.4) = 1,050, burst
			// 315,000; each burst is 9,000 above it at most): the burst
			// absorbs every one, so no minute is saturated however busy the
			// policy is.
			name: "poll bursts the burst absorbs at a 40% target: none",
			sums: perMinute(3*1440, func(i int) float64 {
				if i%30 < 3 {
					return 1100
				}
				return 420
			}), p: policy(0.40, 40000),
		},
		{
			// A daily cycle with ±5% noise a minute: the 70% policy keeps
			// 43% of headroom over the peak of its last 15 minutes.
			name: "a healthy noisy trace at a 70% target: none",
			sums: perMinute(3*1440, noisy(sine(300, 100), 0.05)), p: policy(0.70, 40000),
		},
		{
			// 100 units/s ±5%, no rise: the 90% policy starts at ceil(95 ÷
			// 0.9) = 106 or more and only scales out (scaling in needs
			// utilization below 70%): every minute (at most 105) below it.
			name: "a 90% target with noise and no rise: none",
			sums: perMinute(3*1440, noisy(flat(100), 0.05)), p: policy(0.90, 40000), compare: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := diagnoseRead(t, tc.sums, tc.p)
			if d.Compared != tc.compare {
				t.Errorf("compared with 70%%: %v, want %v", d.Compared, tc.compare)
			}
			if d.Throttled.Total() > 1e-6 {
				t.Errorf("the capped history throttles %v: the case proves little", d.Throttled)
			}
			for _, c := range Causes() {
				if d.SaturatedMinutes[c] != tc.saturated[c] {
					t.Errorf("%s: %v saturated minutes, want %v", c, d.SaturatedMinutes[c], tc.saturated[c])
				}
				var want time.Time
				if m, ok := tc.last[c]; ok {
					want = minute(m)
				}
				if !d.Last[c].Equal(want) {
					t.Errorf("%s: last saturated minute %v, want %v", c, d.Last[c], want)
				}
			}
		})
	}
}

func TestSaturationCause(t *testing.T) {
	at := func(c float64) MinuteOutcome { return MinuteOutcome{Capacity: c, BurstSpent: true} }
	for _, tc := range []struct {
		name       string
		sum        float64
		cur        MinuteOutcome
		reasonable *MinuteOutcome
		want       Cause
		ok         bool
	}{
		{"below capacity", 99 * 60, at(100), nil, 0, false},
		{"at capacity", 100 * 60, at(100), nil, CauseReaction, true},
		{"above capacity (burst)", 150 * 60, at(100), nil, CauseReaction, true},
		{"throttled", 150 * 60, MinuteOutcome{Capacity: 100, Throttled: 1}, nil, CauseReaction, true},
		{"no demand", 0, at(0), nil, 0, false},
		{"above capacity, burst left", 150 * 60, MinuteOutcome{Capacity: 100}, nil, 0, false},
		{"at the maximum", 100 * 60, MinuteOutcome{Capacity: 100, AtMax: true, BurstSpent: true}, nil, CauseAtMax, true},
		{"at the maximum, compared", 100 * 60, MinuteOutcome{Capacity: 100, AtMax: true, BurstSpent: true}, &MinuteOutcome{Capacity: 200}, CauseAtMax, true},
		{"not saturated at 70%", 100 * 60, at(100), &MinuteOutcome{Capacity: 130}, CauseTarget, true},
		{"saturated at 70% too", 140 * 60, at(100), &MinuteOutcome{Capacity: 130, BurstSpent: true}, CauseReaction, true},
		{"served by the 70% run's burst", 140 * 60, at(100), &MinuteOutcome{Capacity: 130}, CauseTarget, true},
	} {
		c, ok := SaturationCause(tc.sum, tc.cur, tc.reasonable)
		if ok != tc.ok || (ok && c != tc.want) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, c, ok, tc.want, tc.ok)
		}
	}
}

// TestDiagnosisGapsAndYoungTraces states what a history with gaps and a
// trace shorter than a window give: a minute without data is no traffic
// (Trace). A gap shorter than ScaleInPoints minutes changes nothing; a
// longer one lets the policy scale in, as it would for an idle table, and
// the traffic coming back throttles while it scales out again: reaction,
// at the gap's end. A window longer than the trace covers the trace.
func TestDiagnosisGapsAndYoungTraces(t *testing.T) {
	gap := func(from, minutes int) []float64 {
		return perMinute(600, func(i int) float64 {
			if i >= from && i < from+minutes {
				return 0
			}
			return 300
		})
	}
	short := diagnoseRead(t, gap(120, ScaleInPoints-1), policy(0.70, 40000))
	if short.Throttled.Total() != 0 {
		t.Errorf("a %d-minute gap: throttled %v, want nothing", ScaleInPoints-1, short.Throttled)
	}
	long := diagnoseRead(t, gap(120, 180), policy(0.70, 40000))
	if long.Throttled[CauseReaction] <= 0 || long.Throttled[CauseAtMax]+long.Throttled[CauseTarget] != 0 {
		t.Errorf("a 3-hour gap: throttled %v, want reaction only", long.Throttled)
	}
	if l := long.Last[CauseReaction]; l.Before(minute(300)) || l.After(minute(310)) {
		t.Errorf("a 3-hour gap: last reaction at %v, want within minutes of its end %v", l, minute(300))
	}

	young := Trace{Start: knownStart, Read: rise(180, 400, 60)}
	ds, err := DiagnoseTable(young, Settings{Read: Provisioning{AutoScaling: policy(0.70, 40000)}}, DefaultAutoScaling(), []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ds[0] != ds[1] || ds[0].Read.Minutes != 180 || !ds[0].Read.Start.Equal(knownStart) {
		t.Errorf("a 3-hour trace: windows %+v and %+v, want both the whole trace", ds[0].Read, ds[1].Read)
	}
	if _, err := DiagnoseTable(Trace{Start: knownStart, Read: rise(59, 400, 10)}, Settings{}, DefaultAutoScaling(), []time.Duration{time.Hour}); err == nil {
		t.Error("a 59-minute trace was diagnosed")
	}
	if _, err := DiagnoseTable(young, Settings{}, DefaultAutoScaling(), []time.Duration{time.Minute}); err == nil {
		t.Error("a one-minute window was diagnosed")
	}
}

// TestDiagnosisWindows: a window is read off the one run over the trace:
// its figures are those of its minutes (no more than a longer window's),
// and the dimension without a target above 70% runs no comparison.
func TestDiagnosisWindows(t *testing.T) {
	// A 40-minute 2.5x rush every day (windows_test.go) on reads at 90%,
	// writes at 70%; 10 days.
	s := Settings{Read: Provisioning{AutoScaling: policy(0.90, 40000)}, Write: Provisioning{AutoScaling: policy(0.70, 40000)}}
	tr := trace(10*1440, rush(500), rush(100))
	ds, err := DiagnoseTable(tr, s, DefaultAutoScaling(), []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	week, all := ds[0], ds[1]
	if !week.Read.Compared || week.Write.Compared {
		t.Errorf("compared: read %v, write %v; want read only", week.Read.Compared, week.Write.Compared)
	}
	if week.Read.Throttled[CauseTarget] <= 0 {
		t.Errorf("read at 90%% with daily rushes: %v, want target units", week.Read.Throttled)
	}
	if week.Write.Throttled[CauseTarget] != 0 {
		t.Errorf("write at 70%%: target units %v", week.Write.Throttled[CauseTarget])
	}
	for k, pair := range [][2]Diagnosis{{week.Read, all.Read}, {week.Write, all.Write}} {
		w, a := pair[0], pair[1]
		if w.Minutes != 7*1440 || a.Minutes != 10*1440 {
			t.Errorf("%s: windows of %d and %d minutes", Dimension(k), w.Minutes, a.Minutes)
		}
		for _, c := range Causes() {
			if w.Throttled[c] > a.Throttled[c]+1e-9 {
				t.Errorf("%s %s: 7 days %v above the whole trace's %v", Dimension(k), c, w.Throttled[c], a.Throttled[c])
			}
			if w.Throttled[c] > 0 && (!w.Last[c].Equal(a.Last[c]) || w.Last[c].Before(w.Start)) {
				t.Errorf("%s %s: last %v, whole trace %v, window from %v", Dimension(k), c, w.Last[c], a.Last[c], w.Start)
			}
		}
		if perDay := w.ScalingDecisionsPerDay(); !(perDay > 0) || w.ScalingDecisions > a.ScalingDecisions {
			t.Errorf("%s: %v scaling decisions a day (%v in 7 days, %v in all)", Dimension(k), perDay, w.ScalingDecisions, a.ScalingDecisions)
		}
	}
}

// TestDiagnosisStreamMatchesDiagnoseTable: the stream the collector runs
// splits every minute and finds its saturation as DiagnoseTable does over
// the whole trace, on true demand and on capped histories (those of
// TestKnownAnswersSaturation, every 4 hours); a clone advances without
// moving it; without compare it runs no comparison.
func TestDiagnosisStreamMatchesDiagnoseTable(t *testing.T) {
	tile := func(sums []float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = sums[i%len(sums)]
		}
		return out
	}
	ratchet := steps(240, [2]float64{60, 112}, [2]float64{67, 125}, [2]float64{73, 139}, [2]float64{79, 155},
		[2]float64{85, 173}, [2]float64{91, 193}, [2]float64{97, 200}, [2]float64{180, 100})
	atMax := steps(240, [2]float64{60, 400}, [2]float64{62, 344}, [2]float64{63, 143}, [2]float64{67, 200}, [2]float64{90, 100})
	var found [2]Diagnosis // the reference's figures over both cases
	for _, tc := range []struct {
		name string
		s    Settings
		tr   Trace
	}{
		{"true demand", Settings{Read: Provisioning{AutoScaling: policy(0.9, 400)}, Write: Provisioning{AutoScaling: policy(0.8, 40000)}},
			trace(3*1440, flashSale(100, 30), rush(50))},
		{"capped histories", Settings{Read: Provisioning{AutoScaling: policy(0.9, 40000)}, Write: Provisioning{AutoScaling: policy(0.75, 200)}},
			Trace{Start: traceStart, Read: tile(ratchet, 3*1440), Write: tile(atMax, 3*1440)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, tr := tc.s, tc.tr
			want, err := DiagnoseTable(tr, s, DefaultAutoScaling(), []time.Duration{30 * 24 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			st, err := NewDiagnosisStream(tr.Start, s, nil, ReadWrite{Read: tr.Read[0], Write: tr.Write[0]}, true)
			if err != nil {
				t.Fatal(err)
			}
			if st.Compared() != [2]bool{true, true} {
				t.Fatalf("compared %v", st.Compared())
			}
			var got [2]Diagnosis
			for i := range tr.Minutes() {
				if i == tr.Minutes()/2 {
					c := st.Clone()
					c.Step(1e6, 1e6)
				}
				out := st.Step(tr.Read[i], tr.Write[i])
				for k := range out {
					got[k].add(tr.Start.Add(time.Duration(i)*time.Minute), out[k])
					if math.Abs(out[k].Causes.Total()-out[k].Throttled) > 1e-9 {
						t.Fatalf("minute %d: causes %v do not add up to %v", i, out[k].Causes, out[k].Throttled)
					}
				}
			}
			for k, w := range []Diagnosis{want[0].Read, want[0].Write} {
				for _, c := range Causes() {
					if math.Abs(got[k].Throttled[c]-w.Throttled[c]) > 1e-6*math.Max(1, w.Throttled[c]) || !got[k].Last[c].Equal(w.Last[c]) ||
						got[k].SaturatedMinutes[c] != w.SaturatedMinutes[c] {
						t.Errorf("%s %s: stream %v units, %v saturated minutes (last %v), DiagnoseTable %v, %v (last %v)", Dimension(k), c,
							got[k].Throttled[c], got[k].SaturatedMinutes[c], got[k].Last[c], w.Throttled[c], w.SaturatedMinutes[c], w.Last[c])
					}
					found[k].Throttled[c] += w.Throttled[c]
					found[k].SaturatedMinutes[c] += w.SaturatedMinutes[c]
				}
			}
			plain, err := NewDiagnosisStream(tr.Start, s, nil, ReadWrite{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Compared() != [2]bool{} || plain.reasonable != nil {
				t.Error("compare false still runs a comparison")
			}
		})
	}
	if found[0].Throttled[CauseAtMax] == 0 {
		t.Error("the capped read never hit its maximum: the cases prove little")
	}
	for _, c := range Causes() {
		if found[0].SaturatedMinutes[c]+found[1].SaturatedMinutes[c] == 0 {
			t.Errorf("no minute saturated by %s: the cases prove little", c)
		}
	}
}

func TestReasonableSettingsLeavesItsInputAlone(t *testing.T) {
	high := policy(0.9, 100)
	s := Settings{Read: Provisioning{AutoScaling: high}, Write: Provisioning{AutoScaling: policy(0.5, 100)}}
	rs, lowered := ReasonableSettings(s)
	if high.Target != 0.9 || s.Read.AutoScaling != high {
		t.Fatal("ReasonableSettings modified its input")
	}
	if lowered != [2]bool{true, false} || rs.Read.AutoScaling.Target != ReasonableTarget || rs.Write.AutoScaling.Target != 0.5 || rs.Read.AutoScaling.Max != 100 {
		t.Errorf("lowered %v, settings read %+v write %+v", lowered, rs.Read.AutoScaling, rs.Write.AutoScaling)
	}
	if _, lowered := ReasonableSettings(Settings{Read: Provisioning{Fixed: 10}}); lowered != [2]bool{} {
		t.Error("a fixed capacity was lowered")
	}
	if CauseAtMax.String() != "at_max" || CauseTarget.String() != "target" || CauseReaction.String() != "reaction" {
		t.Error("cause names changed: they are metric label values")
	}
}
