// Command soak runs the exporter for a bounded time on a simulated account
// with faults switching on and off and 10 concurrent scrapers, and fails
// when the exporter grows: goroutines, Go heap, RSS or open file
// descriptors.
//
// The exporter runs as users run it: the built binary, `serve` against the
// simulated account served by this process on a loopback port (12 tables of
// 2 GSIs, mixed capacity modes, auto-scaling and TTL), with short cadences
// (discovery, tables, auto scaling and TTL every 10s, CloudWatch every
// minute, capacity every 5m) and a 2s call timeout, so that a run goes
// through many collection cycles. After the first capacity cycle and a
// warm-up, the schedule begins with a quiet phase, then switches on each
// fault in turn (CloudWatch throttling; DynamoDB and Auto Scaling 5xx;
// answers slower than the call timeout; AccessDenied on one table and on
// Auto Scaling; connections reset mid-body), each for -on with -off without
// fault after it. Meanwhile 10 scrapers get /metrics every -scrape-every,
// each in the next of text, text gzip, OpenMetrics, OpenMetrics gzip and
// protobuf; every answer must be a 200 in the format asked.
//
// Every -sample the soak reads go_goroutines, go_memstats_heap_alloc_bytes
// and go_memstats_next_gc_bytes from /metrics, and VmRSS and the entries of
// /proc/<pid>/fd; it reports each figure at the start and the end, its
// maximum and its least-squares slope per hour, and judges it (growth.go
// states and justifies the limits). It exits 1 on growth, on a failed
// scrape, on an exporter that exits or does not stop cleanly on SIGTERM.
//
// Usage:
//
//	go run ./cmd/soak -duration 30m
//	go run ./cmd/soak -duration 30m -doc docs/reliability.md
//
// -doc writes the figures as the soak section of that file (after the
// soakMarker line, replacing what follows it); the fault matrix generator
// keeps that section.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	o := defaults()
	var doc string
	flag.DurationVar(&o.duration, "duration", o.duration, "run time after the warm-up (the fault schedule and its final quiet phase)")
	flag.DurationVar(&o.warmup, "warmup", o.warmup, "warm-up after the first capacity cycle, scrapers running, no fault")
	flag.DurationVar(&o.on, "on", o.on, "how long each fault stays on")
	flag.DurationVar(&o.off, "off", o.off, "how long without a fault before the first fault and after each")
	flag.DurationVar(&o.sampleEvery, "sample", o.sampleEvery, "sampling interval")
	flag.DurationVar(&o.window, "window", o.window, "window at each end of the run over which the floors are taken (at most -off)")
	flag.IntVar(&o.scrapers, "scrapers", o.scrapers, "concurrent scrapers")
	flag.DurationVar(&o.scrapeEvery, "scrape-every", o.scrapeEvery, "interval between two scrapes of one scraper")
	flag.IntVar(&o.tables, "tables", o.tables, "tables of the simulated account (2 GSIs each)")
	flag.StringVar(&o.exporter, "exporter", "", "exporter binary (default: go build the module into a temporary directory)")
	flag.StringVar(&doc, "doc", "", "write the figures as the soak section of this Markdown file")
	flag.Parse()
	if o.window > o.off {
		o.window = o.off
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		os.Exit(1)
	}
	fmt.Print(r.text())
	if doc != "" {
		if err := writeSection(doc, r.markdown()); err != nil {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
			os.Exit(1)
		}
	}
	if problems := r.problems(); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "soak: FAILED:\n  %s\n", strings.Join(problems, "\n  "))
		os.Exit(1)
	}
}

// defaults are the long form's options.
func defaults() options {
	return options{
		duration:    30 * time.Minute,
		warmup:      2 * time.Minute,
		on:          3 * time.Minute,
		off:         2 * time.Minute,
		sampleEvery: 10 * time.Second,
		window:      time.Minute,
		scrapers:    10,
		scrapeEvery: time.Second,
		tables:      12,
		history:     "2d",
		callTimeout: 2 * time.Second,
		cadence:     10 * time.Second,
		moduleDir:   ".",
		readyWithin: 5 * time.Minute,
		log:         os.Stderr,
	}
}

// problems lists what fails the soak: growth beyond a limit, a failed
// scrape, a fault that no request met, an unclean exit.
func (r *report) problems() []string {
	var out []string
	for _, v := range failed(r.verdicts) {
		out = append(out, "growth: "+v.String())
	}
	if r.scrapes.errs > 0 {
		out = append(out, fmt.Sprintf("%d scrapes failed, e.g. %s", r.scrapes.errs, strings.Join(r.scrapes.firstErrs, "; ")))
	}
	for _, p := range r.phases {
		if p.name != "no fault" && p.hits == 0 {
			out = append(out, fmt.Sprintf("fault %q met no request: the schedule did not test it", p.name))
		}
	}
	if r.exit != nil {
		out = append(out, fmt.Sprintf("exit after SIGTERM: %v, want status 0", r.exit))
	}
	// Every collector runs at least every minute: after a final quiet
	// phase of 2 minutes or more each has succeeded again.
	if last := r.phases[len(r.phases)-1]; last.dur >= 2*time.Minute && len(r.notSuccess) > 0 {
		out = append(out, fmt.Sprintf("collectors %v not successful %s after the last fault", r.notSuccess, last.dur))
	}
	return out
}

