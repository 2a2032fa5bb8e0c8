package capacity

import (
	"math"
	"math/rand/v2"
	"time"
)

// Test traces. Rates are in units per second; traces hold Sum per minute.

// traceStart is deliberately not at a UTC hour or day boundary.
var traceStart = time.Date(2025, 3, 3, 13, 37, 0, 0, time.UTC)

const week = 7 * 24 * 60

// perMinute builds a series of n minutes from a rate function of the minute.
func perMinute(n int, rate func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = rate(i) * 60
	}
	return out
}

func flat(rate float64) func(int) float64 { return func(int) float64 { return rate } }

// sine is a daily cycle between base-amp and base+amp.
func sine(base, amp float64) func(int) float64 {
	return func(i int) float64 { return base + amp*math.Sin(2*math.Pi*float64(i)/1440) }
}

// spiky is a base rate with 10-minute spikes of factor k every 3 hours.
func spiky(base, k float64) func(int) float64 {
	return func(i int) float64 {
		if i%180 < 10 {
			return base * k
		}
		return base
	}
}

// randomWalk is a seeded random walk with noise and occasional regime jumps.
func randomWalk(seed uint64, base float64) func(int) float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	level := base
	var cache []float64
	return func(i int) float64 {
		for len(cache) <= i {
			if r.IntN(90) == 0 {
				level = base * (0.1 + 3*r.Float64())
			}
			level = math.Max(0, level*(1+0.02*r.NormFloat64()))
			cache = append(cache, level*(0.8+0.4*r.Float64()))
		}
		return cache[i]
	}
}

// idleBurst is zero except for one hour a day (hour 12 of each trace day).
func idleBurst(rate float64) func(int) float64 {
	return func(i int) float64 {
		if (i/60)%24 == 12 {
			return rate
		}
		return 0
	}
}

// flashSale is a base rate that jumps ×k within a minute for 30 minutes a day.
func flashSale(base, k float64) func(int) float64 {
	return func(i int) float64 {
		if m := i % 1440; m >= 600 && m < 630 {
			return base * k
		}
		return base
	}
}

// trace builds a Trace of n minutes from traceStart.
func trace(n int, read, write func(int) float64) Trace {
	return Trace{Start: traceStart, Read: perMinute(n, read), Write: perMinute(n, write)}
}
