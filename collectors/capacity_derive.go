// Traffic figures derived from consumed-capacity history: read/write ratio
// and its drift, peak-to-average, weekly baselines and surge retention. A
// figure that cannot be computed (a zero denominator, too little history) is
// NaN and its series is omitted.
package collectors

import (
	"math"
	"sort"
	"time"
)

const (
	day  = 24 * time.Hour
	week = 7 * day
	// baselineWeeks is the span of the current baseline and of the
	// pre-surge reference.
	baselineWeeks = 4
)

// TrafficFigures are the derived traffic gauges of one table or GSI. NaN
// means not computable.
type TrafficFigures struct {
	// Index is the GSI name, empty for the base table.
	Index string
	// Ratio1d and Ratio7d are consumed read units ÷ consumed write units over
	// the last day and the last 7 days (the traffic-weighted rolling mean).
	Ratio1d, Ratio7d float64
	// Drift is Ratio1d ÷ Ratio7d − 1; review capacity at |Drift| ≥ 0.3.
	Drift float64
	// Ratio1dWeekAgo is the 1-day ratio of the same day a week earlier (the
	// day ending 7 days before the history's end); WeeklyDrift is Ratio1d ÷
	// Ratio1dWeekAgo − 1. A weekly cycle (a weekend with another mix) moves
	// Drift every weekend but keeps WeeklyDrift near 0; a new workload moves
	// both.
	Ratio1dWeekAgo, WeeklyDrift float64
	// RatioPrior3w is the ratio of the three weeks before the last 7 days
	// (days 8 to 28 before the history's end); BaselineDrift is Ratio7d ÷
	// RatioPrior3w − 1: the 7-day rolling mix against the 4-week baseline
	// before it, which a mix change shows for three weeks after it (the
	// 1-day figures see it for a day). NaN for a table younger than 28
	// days.
	RatioPrior3w, BaselineDrift float64
	// PeakToAverage is, for reads and writes, the PeakPercentile of the
	// 1-minute rates over 7 days divided by their mean.
	PeakToAverage [2]float64
	// Baseline1w and Baseline4w are the medians of the hourly consumed rates
	// (read + write units per second) over the last 1 and 4 whole weeks.
	Baseline1w, Baseline4w float64
	// Surge is the last surge found, or nil.
	Surge *Surge
}

// Surge is a week whose baseline reached SurgeFactor times the baseline of
// the (up to) 4 weeks before it, a baseline above zero (traffic that starts
// on an idle table is a new workload).
type Surge struct {
	// Baseline is the surge week's median hourly rate; Pre is the median of
	// the weeks before it.
	Baseline, Pre float64
	// Retention is the current 4-week baseline ÷ Baseline: ≥ 0.7 four to eight
	// weeks after the surge means a permanent shift.
	Retention float64
	// SincePeak is the time since the start of the surge week's busiest hour.
	SincePeak time.Duration
	// PeakAt is the start of the surge week's busiest hour.
	PeakAt time.Time
}

// figureInput is what the derivation needs for one table or GSI.
type figureInput struct {
	read, write *history
	end         time.Time // end of the history (whole minute)
	dataStart   time.Time // first minute with meaningful history
	percentile  float64
	surgeFactor float64
}

