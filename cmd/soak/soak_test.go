package main

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// series builds samples every step over dur: a steady exporter (the
// figures of a real short run, with the garbage collector's saw-tooth and
// transient goroutines and connections) plus leak(t) added to the figure
// set by apply.
func series(dur, step time.Duration, apply func(s *sample, hours float64)) []sample {
	t0 := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	var out []sample
	for i := 0; time.Duration(i)*step <= dur; i++ {
		at := t0.Add(time.Duration(i) * step)
		phase := math.Mod(float64(i), 7) / 7 // a collection every 7 samples
		s := sample{
			at:         at,
			goroutines: 28 + float64((i*7)%19), // floor 28, up to 46 in flight
			heap:       9*mib + 6*mib*phase,
			heapGoal:   17*mib + float64(i%3)*0.5*mib,
			rss:        42*mib + float64(i%5)*0.8*mib,
			fds:        17 + float64(i%3),
		}
		apply(&s, at.Sub(t0).Hours())
		out = append(out, s)
	}
	return out
}

// TestGrowthDetector: the limits pass a steady exporter with realistic
// noise, short and long, and fail each kind of leak the soak is for.
func TestGrowthDetector(t *testing.T) {
	short, long := 80*time.Second, 40*time.Minute
	for _, c := range []struct {
		name      string
		dur, step time.Duration
		leak      func(s *sample, hours float64)
		want      string // the quantity that must fail; "" none
	}{
		{"steady short", short, time.Second, func(*sample, float64) {}, ""},
		{"steady long", long, 10 * time.Second, func(*sample, float64) {}, ""},
		// A goroutine per AWS call that failed: a few a minute.
		{"goroutine per failed call", long, 10 * time.Second, func(s *sample, h float64) { s.goroutines += math.Floor(h * 60 * 3) }, "goroutines"},
		// A connection never closed per scrape that timed out: one a minute.
		{"descriptor leak", long, 10 * time.Second, func(s *sample, h float64) { s.fds += math.Floor(h * 60) }, "open fds"},
		// A short run with a 20-second window: 12 goroutines leaked in 80s.
		{"goroutines short", short, time.Second, func(s *sample, h float64) { s.goroutines += math.Floor(h * 3600 / 6) }, "goroutines"},
		// 50 kB kept per scrape, 10 scrapes a second: 1.7 GiB an hour.
		{"heap per scrape", short, time.Second, func(s *sample, h float64) {
			s.heap += h * 3600 * 500e3
			s.heapGoal += 2 * h * 3600 * 500e3
			s.rss += 2 * h * 3600 * 500e3
		}, "heap goal"},
		// 20 MiB of live heap an hour (about 2 kB per table per 10s cycle).
		{"slow heap leak", long, 10 * time.Second, func(s *sample, h float64) { s.heapGoal += 2 * 20 * mib * h }, "heap goal"},
		{"RSS leak", long, 10 * time.Second, func(s *sample, h float64) { s.rss += 40 * mib * h }, "RSS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs, err := judge(series(c.dur, c.step, c.leak), min(20*time.Second, c.dur/4))
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, v := range failed(vs) {
				bad = append(bad, v.q.name)
			}
			if c.want == "" && len(bad) > 0 {
				t.Errorf("a steady exporter judged growing: %v", failed(vs))
			}
			if c.want != "" && !strings.Contains(strings.Join(bad, ","), c.want) {
				t.Errorf("the leak of %s was not caught; verdicts:\n%v", c.want, vs)
			}
		})
	}
	if _, err := judge(series(3*time.Second, time.Second, func(*sample, float64) {}), 2*time.Second); err == nil {
		t.Errorf("judge accepted 2s windows at each end of 3s of samples")
	}
}

// TestSlope: the least-squares slope of a line is its slope, whatever
// noise uncorrelated with time is added to it.
func TestSlope(t *testing.T) {
	xs := []float64{0, 1, 2, 3, 4, 5}
	ys := []float64{1.5, 2.5, 5, 7, 8.5, 11.5} // 1+2x, noise +.5 -.5 0 0 -.5 +.5
	if got := slope(xs, ys); math.Abs(got-2) > 1e-9 {
		t.Errorf("slope %v, want about 2", got)
	}
	if got := slope([]float64{1, 1}, []float64{0, 5}); got != 0 {
		t.Errorf("slope of a vertical line %v, want 0 (no trend measurable)", got)
	}
}

