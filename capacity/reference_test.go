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

// naiveDim is one auto-scaled dimension in naiveProvisioned.
type naiveDim struct {
	sums            []float64
	a               AutoScalingSettings
	capNow          float64
	capacity        []float64
	scheduled       []naiveScaled
	haveOut, haveIn bool
	lastOut, lastIn time.Time
	bank, throttled float64
}

// naiveProvisioned returns the capacity of every minute and the throttled
// units of auto-scaled dimensions of ONE table or GSI, re-deriving every
// rule from the minute history. The dimensions share DynamoDB's decrease
// allowance, which counts per table or GSI ("Service, account, and table
// quotas in Amazon DynamoDB": 4 decreases a UTC day at any time, then one an
// hour; a decrease of read, write or both counts once).
func naiveProvisioned(start time.Time, dims []*naiveDim) {
	for _, d := range dims {
		d.capNow = naiveBound(d.a, d.a.Initial)
		if d.a.Initial == 0 {
			d.capNow = naiveWanted(d.a, d.sums[0]/60)
		}
		d.capacity = make([]float64, len(d.sums))
		d.bank = 300 * d.capNow
	}
	decreasesOn := map[string]int{}
	var lastDecrease time.Time
	roundUp := func(x time.Duration) time.Duration {
		return time.Duration(math.Ceil(x.Minutes())) * time.Minute
	}
	for i := range dims[0].sums {
		now := start.Add(time.Duration(i) * time.Minute)
		end := now.Add(time.Minute)
		type wish struct {
			d  *naiveDim
			to float64
		}
		var wishes []wish
		for _, d := range dims {
			a := d.a
			rate := func(j int) float64 { return d.sums[j] / 60 }
			// Scheduled increases that have arrived.
			var still []naiveScaled
			for _, s := range d.scheduled {
				if !s.at.After(now) {
					d.capNow = math.Max(d.capNow, s.to)
				} else {
					still = append(still, s)
				}
			}
			d.scheduled = still
			d.capacity[i] = d.capNow

			// Serve the minute, with up to 300 s of unused capacity banked.
			d.bank = math.Min(d.bank, 300*d.capNow)
			spare := d.capNow*60 - d.sums[i]
			if spare >= 0 {
				d.bank = math.Min(d.bank+spare, 300*d.capNow)
			} else if -spare <= d.bank {
				d.bank += spare
			} else {
				d.throttled += -spare - d.bank
				d.bank = 0
			}

			// Scale out: this minute and the previous one above target.
			hot := func(j int) bool { return j >= 0 && rate(j) > a.Target*d.capacity[j] }
			if hot(i) && hot(i-1) {
				if !d.haveOut || end.Sub(d.lastOut) >= roundUp(a.ScaleOutCooldown) {
					highest := d.capNow
					for _, s := range d.scheduled {
						highest = math.Max(highest, s.to)
					}
					if w := naiveWanted(a, rate(i)); w > highest {
						d.scheduled = append(d.scheduled, naiveScaled{at: end.Add(roundUp(a.ScaleOutDelay)), to: w})
						d.haveOut, d.lastOut = true, end
					}
				}
				continue
			}

			// Scale in: the last 15 minutes at this capacity, all below
			// target minus 20 points, to their highest rate ÷ target.
			if a.DisableScaleIn || len(d.scheduled) > 0 || i < 14 {
				continue
			}
			quiet, highest := true, 0.0
			for j := i - 14; j <= i; j++ {
				if d.capacity[j] != d.capNow || rate(j) >= (a.Target-0.20)*d.capNow {
					quiet = false
				}
				highest = math.Max(highest, rate(j))
			}
			if !quiet || (d.haveIn && end.Sub(d.lastIn) < roundUp(a.ScaleInCooldown)) {
				continue
			}
			if w := naiveWanted(a, highest); w < d.capNow {
				wishes = append(wishes, wish{d, w})
			}
		}
		day := end.UTC().Format(time.DateOnly)
		if len(wishes) == 0 || (decreasesOn[day] >= 4 && end.Sub(lastDecrease) < time.Hour) {
			continue
		}
		decreasesOn[day]++
		lastDecrease = end
		for _, w := range wishes {
			w.d.haveIn, w.d.lastIn = true, end
			w.d.capNow = w.to
		}
	}
}

func naiveBound(a AutoScalingSettings, c float64) float64 {
	if c < a.Min {
		c = a.Min
	}
	if c > a.Max {
		c = a.Max
	}
	return c
}

func naiveWanted(a AutoScalingSettings, u float64) float64 {
	return naiveBound(a, math.Ceil(u/a.Target-1e-9))
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
	var scaled []*naiveDim
	var prices []float64
	for _, dim := range []struct {
		sums  []float64
		prov  Provisioning
		price float64
	}{{t.Read, s.Read, p.ProvisionedRCUHour}, {t.Write, s.Write, p.ProvisionedWCUHour}} {
		switch {
		case dim.prov.AutoScaling != nil:
			scaled, prices = append(scaled, &naiveDim{sums: dim.sums, a: *dim.prov.AutoScaling}), append(prices, dim.price)
		case dim.prov.Fixed > 0:
			capacity, thr := naiveFixed(dim.sums, dim.prov.Fixed)
			b.provisioned += naiveHourlyBill(t.Start, capacity, dim.price)
			b.throttled += thr
		default:
			scaled, prices = append(scaled, &naiveDim{sums: dim.sums, a: DefaultAutoScaling()}), append(prices, dim.price)
		}
	}
	if len(scaled) > 0 {
		naiveProvisioned(t.Start, scaled)
	}
	for k, d := range scaled {
		b.provisioned += naiveHourlyBill(t.Start, d.capacity, prices[k])
		b.throttled += d.throttled
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
// on varied traces and policies. Both compute the same quantities in a
// different order, so they agree to rounding: costs within 1e-9 relative
// (well under a cent), throttled units within 1e-6 units per unit of demand.
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
				if !within(e.OnDemand.Total(), want.onDemand, 1e-9) {
					t.Errorf("on-demand cost %.4f, brute force %.4f", e.OnDemand.Total(), want.onDemand)
				}
				if !within(e.Provisioned.Total(), want.provisioned, 1e-9) {
					t.Errorf("provisioned cost %.4f, brute force %.4f", e.Provisioned.Total(), want.provisioned)
				}
				if math.Abs(e.Throttled.Total()-want.throttled) > 1e-9*e.Demand.Total() {
					t.Errorf("throttled %.1f units, brute force %.1f", e.Throttled.Total(), want.throttled)
				}
				t.Logf("on-demand $%.2f (brute $%.2f), provisioned $%.2f (brute $%.2f), throttled %.0f (brute %.0f)",
					e.OnDemand.Total(), want.onDemand, e.Provisioned.Total(), want.provisioned, e.Throttled.Total(), want.throttled)
			})
		}
	}
}
