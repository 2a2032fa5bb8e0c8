package capacity

import (
	"math"
	"testing"
	"time"
)

// This file is an independent brute-force bill: it recomputes, minute by
// minute and with wall-clock times, what the table would pay and throttle.
// It shares no code with the package beyond the input types, so that
// Evaluate can be checked against it.

// naiveScaled is a scheduled capacity increase.
type naiveScaled struct {
	at time.Time
	to float64
}

// naiveProvisioned returns the capacity of every minute and the throttled
// units, re-deriving every rule from the minute history.
func naiveProvisioned(start time.Time, sums []float64, a AutoScalingSettings) ([]float64, float64) {
	rate := func(i int) float64 { return sums[i] / 60 }
	bound := func(c float64) float64 {
		if c < a.Min {
			c = a.Min
		}
		if c > a.Max {
			c = a.Max
		}
		return c
	}
	wanted := func(u float64) float64 { return bound(math.Ceil(u/a.Target - 1e-9)) }
	roundUp := func(d time.Duration) time.Duration {
		return time.Duration(math.Ceil(d.Minutes())) * time.Minute
	}

	capNow := bound(a.Initial)
	if a.Initial == 0 {
		capNow = wanted(rate(0))
	}
	var (
		capacity        = make([]float64, len(sums))
		scheduled       []naiveScaled
		haveOut, haveIn bool
		lastOut, lastIn time.Time
		lastDecrease    time.Time
		decreasesOn     = map[string]int{}
		bank            = 300 * capNow
		throttled       float64
	)
	for i := range sums {
		now := start.Add(time.Duration(i) * time.Minute)
		end := now.Add(time.Minute)

		// Scheduled increases that have arrived.
		var still []naiveScaled
		for _, s := range scheduled {
			if !s.at.After(now) {
				capNow = math.Max(capNow, s.to)
			} else {
				still = append(still, s)
			}
		}
		scheduled = still
		capacity[i] = capNow

		// Serve the minute, with up to 300 s of unused capacity banked.
		bank = math.Min(bank, 300*capNow)
		spare := capNow*60 - sums[i]
		if spare >= 0 {
			bank = math.Min(bank+spare, 300*capNow)
		} else if -spare <= bank {
			bank += spare
		} else {
			throttled += -spare - bank
			bank = 0
		}

		// Scale out: this minute and the previous one above target.
		hot := func(j int) bool { return j >= 0 && rate(j) > a.Target*capacity[j] }
		if hot(i) && hot(i-1) {
			if !haveOut || end.Sub(lastOut) >= roundUp(a.ScaleOutCooldown) {
				highest := capNow
				for _, s := range scheduled {
					highest = math.Max(highest, s.to)
				}
				if w := wanted(rate(i)); w > highest {
					scheduled = append(scheduled, naiveScaled{at: end.Add(roundUp(a.ScaleOutDelay)), to: w})
					haveOut, lastOut = true, end
				}
			}
			continue
		}

		// Scale in: the last 15 minutes at this capacity, all well below target.
		if a.DisableScaleIn || len(scheduled) > 0 || i < 14 {
			continue
		}
		quiet := true
		for j := i - 14; j <= i; j++ {
			if capacity[j] != capNow || rate(j) >= a.Target*0.8*capNow {
				quiet = false
			}
		}
		if !quiet || (haveIn && end.Sub(lastIn) < roundUp(a.ScaleInCooldown)) {
			continue
		}
		w := wanted(rate(i))
		day := end.UTC().Format(time.DateOnly)
		if w >= capNow || (decreasesOn[day] >= 4 && end.Sub(lastDecrease) < time.Hour) {
			continue
		}
		decreasesOn[day]++
		lastDecrease = end
		haveIn, lastIn = true, end
		capNow = w
	}
	return capacity, throttled
}

// naiveFixed serves every minute at one capacity.
func naiveFixed(sums []float64, c float64) ([]float64, float64) {
	capacity := make([]float64, len(sums))
	bank, throttled := 300*c, 0.0
	for i, s := range sums {
		capacity[i] = c
		if s <= c*60 {
			bank = math.Min(bank+c*60-s, 300*c)
			continue
		}
		over := s - c*60
		use := math.Min(over, bank)
		bank -= use
		throttled += over - use
	}
	return capacity, throttled
}

// naiveHourlyBill bills capacity per UTC clock hour: the mean capacity of the
// hour's minutes × the share of the hour they cover × the unit-hour price.
func naiveHourlyBill(start time.Time, capacity []float64, unitHour float64) float64 {
	total := map[time.Time]float64{}
	count := map[time.Time]float64{}
	for i, c := range capacity {
		h := start.Add(time.Duration(i) * time.Minute).UTC().Truncate(time.Hour)
		total[h] += c
		count[h]++
	}
	var bill float64
	for h := range total {
		bill += total[h] / count[h] * (count[h] / 60) * unitHour
	}
	return bill
}