// TestSchedule: the schedule starts and ends without a fault, goes through
// every fault, and lasts exactly the run time.
func TestSchedule(t *testing.T) {
	for _, c := range []struct{ total, on, off time.Duration }{
		{80 * time.Second, 11 * time.Second, 4 * time.Second},
		{40 * time.Minute, 3 * time.Minute, 2 * time.Minute},
	} {
		ps := schedule(c.total, c.on, c.off)
		var sum time.Duration
		seen := map[string]bool{}
		for i, p := range ps {
			sum += p.dur
			if p.fault != nil {
				seen[p.fault.name] = true
				if i > 0 && ps[i-1].fault != nil {
					t.Errorf("%v: two faults in a row at phase %d", c, i)
				}
			}
		}
		if sum != c.total || ps[0].fault != nil || ps[len(ps)-1].fault != nil || ps[0].dur < c.off || ps[len(ps)-1].dur < c.off {
			t.Errorf("%v: schedule of %s, first %+v, last %+v", c, sum, ps[0], ps[len(ps)-1])
		}
		if len(seen) != len(soakFaults) {
			t.Errorf("%v: faults %v, want all %d", c, seen, len(soakFaults))
		}
	}
}

// TestWriteSection: -doc replaces the soak section and keeps what is
// before its marker.
func TestWriteSection(t *testing.T) {
	p := t.TempDir() + "/reliability.md"
	if err := os.WriteFile(p, []byte("# Matrix\n\nrows\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{"## Soak\n\nfirst\n", "## Soak\n\nsecond\n"} {
		if err := writeSection(p, sec); err != nil {
			t.Fatal(err)
		}
	}
	// TestFaultMatrix (faultmatrix_test.go) keeps the section from this
	// prefix of the marker on.
	if !strings.HasPrefix(soakMarker, "<!-- soak:") {
		t.Errorf("the marker %q does not start as TestFaultMatrix looks for it", soakMarker)
	}
	b, _ := os.ReadFile(p)
	if want := "# Matrix\n\nrows\n\n" + soakMarker + "\n\n## Soak\n\nsecond\n"; string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

// TestSoakShort is the soak's short form, run in CI: the built exporter
// for 80s with every fault on for 11s, 10 scrapers, sampled every second;
// it fails on growth beyond the soak's limits, on a failed scrape, a fault
// that met no request, or an unclean exit.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the exporter for 80s")
	}
	o := defaults()
	o.duration, o.warmup, o.on, o.off = 80*time.Second, 15*time.Second, 11*time.Second, 4*time.Second
	o.sampleEvery, o.window = time.Second, 4*time.Second
	o.moduleDir = "../.."
	o.log = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	r, err := run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.text())
	for _, p := range r.problems() {
		t.Error(p)
	}
	// The scrapers ran all along: 10 a second, less what a loaded machine
	// delays.
	if n, _, _, _ := r.scrapes.summary(); n < 400 {
		t.Errorf("%d scrapes in %s, want at least 400", n, o.duration+o.warmup)
	}
	if len(r.samples) < 40 {
		t.Errorf("%d samples, want at least 40", len(r.samples))
	}
}

// TestSoakCatchesALeak runs the soak's real pipeline (the process, the
// scrapers, the sampling through /metrics and /proc) against a stand-in
// for the exporter that leaks a goroutine, a descriptor and 64 KiB of heap
// per scrape (testdata/leaky): the soak must fail it on goroutines,
// descriptors, heap and RSS.
func TestSoakCatchesALeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a leaking server for 35s")
	}
	o := defaults()
	o.exporter = filepath.Join(t.TempDir(), "leaky")
	if out, err := exec.Command("go", "build", "-o", o.exporter, "./testdata/leaky").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	o.duration, o.warmup, o.on, o.off = 30*time.Second, 5*time.Second, 5*time.Second, 5*time.Second
	o.sampleEvery, o.window = time.Second, 5*time.Second
	o.log = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.text())
	var grew []string
	for _, v := range failed(r.verdicts) {
		grew = append(grew, v.q.name)
	}
	for _, want := range []string{"goroutines", "open fds", "heap goal", "RSS"} {
		if !slices.Contains(grew, want) {
			t.Errorf("the leak of %s went unnoticed (growth found in %v)", want, grew)
		}
	}
	if len(r.problems()) == 0 {
		t.Errorf("the soak passed a leaking exporter")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
