package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// sample is one reading of the exporter process.
type sample struct {
	at         time.Time
	goroutines float64 // go_goroutines
	heap       float64 // go_memstats_heap_alloc_bytes
	heapGoal   float64 // go_memstats_next_gc_bytes
	rss        float64 // VmRSS of /proc/<pid>/status
	fds        float64 // entries of /proc/<pid>/fd
}

// quantity is one figure the soak watches and the rule that judges it.
type quantity struct {
	name string
	unit string // "", "MiB"
	get  func(sample) float64
	// floor: the figure is judged on its floor (the minimum over a window
	// at the start and at the end of the run), which transient objects
	// (a scrape in flight, an AWS call under way) do not raise but a leak
	// does. The end floor may exceed the start floor by at most maxRise.
	floor   bool
	maxRise float64
	// Otherwise the figure is judged on its trend: the least-squares
	// line through every sample after the warm-up may rise by at most
	// tolerance plus maxPerHour per hour of run (the tolerance absorbs
	// the garbage collector's saw-tooth over a short run; the rate is
	// what a long run can resolve).
	tolerance  float64
	maxPerHour float64
}

const mib = 1 << 20

// quantities are the figures the soak reports and their limits. The
// exporter of the soak holds about 15 MiB of heap and 45 MiB of RSS; a
// short run's figures move by 2 MiB or less, a 1-minute floor of
// goroutines or descriptors by 1.
//
//   - goroutines and open file descriptors: the floor at the end may
//     exceed the floor at the start by 10. The exporter's own goroutines
//     and descriptors are a fixed set (collectors, listener, the
//     keep-alive connections of the 10 scrapers and of the sampler, the AWS
//     client's pooled connections); a leak of one per scrape, per AWS call
//     or per fault adds hundreds over a run, so 10 leaves room for a pooled
//     connection more or less and nothing else.
//   - heap goal (go_memstats_next_gc_bytes, the heap size at which the
//     next collection starts, about twice the live heap after the last
//     one): it steps only at each collection, so its trend is far less
//     noisy than the allocated heap's saw-tooth. Fitted rise at most
//     4 MiB + 8 MiB per hour: a live-heap leak of 4 MiB an hour (a few
//     hundred bytes per table per collection cycle) fails a long run; a
//     leak of a scrape's worth per scrape (10 scrapes a second of tens of
//     kB: gigabytes an hour) fails the short one within seconds.
//   - Go heap (allocated, go_memstats_heap_alloc_bytes) and RSS: fitted
//     rise at most 8 MiB + 16 MiB per hour. The allocated heap swings
//     between collections by up to the live heap, and RSS follows the
//     heap goal with the runtime's lag in returning memory to the system,
//     so both get twice the heap goal's limits.
var quantities = []quantity{
	{name: "goroutines", get: func(s sample) float64 { return s.goroutines }, floor: true, maxRise: 10},
	{name: "open fds", get: func(s sample) float64 { return s.fds }, floor: true, maxRise: 10},
	{name: "Go heap", unit: "MiB", get: func(s sample) float64 { return s.heap }, tolerance: 8 * mib, maxPerHour: 16 * mib},
	{name: "heap goal", unit: "MiB", get: func(s sample) float64 { return s.heapGoal }, tolerance: 4 * mib, maxPerHour: 8 * mib},
	{name: "RSS", unit: "MiB", get: func(s sample) float64 { return s.rss }, tolerance: 8 * mib, maxPerHour: 16 * mib},
}

// verdict is what the soak found for one quantity.
type verdict struct {
	q                    quantity
	start, end, max      float64 // start and end: floors (floor) or the first and last sample
	startFloor, endFloor float64
	slopePerHour         float64 // least-squares slope
	rise, limit          float64 // what was judged and its limit
	ok                   bool
}

// judge computes each quantity's figures over samples (taken after the
// warm-up, oldest first) and whether it grew beyond its limit. window is
// how long, at each end of the run, the floors are taken over.
func judge(samples []sample, window time.Duration) ([]verdict, error) {
	if len(samples) < 4 {
		return nil, fmt.Errorf("%d samples after the warm-up, want at least 4", len(samples))
	}
	t0 := samples[0].at
	last := samples[len(samples)-1].at
	dur := last.Sub(t0)
	if dur <= 0 || 2*window > dur {
		return nil, fmt.Errorf("samples span %s, want more than twice the floor window %s", dur, window)
	}
	var out []verdict
	for _, q := range quantities {
		xs := make([]float64, len(samples))
		ys := make([]float64, len(samples))
		v := verdict{q: q, startFloor: math.Inf(1), endFloor: math.Inf(1), max: math.Inf(-1)}
		for i, s := range samples {
			xs[i] = s.at.Sub(t0).Hours()
			ys[i] = q.get(s)
			v.max = max(v.max, ys[i])
			if s.at.Sub(t0) <= window {
				v.startFloor = min(v.startFloor, ys[i])
			}
			if last.Sub(s.at) <= window {
				v.endFloor = min(v.endFloor, ys[i])
			}
		}
		v.slopePerHour = slope(xs, ys)
		v.start, v.end = ys[0], ys[len(ys)-1]
		if q.floor {
			v.start, v.end = v.startFloor, v.endFloor
			v.rise, v.limit = v.endFloor-v.startFloor, q.maxRise
		} else {
			v.rise = v.slopePerHour * dur.Hours()
			v.limit = q.tolerance + q.maxPerHour*dur.Hours()
		}
		v.ok = v.rise <= v.limit
		out = append(out, v)
	}
	return out, nil
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// failed returns the verdicts over their limit.
func failed(vs []verdict) []verdict {
	return slices.DeleteFunc(slices.Clone(vs), func(v verdict) bool { return v.ok })
}

// fmtValue formats a figure of q.
func (q quantity) fmtValue(x float64) string {
	if q.unit == "MiB" {
		return fmt.Sprintf("%.1f MiB", x/mib)
	}
	return fmt.Sprintf("%.0f", x)
}

// rule states q's limit in words.
func (q quantity) rule() string {
	if q.floor {
		return fmt.Sprintf("end floor ≤ start floor + %.0f", q.maxRise)
	}
	return fmt.Sprintf("fitted rise ≤ %s + %s per hour", q.fmtValue(q.tolerance), q.fmtValue(q.maxPerHour))
}

// String describes v on one line.
func (v verdict) String() string {
	state := "ok"
	if !v.ok {
		state = "GROWTH"
	}
	what := "start/end"
	if v.q.floor {
		what = "start/end floor"
	}
	return fmt.Sprintf("%-10s %s %s → %s, max %s, slope %s/h; judged rise %s (limit %s: %s) %s",
		v.q.name, what, v.q.fmtValue(v.start), v.q.fmtValue(v.end), v.q.fmtValue(v.max), signed(v.q, v.slopePerHour),
		signed(v.q, v.rise), v.q.fmtValue(v.limit), v.q.rule(), state)
}

func signed(q quantity, x float64) string {
	s := q.fmtValue(x)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}
