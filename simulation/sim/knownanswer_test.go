package sim

import (
	"math"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Known answers: each expected figure comes from AWS's documentation (the
// source is named with the case), not from this simulator nor from the
// cost model (package capacity), which has the same cases of its own.

// scalingDim is a read dimension at capacity c under a target-tracking
// policy at target percent, with no cooldowns or delay.
func scalingDim(c, target float64) *dirState {
	s := &dirState{read: true, cap: c, lastOut: math.MinInt32, lastIn: math.MinInt32}
	s.policy = &policy{target: target / 100, min: 1, max: 40000}
	return s
}

// firstDecision feeds consumption u(m) (units/s) minute by minute and
// returns the first minute at whose end a scale-out (out) or scale-in
// (!out) is decided, with its level, or -1.
func firstDecision(s *dirState, minutes int, u func(m int) float64, out bool) (int, float64) {
	for m := range minutes {
		s.decide(int64(m), u(m))
		if out && len(s.pending) > 0 {
			return m, s.pending[0].to
		}
		if !out && s.decrease != nil {
			return m, s.decrease.to
		}
	}
	return -1, 0
}

func TestKnownAnswersAutoScaling(t *testing.T) {
	flat := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	for _, c := range []struct {
		name     string
		source   string
		capacity float64
		target   float64
		u        func(m int) float64
		out      bool
		minute   int     // first decision at the end of this minute (0-based), -1: none
		level    float64 // capacity decided
	}{
		// "DynamoDB auto scaling decreases provisioned capacity when
		// utilization is 20% or more below the target for 15
		// consecutive minutes (50 RCUs)", with 100 RCU at a 70% target.
		{"100 RCU at 70%: 49 RCU scales in after the 15th minute", "re:Post dynamodb-auto-scaling", 100, 70, flat(49), false, 14, 70},
		{"100 RCU at 70%: 55 RCU never scales in (×0.8 would, below 56)", "re:Post dynamodb-auto-scaling", 100, 70, flat(55), false, -1, 0},
		{"100 RCU at 70%: 50 RCU is not below 50", "re:Post dynamodb-auto-scaling", 100, 70, flat(50), false, -1, 0},
		// The level scaled in to: the highest of the last 15 minutes ÷
		// target (AWS's capacity-mode evaluator, last15Max / utilization):
		// 49 ÷ 0.7 = 70, not the last minute's 21 ÷ 0.7 = 30.
		{"scale-in to the highest of 15 minutes ÷ target", "amazon-dynamodb-tools capacity-mode-evaluator", 100, 70,
			func(m int) float64 { return 49 - 2*float64(m) }, false, 14, 70},
		// "Auto scaling triggers when your consumed capacity breaches
		// the configured target utilization for two consecutive
		// minutes" ("DynamoDB Metrics and dimensions").
		{"scale-out after 2 minutes above target, to u ÷ target", "metrics-dimensions", 100, 70, flat(71), true, 1, 102},
		{"one minute above target does not scale out", "metrics-dimensions", 100, 70,
			func(m int) float64 { return []float64{90, 60}[m%2] }, true, -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := scalingDim(c.capacity, c.target)
			m, level := firstDecision(s, 60, c.u, c.out)
			if m != c.minute || level != c.level {
				t.Fatalf("first decision at minute %d to %v, want minute %d to %v (%s)", m, level, c.minute, c.level, c.source)
			}
		})
	}
}

// "DynamoDB currently retains up to 5 minutes (300 seconds) of unused read
// and write capacity ... 150 RCUs ... no usage in the last 5 minutes ...
// 45,000 read units of burst capacity ... 200 RCUs for 15 minutes: 45,000
// / (200 - 150) = 900 seconds" (re:Post, DynamoDB spiky workloads in short
// intervals).
func TestKnownAnswerBurst(t *testing.T) {
	s := &dirState{read: true, cap: 150}
	for range 5 {
		if thr := s.serveBurst(0); thr != 0 {
			t.Fatalf("idle minute throttled %v", thr)
		}
	}
	if s.burst != 45000 {
		t.Fatalf("burst after 5 idle minutes %v unit-seconds, want 150 × 300 = 45,000", s.burst)
	}
	for m := range 15 {
		if thr := s.serveBurst(200); thr != 0 {
			t.Fatalf("minute %d at 200 RCU throttled %v units/s, want none for 15 minutes", m+1, thr)
		}
	}
	if thr := s.serveBurst(200); thr != 50 {
		t.Fatalf("16th minute at 200 RCU throttled %v units/s, want 50 (burst spent)", thr)
	}
}

