// Command bench measures the exporter at scale from outside, the way a user
// would: the exporter runs in its own process (`dynamodb_exporter serve
// --endpoint.*`, default configuration, production cadences) against a
// simulated AWS account served by this process on a loopback port, with N
// tables of 2 GSIs each (mixed capacity modes, auto-scaling on some, TTL on
// some) and a per-call latency injected. For each size it reports:
//
//   - time to first full data: the first successful cycle of every
//     collector (discovery, tables, auto-scaling, CloudWatch, capacity,
//     TTL), each one's time;
//   - CloudWatch: metrics requested per hour and per table-hour,
//     GetMetricData and ListMetrics requests per hour and their monthly
//     cost, counted by the simulated account over a quiet window that holds
//     whole cycles of every cadence up to -window (the hourly capacity
//     refresh, when longer, as the exporter's own plan states it);
//   - DynamoDB and Application Auto Scaling control-plane calls per hour, by
//     action, and the read units the TTL sampler's Scans were charged;
//   - RSS (steady, after scrape bursts, peak) and Go heap (steady, peak
//     sampled, from the exporter's go_memstats metrics);
//   - CPU per minute of collection (the quiet window, no scrapes);
//   - /metrics median and p99 with C concurrent scrapers per format (text,
//     text gzip, OpenMetrics, protobuf), bytes per scrape;
//   - series, and series per table by family against the budget.
//
// Every figure with a target (targets.go) is checked at every size: the
// command exits with status 1 naming each target missed and by how much,
// unless -targets=false.
//
// Usage:
//
//	go run ./cmd/bench -tables 10,100
//	go run ./cmd/bench -tables 10,100 -o docs/performance.md
//
// -o rewrites the figures section of the file, between the markers
// `<!-- bench:begin -->` and `<!-- bench:end -->`, keeping the rest.
//
// The simulated account keeps -history of per-minute data per table in
// memory, which bounds the largest size this machine can run.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

type options struct {
	sizes       []int
	history     string
	concurrency int
	scrapes     int
	window      time.Duration
	latency     time.Duration
	timeout     time.Duration
	exporter    string
	out         string
	targets     bool
	profiles    string // directory for heap profiles, "" for none
	args        string // the command line, for the report
}

// defaultWindow is the quiet window the bench counts requests over by
// default: one whole cycle of the CloudWatch slow tier (10m), and so of
// every shorter cadence.
const defaultWindow = 10 * time.Minute

func main() {
	var o options
	var sizes string
	flag.StringVar(&sizes, "tables", "10,100", "comma-separated table counts to measure (2 GSIs each)")
	flag.StringVar(&o.history, "history", "90d", "history the simulated account holds per table")
	flag.IntVar(&o.concurrency, "scrapers", 10, "concurrent scrapers")
	flag.IntVar(&o.scrapes, "scrapes", 20, "scrapes per scraper and format")
	flag.DurationVar(&o.window, "window", defaultWindow, "quiet window over which AWS requests and CPU are counted: a whole number of cycles of every cadence it covers, at least the 10-minute ones (the CloudWatch slow tier: 10m, 20m, … 1h, 2h, …)")
	flag.DurationVar(&o.latency, "latency", 50*time.Millisecond, "latency the simulated account adds to every call")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "longest wait for the first cycle of every collector")
	flag.StringVar(&o.exporter, "exporter", "", "exporter binary (default: go build the module into a temporary directory)")
	flag.StringVar(&o.out, "o", "", "write the figures into this Markdown file, between its bench markers (a new file holds the figures only)")
	flag.BoolVar(&o.targets, "targets", true, "exit with status 1 when a target is missed at a size (false: report only)")
	flag.StringVar(&o.profiles, "heap-profiles", "", "write the exporter's heap profiles into this directory, heap-<tables>-{peak,first,steady,burst}.pb.gz (builds the exporter with -tags heapprofile; see heapprofile.go)")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-tables: %q is not a positive table count", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if _, err := checkWindow(o.window, cadences()); err != nil {
		fatalf("%v", err)
	}
	o.args = strings.Join(append([]string{"go run ./cmd/bench"}, os.Args[1:]...), " ")
	missed, err := run(o)
	if err != nil {
		fatalf("%v", err)
	}
	if missed > 0 && o.targets {
		fmt.Fprintf(os.Stderr, "bench: %d target(s) missed (see above; -targets=false reports only)\n", missed)
		os.Exit(1)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(2)
}