// naiveBill is the full brute-force bill of one table.
type naiveBill struct {
	onDemand, provisioned, throttled float64
}

func naiveTableBill(t Trace, s Settings, p Prices) naiveBill {
	var b naiveBill
	for _, v := range t.Read {
		b.onDemand += v * p.OnDemandReadPerMillion / 1e6
	}
	for _, v := range t.Write {
		b.onDemand += v * p.OnDemandWritePerMillion / 1e6
	}
	for _, dim := range []struct {
		sums  []float64
		prov  Provisioning
		price float64
	}{{t.Read, s.Read, p.ProvisionedRCUHour}, {t.Write, s.Write, p.ProvisionedWCUHour}} {
		var capacity []float64
		var thr float64
		switch {
		case dim.prov.AutoScaling != nil:
			capacity, thr = naiveProvisioned(t.Start, dim.sums, *dim.prov.AutoScaling)
		case dim.prov.Fixed > 0:
			capacity, thr = naiveFixed(dim.sums, dim.prov.Fixed)
		default:
			capacity, thr = naiveProvisioned(t.Start, dim.sums, DefaultAutoScaling())
		}
		b.provisioned += naiveHourlyBill(t.Start, capacity, dim.price)
		b.throttled += thr
	}
	return b
}

func within(got, want, rel float64) bool {
	if want == 0 {
		return math.Abs(got) < 1e-9
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestEvaluateMatchesBruteForce checks Evaluate's bill against the naive one
// within 1% on varied traces and policies.
func TestEvaluateMatchesBruteForce(t *testing.T) {
	prices, err := PricesFor("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	withCooldowns := DefaultAutoScaling()
	withCooldowns.ScaleOutCooldown, withCooldowns.ScaleInCooldown = 3*time.Minute, 30*time.Minute
	instant := DefaultAutoScaling()
	instant.ScaleOutDelay = 0
	instant.Target = 0.5
	noScaleIn := DefaultAutoScaling()
	noScaleIn.DisableScaleIn = true
	narrow := AutoScalingSettings{Target: 0.9, Min: 50, Max: 900, ScaleOutDelay: 2 * time.Minute, Initial: 100}

	traces := []struct {
		name string
		tr   Trace
	}{
		{"flat", trace(week, flat(2000), flat(500))},
		{"daily sine", trace(week, sine(1000, 800), sine(200, 150))},
		{"spiky", trace(week, spiky(50, 20), spiky(20, 40))},
		{"random seeded", trace(week, randomWalk(1, 800), randomWalk(2, 300))},
		{"idle burst", trace(3*1440, idleBurst(1000), idleBurst(3000))},
	}
	settings := []struct {
		name string
		s    Settings
	}{
		{"defaults", Settings{}},
		{"cooldowns", Settings{Read: Provisioning{AutoScaling: &withCooldowns}, Write: Provisioning{AutoScaling: &withCooldowns}}},
		{"instant target 50%", Settings{Read: Provisioning{AutoScaling: &instant}, Write: Provisioning{AutoScaling: &instant}}},
		{"no scale-in / narrow", Settings{Read: Provisioning{AutoScaling: &noScaleIn}, Write: Provisioning{AutoScaling: &narrow}}},
		{"fixed", Settings{Read: Provisioning{Fixed: 1500}, Write: Provisioning{Fixed: 400}}},
	}
	for _, tc := range traces {
		for _, sc := range settings {
			t.Run(tc.name+"/"+sc.name, func(t *testing.T) {
				e, err := Evaluate(tc.tr, OnDemand, sc.s, prices, Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := naiveTableBill(tc.tr, sc.s, prices)
				if !within(e.OnDemand.Total(), want.onDemand, 0.01) {
					t.Errorf("on-demand cost %.4f, brute force %.4f", e.OnDemand.Total(), want.onDemand)
				}
				if !within(e.Provisioned.Total(), want.provisioned, 0.01) {
					t.Errorf("provisioned cost %.4f, brute force %.4f", e.Provisioned.Total(), want.provisioned)
				}
				// Throttling is compared within 1% of the demand it is a share of.
				if math.Abs(e.Throttled.Total()-want.throttled) > 0.01*math.Max(want.throttled, 1e-3*e.Demand.Total()) {
					t.Errorf("throttled %.1f units, brute force %.1f", e.Throttled.Total(), want.throttled)
				}
				t.Logf("on-demand $%.2f (brute $%.2f), provisioned $%.2f (brute $%.2f), throttled %.0f (brute %.0f)",
					e.OnDemand.Total(), want.onDemand, e.Provisioned.Total(), want.provisioned, e.Throttled.Total(), want.throttled)
			})
		}
	}
}