func deriveTraffic(index string, in figureInput) TrafficFigures {
	f := TrafficFigures{Index: index, Drift: math.NaN(), WeeklyDrift: math.NaN(), Baseline1w: math.NaN(), Baseline4w: math.NaN()}
	f.Ratio1d = ratio(in.read.sum(in.end.Add(-day), in.end), in.write.sum(in.end.Add(-day), in.end))
	f.Ratio7d = ratio(in.read.sum(in.end.Add(-week), in.end), in.write.sum(in.end.Add(-week), in.end))
	if !math.IsNaN(f.Ratio1d) && f.Ratio7d > 0 {
		f.Drift = f.Ratio1d/f.Ratio7d - 1
	}
	f.Ratio1dWeekAgo = math.NaN()
	if weekAgo := in.end.Add(-week); !weekAgo.Add(-day).Before(in.dataStart) {
		f.Ratio1dWeekAgo = ratio(in.read.sum(weekAgo.Add(-day), weekAgo), in.write.sum(weekAgo.Add(-day), weekAgo))
	}
	if !math.IsNaN(f.Ratio1d) && f.Ratio1dWeekAgo > 0 {
		f.WeeklyDrift = f.Ratio1d/f.Ratio1dWeekAgo - 1
	}
	f.RatioPrior3w, f.BaselineDrift = math.NaN(), math.NaN()
	if weekAgo, start := in.end.Add(-week), in.end.Add(-4*week); !start.Before(in.dataStart) {
		f.RatioPrior3w = ratio(in.read.sum(start, weekAgo), in.write.sum(start, weekAgo))
	}
	if !math.IsNaN(f.Ratio7d) && f.RatioPrior3w > 0 {
		f.BaselineDrift = f.Ratio7d/f.RatioPrior3w - 1
	}
	from := in.end.Add(-week)
	if in.dataStart.After(from) {
		from = in.dataStart.Truncate(time.Minute)
	}
	for d, h := range []*history{in.read, in.write} {
		f.PeakToAverage[d] = h.peakToAverage(from, in.end, in.percentile)
	}
	deriveBaselines(&f, in)
	return f
}

// ratio returns a ÷ b, NaN when b is zero.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// peakToAverage returns the p-th percentile (nearest rank) of the values over
// their mean; units cancel, so Sums serve as well as rates.
func peakToAverage(vs []float64, p float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	var total float64
	for _, v := range vs {
		total += v
	}
	if total == 0 {
		return math.NaN()
	}
	return percentile(vs, p) / (total / float64(len(vs)))
}

// percentile returns the nearest-rank p-th percentile of vs (0 < p ≤ 100).
func percentile(vs []float64, p float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// deriveBaselines computes the weekly baselines and looks for a surge. Weeks
// run back from the last whole hour; only weeks fully after dataStart count.
func deriveBaselines(f *TrafficFigures, in figureInput) {
	endH := in.end.Truncate(time.Hour)
	first := ceilHour(in.dataStart)
	weeks := int(endH.Sub(first) / week)
	if weeks < 1 {
		return
	}
	from := endH.Add(-time.Duration(weeks) * week)
	rates := hourlyBoth(in.read, in.write, from, endH)
	for i := range rates {
		rates[i] /= 3600
	}
	// weekRates returns the hourly rates of weeks [k, k+n) ago (0 = the last).
	weekRates := func(k, n int) []float64 {
		hi := len(rates) - k*168
		lo := max(0, hi-n*168)
		return rates[lo:hi]
	}
	f.Baseline1w = median(weekRates(0, 1))
	if weeks >= baselineWeeks {
		f.Baseline4w = median(weekRates(0, baselineWeeks))
	}
	current := median(weekRates(0, min(weeks, baselineWeeks)))
	var best *Surge
	var bestWeek int
	// Week k is a candidate when a whole week before it is known.
	for k := 1; k+1 < weeks; k++ {
		b := median(weekRates(k, 1))
		pre := median(weekRates(k+1, min(baselineWeeks, weeks-k-1)))
		// A surge rises from a baseline: weeks before it whose median
		// hour is idle (no traffic, or no history: CloudWatch publishes
		// nothing for an idle table) make a new workload, not a surge.
		if b <= 0 || !(pre > 0) || b < in.surgeFactor*pre {
			continue
		}
		if best == nil || b >= best.Baseline { // on a tie, the older week (the onset)
			best, bestWeek = &Surge{Baseline: b, Pre: pre}, k
		}
	}
	if best == nil {
		return
	}
	best.Retention = current / best.Baseline
	wr := weekRates(bestWeek, 1)
	peak := 0
	for i, v := range wr {
		if v > wr[peak] {
			peak = i
		}
	}
	peakStart := endH.Add(-time.Duration(bestWeek+1)*week + time.Duration(peak)*time.Hour)
	best.SincePeak, best.PeakAt = in.end.Sub(peakStart), peakStart
	f.Surge = best
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