// run measures every size and returns how many targets were missed.
func run(o options) (int, error) {
	dir, err := os.MkdirTemp("", "dynamodb-exporter-bench")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if o.exporter == "" {
		o.exporter = filepath.Join(dir, "dynamodb_exporter")
		logf("building the exporter")
		args := []string{"build", "-o", o.exporter}
		if o.profiles != "" {
			args = append(args, "-tags", "heapprofile")
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("go build: %w", err)
		}
	}
	var results []result
	for _, n := range o.sizes {
		r, err := measure(o, n, dir)
		if err != nil {
			return 0, fmt.Errorf("%d tables: %w", n, err)
		}
		results = append(results, r)
		fmt.Print(r.text())
	}
	vs := evaluate(targets, results)
	fmt.Println("\nTargets (issues 13 and 24):")
	for _, v := range vs {
		mark := "ok    "
		if v.missed() {
			mark = "MISSED"
		}
		fmt.Printf("  %s %s\n", mark, v)
	}
	section := figures(o, results, vs, machine())
	if o.out != "" {
		if err := writeFigures(o.out, section); err != nil {
			return 0, err
		}
		logf("figures written to %s", o.out)
	}
	return len(misses(vs)), nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func tableName(i int) string { return sim.ScaleTableName("bench", i) }

func hasTTL(i int) bool { return sim.ScaleTableHasTTL(i) }

// format is one exposition format a scraper negotiates.
type format struct {
	name, accept string
	gzip         bool
}

var formats = []format{
	{"text", "text/plain;version=0.0.4", false},
	{"text+gzip", "text/plain;version=0.0.4", true},
	{"OpenMetrics", "application/openmetrics-text;version=1.0.0", false},
	{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", false},
}

type latency struct {
	format      string
	gzip        bool
	median, p99 time.Duration
	bytes       int
}

// result is one size's figures.
type result struct {
	tables int
	// The simulated account.
	simBuild time.Duration
	simHeap  uint64
	// firstSuccess is each collector's first successful cycle, since the
	// exporter started; firstData the last of them.
	firstSuccess map[string]time.Duration
	firstData    time.Duration
	// firstOldPoints and firstRecentPoints are the datapoints GetMetricData
	// answered until the first capacity cycle was done, by CloudWatch's
	// two DPS quotas (StartTime more than three hours old, or not).
	firstOldPoints, firstRecentPoints int64
	// Memory: RSS after the first full data, in steady state (after the
	// quiet window), after the scrape bursts and at its peak (VmHWM at
	// the end); Go heap in use in steady state and the most sampled.
	rssFirst, rssSteady, rssBurst, hwmFirst, hwm uint64
	heapSteady, heapPeak                         float64
	lat                                          []latency
	series                                       seriesCount
	cw                                           cloudWatch
	// actions are the control-plane calls per hour, by "Service Operation".
	actions map[string]float64
	// TTL sampler: Scan calls and read units per hour.
	scansPerHour, ttlReadUnitsPerHour float64
	cpuPerMinute                      time.Duration
}

func measure(o options, n int, dir string) (result, error) {
	r := result{tables: n, firstSuccess: map[string]time.Duration{}}
	sc, err := sim.LoadScenario([]byte(sim.ScaleScenario("bench", n, o.history)))
	if err != nil {
		return r, fmt.Errorf("bench scenario: %w", err)
	}
	logf("%d tables: simulating %s of history", n, o.history)
	runtime.GC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	t0 := time.Now()
	srv := awssim.New(awssim.WithClock(clock.Real{}), awssim.WithLogger(slog.New(slog.DiscardHandler)))
	if _, err := sim.New(sc, srv, clock.Real{}); err != nil {
		return r, err
	}
	if err := srv.Start(); err != nil {
		return r, err
	}
	defer srv.Close()
	r.simBuild = time.Since(t0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.simHeap = ms.HeapAlloc - min(ms.HeapAlloc, ms0.HeapAlloc)
	logf("%d tables: simulated account ready in %s (heap %s)", n, r.simBuild.Round(time.Millisecond), mib(r.simHeap))
	srv.SetLatency("", "", o.latency)
	// CloudWatch's datapoint quotas, as AWS sets them by default: the
	// first history fetch is as fast as they allow, and the exporter's own
	// default pace keeps under them.
	srv.SetDatapointQuota(awssim.OldDatapointQuota, awssim.RecentDatapointQuota)

	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte("accounts:\n  - name: bench\n    regions: [us-east-1]\n"), 0o644); err != nil {
		return r, err
	}
	addr, err := freeAddr()
	if err != nil {
		return r, err
	}
	u := srv.URL()
	endpoints := []string{"--config=" + cfg, "--endpoint.dynamodb=" + u, "--endpoint.cloudwatch=" + u, "--endpoint.application-autoscaling=" + u, "--endpoint.sts=" + u}
	env := append(os.Environ(), "AWS_ACCESS_KEY_ID=BENCHACCESSKEY", "AWS_SECRET_ACCESS_KEY=bench-secret-not-real", "AWS_REGION=us-east-1")
	cmd := exec.Command(o.exporter, append([]string{"serve", "--web.listen-address=" + addr}, endpoints...)...)
	cmd.Env = env
	if o.profiles != "" {
		cmd.Env = append(cmd.Env, "DYNAMODB_EXPORTER_HEAP_PROFILES="+filepath.Join(o.profiles, fmt.Sprintf("heap-%d-", n)))
	}
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("exporter-%d.log", n)))
	if err != nil {
		return r, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	srv.ResetRequests()
	old0, recent0 := srv.DatapointsServed()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	pid := cmd.Process.Pid
	url := "http://" + addr + "/metrics"

	// First full data: every collector has succeeded once.
	var last selfState
	for {
		if time.Since(start) > o.timeout {
			return r, fmt.Errorf("collectors without a successful cycle after %s: %s (log: %s)", o.timeout, strings.Join(last.pending(), ", "), logFile.Name())
		}
		time.Sleep(time.Second)
		body, err := getText(url)
		if err != nil {
			continue
		}
		last = readSelf(body)
		r.heapPeak = max(r.heapPeak, last.heapInUse)
		for c, ok := range last.succeeded {
			if _, seen := r.firstSuccess[c]; ok && !seen {
				r.firstSuccess[c] = time.Since(start)
				if c == "capacity" {
					old, recent := srv.DatapointsServed()
					r.firstOldPoints, r.firstRecentPoints = old-old0, recent-recent0
				}
				logf("%d tables: first %s cycle done after %s", n, c, r.firstSuccess[c].Round(time.Second))
			}
		}
		if len(last.succeeded) > 0 && len(last.pending()) == 0 {
			break
		}
	}
	r.firstData = time.Since(start)
	r.rssFirst, _ = procStatus(pid, "VmRSS")
	r.hwmFirst, _ = procStatus(pid, "VmHWM")
	heapProfile(o, n, pid, 1, "first")
	first := count(srv.Requests(), start, time.Now())
	r.cw.firstFetchMetrics, r.cw.firstFetchRequests = first.gmdMetrics, first.gmdRequests
	logf("%d tables: every collector done in %s, RSS %s (peak %s)", n, r.firstData.Round(time.Second), mib(r.rssFirst), mib(r.hwmFirst))

	// The quiet window starts as a CloudWatch cycle ends, so that it holds
	// whole cycles; it runs half a cycle longer so the last one's requests
	// are in, and the count extrapolates over the window itself. No scrape
	// runs in it: CPU is the collectors'.
	cwDone := last.lastSuccess["cloudwatch"]
	for wait := time.Now(); time.Since(wait) < 2*config.DefaultCloudWatchInterval; {
		time.Sleep(time.Second)
		body, err := getText(url)
		if err != nil {
			continue
		}
		s := readSelf(body)
		r.heapPeak = max(r.heapPeak, s.heapInUse)
		if s.lastSuccess["cloudwatch"] != cwDone {
			break
		}
	}
	w0 := time.Now()
	cpu0, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	span := o.window + config.DefaultCloudWatchInterval/2
	logf("%d tables: counting requests and CPU over %s", n, o.window)
	time.Sleep(span)
	cpu1, _ := cpuTime(pid)
	r.cpuPerMinute = time.Duration(float64(cpu1-cpu0) / span.Minutes())
	recs := srv.Requests()
	win := count(recs, w0, w0.Add(span))
	r.cw.window = o.window
	r.cw.metrics = perHour(float64(win.gmdMetrics), o.window)
	r.cw.requests = perHour(float64(win.gmdRequests), o.window)
	r.cw.listMetrics = perHour(float64(win.listMetrics), o.window)
	r.actions = map[string]float64{}
	for a, c := range win.actions {
		r.actions[a] = perHour(float64(c), o.window)
	}
	// The TTL sampler samples each table at most hourly: count its Scans
	// since the start.
	all := count(recs, start, time.Now())
	every := true
	for i := range n {
		if hasTTL(i) && !all.scanned[tableName(i)] {
			every = false
		}
	}
	elapsed := time.Since(start)
	r.ttlReadUnitsPerHour = ttlReadUnitsPerHour(all.readUnits, elapsed, config.DefaultTTLTableInterval, every)
	r.scansPerHour = ttlReadUnitsPerHour(float64(all.scans), elapsed, config.DefaultTTLTableInterval, every)

	r.rssSteady, _ = procStatus(pid, "VmRSS")
	heapProfile(o, n, pid, 2, "steady")
	body, err := getText(url)
	if err != nil {
		return r, err
	}
	r.series = countSeries(body)
	s := readSelf(body)
	r.heapSteady = s.heapInUse
	r.heapPeak = max(r.heapPeak, s.heapInUse)

	// The capacity history refresh, when hourly, is outside the window:
	// take it from the exporter's own plan.
	if o.window >= config.DefaultCapacityInterval {
		r.cw.refreshSource = "counted in the window"
	} else {
		chk := exec.Command(o.exporter, append([]string{"check"}, endpoints...)...)
		chk.Env = env
		out, _ := chk.CombinedOutput() // check fails on nothing here; its plan is what matters
		req, met, err := parseRefresh(string(out))
		if err != nil {
			logf("%d tables: capacity refresh unknown: %v", n, err)
			r.cw.refreshSource = "unknown: " + err.Error()
		} else {
			r.cw.refreshRequests, r.cw.refreshMetrics = req, met
			r.cw.refreshSource = "the exporter's plan (dynamodb_exporter check)"
		}
	}

	// Scrape bursts, format by format.
	for _, f := range formats {
		l, err := burst(url, f, o.concurrency, o.scrapes)
		if err != nil {
			return r, fmt.Errorf("%s scrapes: %w", f.name, err)
		}
		r.lat = append(r.lat, l)
		logf("%d tables: %s median %s p99 %s", n, f.name, l.median, l.p99)
	}
	r.rssBurst, _ = procStatus(pid, "VmRSS")
	r.hwm, _ = procStatus(pid, "VmHWM")
	heapProfile(o, n, pid, 3, "burst")
	if body, err := getText(url); err == nil {
		r.heapPeak = max(r.heapPeak, readSelf(body).heapInUse)
	}
	return r, nil
}

// heapProfile asks the exporter for its seq-th heap profile (SIGUSR1, with
// -heap-profiles only) and names it heap-<n>-<stage>.pb.gz.
func heapProfile(o options, n, pid, seq int, stage string) {
	if o.profiles == "" {
		return
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		logf("%d tables: heap profile %s: %v", n, stage, err)
		return
	}
	from := filepath.Join(o.profiles, fmt.Sprintf("heap-%d-%d.pb.gz", n, seq))
	to := filepath.Join(o.profiles, fmt.Sprintf("heap-%d-%s.pb.gz", n, stage))
	for t := time.Now(); time.Since(t) < 30*time.Second; time.Sleep(200 * time.Millisecond) {
		if err := os.Rename(from, to); err == nil {
			logf("%d tables: heap profile %s", n, to)
			return
		}
	}
	logf("%d tables: heap profile %s: none written", n, stage)
}

// selfState is what the exporter's own metrics say.
type selfState struct {
	// collectors maps every collector to whether it has succeeded once;
	// lastSuccess holds its latest success time.
	succeeded   map[string]bool
	lastSuccess map[string]float64
	heapInUse   float64
}

// pending returns the collectors that have not succeeded yet, sorted.
func (s selfState) pending() []string {
	var out []string
	for c, ok := range s.succeeded {
		if !ok {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// readSelf reads the self-metrics of a text exposition: every collector
// has an errors counter from the start, and a last-success timestamp once
// it succeeded (per account and region: the bench has one).
func readSelf(body []byte) selfState {
	s := selfState{succeeded: map[string]bool{}, lastSuccess: map[string]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, labels, value, ok := parseSample(line)
		if !ok {
			continue
		}
		switch name {
		case "dynamodb_exporter_collector_errors_total":
			if c, ok := labelValue(labels, "collector"); ok && !s.succeeded[c] {
				s.succeeded[c] = false
			}
		case "dynamodb_exporter_collector_last_success_timestamp_seconds":
			if c, ok := labelValue(labels, "collector"); ok && value > 0 {
				s.succeeded[c] = true
				s.lastSuccess[c] = max(s.lastSuccess[c], value)
			}
		case "go_memstats_heap_inuse_bytes":
			s.heapInUse = value
		}
	}
	return s
}

// parseSample splits a text-format sample line.
func parseSample(line string) (name, labels string, value float64, ok bool) {
	if line == "" || line[0] == '#' {
		return "", "", 0, false
	}
	rest := line
	if i := strings.IndexByte(line, '{'); i >= 0 {
		j := strings.LastIndexByte(line, '}')
		if j < i {
			return "", "", 0, false
		}
		name, labels, rest = line[:i], line[i+1:j], line[j+1:]
	} else {
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			return "", "", 0, false
		}
		name, rest = line[:sp], line[sp:]
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", "", 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return name, labels, v, err == nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

var client = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}

// get scrapes url in format f and returns the body as sent.
func get(url string, f format) ([]byte, error) {
	var body bytes.Buffer
	if _, err := scrape(url, f, &body, nil); err != nil {
		return nil, err
	}
	return body.Bytes(), nil
}

// scrape scrapes url in format f into w through buf (nil: w's own
// buffering) and returns the bytes received. A scrape burst receives into
// io.Discard through a buffer of its own, so that its latencies are the
// exporter's and the wire's, not the bench process's allocations: this
// process also holds the simulated account (1.3 GiB at 1,000 tables), and
// growing a 13 MB body with io.ReadAll in it measured 3 times slower than
// receiving it (152 ms against 52 ms median for a static 13.6 MB body,
// 10 readers, this machine).
func scrape(url string, f format, w io.Writer, buf []byte) (int64, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", f.accept)
	if f.gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var n int64
	if buf != nil {
		n, err = io.CopyBuffer(struct{ io.Writer }{w}, resp.Body, buf) // the struct hides io.Discard's ReaderFrom and its 8 KB reads
	} else {
		n, err = io.Copy(w, resp.Body)
	}
	if err != nil {
		return n, err
	}
	if resp.StatusCode != http.StatusOK {
		return n, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if f.gzip && resp.Header.Get("Content-Encoding") != "gzip" {
		return n, errors.New("asked for gzip, got " + resp.Header.Get("Content-Encoding"))
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, fmt.Errorf("GET %s: %d bytes received, Content-Length %d", url, n, resp.ContentLength)
	}
	return n, nil
}

// getText scrapes the text format, gzipped on the wire (the cheapest for
// the exporter to send while the bench polls it).
func getText(url string) ([]byte, error) {
	b, err := get(url, formats[1])
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// burst runs c scrapers of k scrapes each and returns the latencies.
func burst(url string, f format, c, k int) (latency, error) {
	type obs struct {
		d   time.Duration
		n   int
		err error
	}
	ch := make(chan obs, c*k)
	for range c {
		go func() {
			buf := make([]byte, 256<<10)
			for range k {
				t := time.Now()
				n, err := scrape(url, f, io.Discard, buf)
				ch <- obs{time.Since(t), int(n), err}
			}
		}()
	}
	var ds []time.Duration
	l := latency{format: f.name, gzip: f.gzip}
	var firstErr error
	for range c * k {
		o := <-ch
		if o.err != nil {
			firstErr = cmpErr(firstErr, o.err)
			continue
		}
		ds = append(ds, o.d)
		l.bytes = o.n
	}
	if firstErr != nil {
		return l, firstErr
	}
	l.median, l.p99 = quantiles(ds)
	return l, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// quantiles returns the median and the 99th percentile (nearest rank) of ds.
func quantiles(ds []time.Duration) (median, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1 // nearest rank: ceil(q·n)
		return s[min(max(i, 0), len(s)-1)]
	}
	return rank(0.5), rank(0.99)
}

// procStatus returns a kB field of /proc/pid/status in bytes.
func procStatus(pid int, field string) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// cpuTime returns the user and system CPU time of a process.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)             // field 14 of proc(5)
	st, _ := strconv.ParseInt(f[12], 10, 64)             // field 15
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", mibf(b)) }