// text is the report for a terminal.
func (r *report) text() string {
	var b strings.Builder
	n, med, p99, mx := r.scrapes.summary()
	fmt.Fprintf(&b, "soak: %s after a %s warm-up (ready after %s), %d samples every %s\n", r.o.duration, r.o.warmup, r.ready.Round(time.Second), len(r.samples), r.o.sampleEvery)
	for _, p := range r.phases {
		fmt.Fprintf(&b, "  %-46s %8s  %d requests faulted\n", p.name, p.dur, p.hits)
	}
	fmt.Fprintf(&b, "scrapes: %d ok, %d failed; median %s, p99 %s, max %s\n", n, r.scrapes.errs, med.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), mx.Round(time.Millisecond))
	fmt.Fprintf(&b, "AWS errors counted by the exporter, by code: %v\n", r.awsErrors)
	fmt.Fprintf(&b, "collectors not successful at the end: %v; exit after SIGTERM: %v in %s\n", r.notSuccess, exitText(r.exit), r.exitAfter.Round(time.Millisecond))
	for _, v := range r.verdicts {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

func exitText(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// soakMarker starts the soak section of docs/reliability.md: -doc replaces
// everything after it, and the fault matrix generator keeps it.
const soakMarker = "<!-- soak: written by go run ./cmd/soak -doc docs/reliability.md; kept by TestFaultMatrix -update -->"

// markdown is the soak section.
func (r *report) markdown() string {
	var b strings.Builder
	n, med, p99, mx := r.scrapes.summary()
	b.WriteString("## Soak\n\n")
	fmt.Fprintf(&b, "`go run ./cmd/soak -duration %s` (cmd/soak) ran the built exporter (`serve`) for %s after a %s warm-up against a\n", r.o.duration, r.o.duration, r.o.warmup)
	fmt.Fprintf(&b, "simulated account of %d tables with 2 GSIs each, with discovery, tables, auto scaling and TTL every %s, CloudWatch every\n", r.o.tables, r.o.cadence)
	fmt.Fprintf(&b, "minute, capacity every 5m and a %s call timeout, while %d scrapers got `/metrics` every %s each, in turn as text,\n", r.o.callTimeout, r.o.scrapers, r.o.scrapeEvery)
	b.WriteString("text gzip, OpenMetrics, OpenMetrics gzip and protobuf. Faults switched on and off:\n\n")
	b.WriteString("| Phase | Duration | Requests faulted |\n|---|---|---|\n")
	for _, p := range r.phases {
		fmt.Fprintf(&b, "| %s | %s | %d |\n", p.name, fmtDuration(p.dur), p.hits)
	}
	fmt.Fprintf(&b, "\nScrapes: %d answered, %d failed; median %s, p99 %s, max %s (a machine shared with other jobs).\n",
		n, r.scrapes.errs, med.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), mx.Round(time.Millisecond))
	fmt.Fprintf(&b, "AWS errors the exporter counted, by code: %s. Collectors failing at the end: %d. SIGTERM: %s after %s.\n\n",
		codes(r.awsErrors), len(r.notSuccess), exitText(r.exit), r.exitAfter.Round(time.Millisecond))
	fmt.Fprintf(&b, "Sampled every %s after the warm-up (%d samples). Goroutines and descriptors are judged on their floor (the\n", r.o.sampleEvery, len(r.samples))
	fmt.Fprintf(&b, "minimum over the first and the last %s, both without fault), the memory figures on their least-squares trend\n", fmtDuration(min(r.o.window, r.o.off)))
	b.WriteString("(cmd/soak/growth.go states why these limits):\n\n")
	b.WriteString("| Figure | Start | End | Max | Slope per hour | Judged rise | Limit | Result |\n|---|---|---|---|---|---|---|---|\n")
	for _, v := range r.verdicts {
		res := "ok"
		if !v.ok {
			res = "**growth**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s (%s) | %s |\n", v.q.name, v.q.fmtValue(v.start), v.q.fmtValue(v.end), v.q.fmtValue(v.max),
			signed(v.q, v.slopePerHour), signed(v.q, v.rise), v.q.fmtValue(v.limit), v.q.rule(), res)
	}
	b.WriteString("\nThe samples along the run:\n\n| Time after warm-up | Goroutines | Go heap | Heap goal | RSS | Open fds |\n|---|---|---|---|---|---|\n")
	for _, s := range r.trend(6) {
		fmt.Fprintf(&b, "| %s | %.0f | %.1f MiB | %.1f MiB | %.1f MiB | %.0f |\n", fmtDuration(s.at.Sub(r.samples[0].at)), s.goroutines, s.heap/mib, s.heapGoal/mib, s.rss/mib, s.fds)
	}
	fmt.Fprintf(&b, "\nRun on %s (%d CPUs, %s), %s. The short form (`go test ./cmd/soak`, about 80 s with the faults\n", cpuModel(), runtime.NumCPU(), runtime.Version(), r.started.UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString("compressed to 11 s each) runs in CI with the same limits and fails on growth.\n")
	return b.String()
}

// trend returns n+1 samples evenly spread from the first to the last.
func (r *report) trend(n int) []sample {
	var out []sample
	for i := 0; i <= n && len(r.samples) > 0; i++ {
		out = append(out, r.samples[i*(len(r.samples)-1)/n])
	}
	return out
}

func codes(m map[string]float64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func fmtDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// writeSection replaces what follows soakMarker in the file at path with
// section (appending the marker when the file has none).
func writeSection(path, section string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	head, _, _ := strings.Cut(string(b), soakMarker)
	head = strings.TrimRight(head, "\n") + "\n\n"
	return os.WriteFile(path, []byte(head+soakMarker+"\n\n"+section), 0o644)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