func TestKnownAnswersOnDemand(t *testing.T) {
	for _, c := range []struct {
		name string
		// read dimension unless write
		write bool
		// switchedFrom > 0: switched from this provisioned capacity
		switchedFrom float64
		// previous: the previous peak (reached over 30 minutes ago)
		previous  float64
		demand    float64
		throttled float64
	}{
		// "New on-demand tables will be able to sustain up to 4,000
		// writes per second and 12,000 reads per second" ("Pre-warming
		// a table for on-demand capacity mode"; "DynamoDB on-demand
		// capacity mode" / "Considerations when switching capacity modes":
		// previous peak 2,000 WRU / 6,000 RRU, doubled).
		{"new table serves 12,000 RRU at once", false, 0, 0, 12000, 0},
		{"new table throttles above 12,000 RRU", false, 0, 0, 13000, 1000},
		{"new table serves 4,000 WRU at once", true, 0, 0, 4000, 0},
		{"new table throttles above 4,000 WRU", true, 0, 0, 5000, 1000},
		// "throttling can still occur if the throughput exceeds twice
		// the previous peak within the same 30 minutes" ("Pre-warming a
		// table for on-demand capacity mode").
		{"2× a 10,000 RRU previous peak is served", false, 0, 10000, 20000, 0},
		{"above 2× a 10,000 RRU previous peak is throttled", false, 0, 10000, 25000, 5000},
		// "Existing table switched to on-demand capacity mode: The
		// previous peak is half the previous WCU and RCU provisioned
		// for the table or the settings for a newly created table ...,
		// whichever is higher" ("Considerations when switching capacity modes").
		{"switched from 30,000 RCU: previous peak 15,000, serves 30,000", false, 30000, 0, 30000, 0},
		{"switched from 30,000 RCU: throttles above 30,000", false, 30000, 0, 31000, 1000},
		{"switched from 5,000 RCU: the new-table figure is higher", false, 5000, 0, 12000, 0},
		{"switched from 10,000 WCU: serves 10,000 WRU", true, 10000, 0, 10000, 0},
		{"switched from 10,000 WCU: throttles above 10,000 WRU", true, 10000, 0, 10500, 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &dirState{read: !c.write}
			if c.switchedFrom > 0 {
				s.cap = c.switchedFrom
				s.switchedToOnDemand(s.cap)
			}
			const quota = 1e9 // no account limit here
			if c.previous > 0 {
				s.oldPeak = c.previous // more than 30 minutes old
			}
			out := s.serve(c.demand, 0, 0, true, quota)
			var thr float64
			for _, x := range out.throttled {
				thr += x
			}
			if thr != c.throttled || out.consumed != c.demand-c.throttled {
				t.Fatalf("demand %v: throttled %v, consumed %v; want throttled %v", c.demand, thr, out.consumed, c.throttled)
			}
		})
	}
}

// Within 30 minutes of a new peak, twice the peak before it is the limit;
// 30 minutes later the new peak is the previous peak.
func TestKnownAnswerPeakWindow(t *testing.T) {
	s := &dirState{read: true}
	const quota = 1e9
	step := func(d float64) float64 {
		out := s.serve(d, 0, 0, true, quota)
		s.settle(out.consumed, 0, true)
		return out.consumed
	}
	if got := step(12000); got != 12000 {
		t.Fatalf("first minute served %v, want 12,000", got)
	}
	for m := 1; m < 30; m++ {
		if got := step(24000); got != 12000 {
			t.Fatalf("minute %d served %v of 24,000, want 12,000 (2× the new-table peak)", m, got)
		}
	}
	// Minute 0's 12,000 is now 30 minutes old: the previous peak.
	if got := step(24000); got != 24000 {
		t.Fatalf("30 minutes after the 12,000 peak served %v, want 24,000", got)
	}
}

// Decrease limits, per table or GSI: "For every table and global
// secondary index ... you can decrease ReadCapacityUnits or
// WriteCapacityUnits (or both) ... up to four times, anytime per day ...
// Additionally, if there was no decrease in the past hour, an additional
// decrease is allowed" ("Quotas in Amazon DynamoDB", "Decreasing
// provisioned throughput"); a decrease of read, write or both counts once
// (NumberOfDecreasesToday). The server enforces them; the simulator's
// auto-scaling goes through it.
func TestKnownAnswerDecreaseBudget(t *testing.T) {
	day := time.Date(2025, 3, 12, 0, 0, 0, 0, time.UTC)
	srv := awssim.New()
	err := srv.PutTable("us-east-1", awssim.Table{
		Name: "budget", Throughput: awssim.Throughput{ReadCapacityUnits: 1000, WriteCapacityUnits: 1000},
		GSIs: []awssim.GlobalSecondaryIndex{{IndexName: "gsi", Throughput: awssim.Throughput{ReadCapacityUnits: 1000, WriteCapacityUnits: 1000}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	set := func(index string, r, w int64, at time.Duration) error {
		return srv.SetThroughput("us-east-1", "budget", index, awssim.Capacity{Read: r, Write: w}, day.Add(at))
	}
	// Four decreases at any time: read and write together (one), read
	// alone, write alone, both again.
	steps := []struct{ r, w int64 }{{900, 900}, {800, 900}, {800, 800}, {700, 700}}
	for i, s := range steps {
		if err := set("", s.r, s.w, time.Duration(i)*time.Minute); err != nil {
			t.Fatalf("decrease %d of the day: %v", i+1, err)
		}
	}
	tb, _ := srv.Table("us-east-1", "budget")
	if n := tb.Throughput.NumberOfDecreasesToday; n != freeDecreasesPerDay {
		t.Fatalf("NumberOfDecreasesToday %d after 4 UpdateTables (2 of read and write together), want 4", n)
	}
	// The fifth within the hour is refused, for write as for read.
	if err := set("", 700, 600, 30*time.Minute); err == nil {
		t.Fatal("fifth decrease within the hour accepted")
	}
	// The GSI's budget is its own.
	for i := range freeDecreasesPerDay {
		if err := set("gsi", 900-int64(i)*100, 900-int64(i)*100, 31*time.Minute); err != nil {
			t.Fatalf("GSI decrease %d: %v", i+1, err)
		}
	}
	// An hour after the fourth decrease, one more; then none for an hour.
	at := 3*time.Minute + decreaseInterval
	if err := set("", 600, 600, at); err != nil {
		t.Fatalf("decrease an hour after the fourth: %v", err)
	}
	if err := set("", 500, 600, at+59*time.Minute); err == nil {
		t.Fatal("a second decrease within the hour accepted")
	}
	if err := set("", 500, 600, at+decreaseInterval); err != nil {
		t.Fatalf("hourly decrease: %v", err)
	}
}
