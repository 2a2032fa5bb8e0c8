// Command bench measures the exporter at scale from outside, the way a user
// would: the exporter runs in its own process (`dynamodb_exporter serve
// --endpoint.*`, default configuration, production cadences) against a
// simulated AWS account served by this process on a loopback port, with N
// tables of 2 GSIs each (mixed capacity modes, auto-scaling on some, TTL on
// some). For each size it reports:
//
//   - time to first full data (the first capacity cycle done);
//   - RSS of the exporter after the first capacity cycle and after a burst of
//     scrapes, and its peak (VmHWM);
//   - /metrics median and p99 with C concurrent scrapers, per format (text,
//     text gzip, OpenMetrics, protobuf), and bytes per scrape;
//   - series (samples of the text format);
//   - CloudWatch metrics requested per table-hour in steady state, counted
//     by the simulated account (GetMetricData queries) over a quiet window,
//     plus the hourly capacity refresh;
//   - exporter CPU per minute over that quiet window.
//
// Usage:
//
//	go run ./cmd/bench -tables 10,100
//	go run ./cmd/bench -tables 100 -o docs/performance.md
//
// The simulated account keeps -history of per-minute data per table in
// memory (about 20 MB per table for 90 days), which bounds the largest size
// this machine can run.
package main

import (
	"bufio"
	"bytes"
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
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

type options struct {
	sizes       []int
	history     string
	concurrency int
	scrapes     int
	window      time.Duration
	timeout     time.Duration
	exporter    string
	out         string
	latency     time.Duration
}

func main() {
	var o options
	var sizes string
	flag.StringVar(&sizes, "tables", "10,100", "comma-separated table counts to measure (2 GSIs each)")
	flag.StringVar(&o.history, "history", "90d", "history the simulated account holds per table")
	flag.IntVar(&o.concurrency, "scrapers", 10, "concurrent scrapers")
	flag.IntVar(&o.scrapes, "scrapes", 20, "scrapes per scraper and format")
	flag.DurationVar(&o.window, "window", 2*time.Minute, "quiet window over which CloudWatch requests and CPU are measured")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "longest wait for the first capacity cycle")
	flag.StringVar(&o.exporter, "exporter", "", "exporter binary (default: go build the module into a temporary directory)")
	flag.StringVar(&o.out, "o", "", "also write the figures as Markdown to this file")
	flag.DurationVar(&o.latency, "latency", 0, "latency injected in every call to the simulated account (e.g. 200ms), to measure the first capacity cycle as on real AWS")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-tables: %q is not a positive table count", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if err := run(o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "dynamodb-exporter-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.exporter == "" {
		o.exporter = filepath.Join(dir, "dynamodb_exporter")
		logf("building the exporter")
		cmd := exec.Command("go", "build", "-o", o.exporter, ".")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	var results []result
	for _, n := range o.sizes {
		r, err := measure(o, n, dir)
		if err != nil {
			return fmt.Errorf("%d tables: %w", n, err)
		}
		results = append(results, r)
		fmt.Print(r.text())
	}
	md := markdown(o, results)
	fmt.Println()
	fmt.Print(md)
	if o.out != "" {
		return os.WriteFile(o.out, []byte(md), 0o644)
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// scenario returns n tables with 2 GSIs each: every third on-demand, the
// others provisioned, half of those with auto-scaling; TTL on every tenth.
func scenario(n int, history string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: bench-%d\ndescription: %d tables with 2 GSIs for the bench\nhistory: %s\naccount:\n  regions: [us-east-1]\ntables:\n", n, n, history)
	for i := range n {
		read, write := 40+float64(i%17)*10, 15+float64(i%11)*5
		fmt.Fprintf(&b, "  - name: bench-%04d\n", i)
		as := ""
		if i%3 == 1 {
			as = "\n    auto_scaling:\n      read: {min: 10, max: 2000, target: 70}\n      write: {min: 5, max: 1000, target: 70}"
		}
		if i%3 == 2 {
			fmt.Fprintf(&b, "    billing: on_demand\n")
		} else {
			fmt.Fprintf(&b, "    billing: provisioned\n    capacity: {read: %g, write: %g}%s\n", read*2, write*2, as)
		}
		fmt.Fprintf(&b, "    traffic: {read: %g, write: %g, daily: 0.3, weekly: 0.2, noise: 0.05}\n", read, write)
		fmt.Fprintf(&b, "    gsis:\n")
		for _, g := range []string{"by-owner", "by-date"} {
			if i%3 == 2 {
				fmt.Fprintf(&b, "      - {name: %s, share: {read: 0.3, write: 1}}\n", g)
			} else {
				fmt.Fprintf(&b, "      - {name: %s, capacity: {read: %g, write: %g}, share: {read: 0.3, write: 1}}\n", g, read, write*2)
			}
		}
		if i%10 == 0 {
			fmt.Fprintf(&b, "    ttl:\n      attribute: expires_at\n      writes: {per_minute: 0.1, class: seconds, expires_in: 1d, from: -1d}\n")
		}
	}
	return b.String()
}

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
	median, p99 time.Duration
	bytes       int
}

type result struct {
	tables           int
	simBuild         time.Duration
	simHeap          uint64
	firstData        time.Duration
	rssReady         uint64
	heapReady        float64
	rssBurst, hwm    uint64
	lat              []latency
	series           int
	cwPerTableHour   float64
	capPerTableHour  float64
	firstFetch       int
	otherPerHour     float64
	cpuPerMinute     time.Duration
	window           time.Duration
	scrapersXscrapes string
}

func measure(o options, n int, dir string) (result, error) {
	r := result{tables: n, window: o.window, scrapersXscrapes: fmt.Sprintf("%d×%d", o.concurrency, o.scrapes)}
	sc, err := sim.LoadScenario([]byte(scenario(n, o.history)))
	if err != nil {
		return r, fmt.Errorf("bench scenario: %w", err)
	}
	logf("%d tables: simulating %s of history", n, o.history)
	t0 := time.Now()
	srv := awssim.New(awssim.WithClock(clock.Real{}), awssim.WithLogger(slog.New(slog.DiscardHandler)))
	if _, err := sim.New(sc, srv, clock.Real{}); err != nil {
		return r, err
	}
	if err := srv.Start(); err != nil {
		return r, err
	}
	defer srv.Close()
	if o.latency > 0 {
		srv.InjectFault(awssim.Fault{Delay: o.latency})
	}
	r.simBuild = time.Since(t0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.simHeap = ms.HeapAlloc
	logf("%d tables: simulated account ready in %s (heap %s)", n, r.simBuild.Round(time.Millisecond), mib(r.simHeap))

	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte("accounts:\n  - name: bench\n    regions: [us-east-1]\n"), 0o644); err != nil {
		return r, err
	}
	addr, err := freeAddr()
	if err != nil {
		return r, err
	}
	u := srv.URL()
	cmd := exec.Command(o.exporter, "serve", "--config="+cfg, "--web.listen-address="+addr,
		"--endpoint.dynamodb="+u, "--endpoint.cloudwatch="+u, "--endpoint.application-autoscaling="+u, "--endpoint.sts="+u)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=BENCHACCESSKEY", "AWS_SECRET_ACCESS_KEY=bench-secret-not-real", "AWS_REGION=us-east-1")
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("exporter-%d.log", n)))
	if err != nil {
		return r, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	srv.ResetRequests()
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

	// First full data: the capacity collector has succeeded once.
	for {
		if time.Since(start) > o.timeout {
			return r, fmt.Errorf("no capacity cycle after %s (log: %s)", o.timeout, logFile.Name())
		}
		time.Sleep(time.Second)
		body, err := get(url, formats[0])
		if err == nil && capacityDone(body) {
			break
		}
	}
	r.firstData = time.Since(start)
	r.firstFetch = queries(srv)
	r.rssReady, _ = procStatus(pid, "VmRSS")
	logf("%d tables: first capacity cycle done in %s, RSS %s", n, r.firstData.Round(time.Second), mib(r.rssReady))

	// Quiet window: CloudWatch requests and CPU in steady state.
	srv.ResetRequests()
	cpu0, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	time.Sleep(o.window)
	cpu1, _ := cpuTime(pid)
	hours := o.window.Hours()
	r.cwPerTableHour = float64(queries(srv)) / hours / float64(n)
	r.otherPerHour = float64(len(srv.Requests())-srv.RequestCount(awssim.ServiceCloudWatch, "GetMetricData")) / hours
	r.cpuPerMinute = time.Duration(float64(cpu1-cpu0) / o.window.Minutes())
	// The capacity collector refreshes hourly: one query per table or GSI
	// and dimension (the minutes since the last refresh).
	r.capPerTableHour = 6
	body, err := get(url, formats[0])
	if err != nil {
		return r, err
	}
	r.series = samples(body)
	r.heapReady = gauge(body, "go_memstats_heap_inuse_bytes")

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
	return r, nil
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
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", f.accept)
	if f.gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if f.gzip && resp.Header.Get("Content-Encoding") != "gzip" {
		return nil, errors.New("asked for gzip, got " + resp.Header.Get("Content-Encoding"))
	}
	return body, nil
}

// burst runs c scrapers of k scrapes each and returns the latencies.
func burst(url string, f format, c, k int) (latency, error) {
	type obs struct {
		d    time.Duration
		n    int
		err  error
		body []byte
	}
	ch := make(chan obs, c*k)
	for range c {
		go func() {
			for range k {
				t := time.Now()
				b, err := get(url, f)
				ch <- obs{time.Since(t), len(b), err, b}
			}
		}()
	}
	var ds []time.Duration
	l := latency{format: f.name}
	for range c * k {
		o := <-ch
		if o.err != nil {
			return l, o.err
		}
		ds = append(ds, o.d)
		l.bytes = o.n
	}
	slices.Sort(ds)
	l.median = ds[len(ds)/2]
	l.p99 = ds[min(len(ds)-1, len(ds)*99/100)]
	return l, nil
}

// capacityDone reports whether the text exposition shows a successful
// capacity cycle.
func capacityDone(body []byte) bool {
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "dynamodb_exporter_collector_last_success_timestamp_seconds{") && strings.Contains(line, `collector="capacity"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			return err == nil && v > 0
		}
	}
	return false
}

// samples counts the sample lines of a text exposition.
func samples(body []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := sc.Bytes(); len(l) > 0 && l[0] != '#' {
			n++
		}
	}
	return n
}

// gauge returns the value of an unlabelled sample.
func gauge(body []byte, name string) float64 {
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, name+" ") {
			v, _ := strconv.ParseFloat(strings.TrimPrefix(line, name+" "), 64)
			return v
		}
	}
	return 0
}

// queries returns the GetMetricData queries the account answered since its
// request log was last reset.
func queries(srv *awssim.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Service == awssim.ServiceCloudWatch && r.Operation == "GetMetricData" {
			n += r.Queries
		}
	}
	return n
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

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func (r result) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tables: simulated account %s (%s heap); first capacity cycle %s; RSS %s after it, %s after scrapes, peak %s; heap in use %s; series %d\n",
		r.tables, r.simBuild.Round(time.Millisecond), mib(r.simHeap), r.firstData.Round(time.Second), mib(r.rssReady), mib(r.rssBurst), mib(r.hwm), mib(uint64(r.heapReady)), r.series)
	for _, l := range r.lat {
		fmt.Fprintf(&b, "  /metrics %-11s median %8s p99 %8s  %d bytes\n", l.format, l.median.Round(10*time.Microsecond), l.p99.Round(10*time.Microsecond), l.bytes)
	}
	fmt.Fprintf(&b, "  CloudWatch metrics per table-hour: %.0f (1-minute collector over %s) + %.0f (hourly capacity refresh); first history fetch %d metrics; other AWS requests %.0f/h; CPU %s per minute\n",
		r.cwPerTableHour, r.window, r.capPerTableHour, r.firstFetch, r.otherPerHour, r.cpuPerMinute.Round(time.Millisecond))
	return b.String()
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

func markdown(o options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| tables | /metrics median / p99 (ms): text, text+gzip, OpenMetrics, protobuf | bytes (text / gzip) | RSS after first capacity cycle | RSS after scrapes (peak) | series | CloudWatch metrics per table-hour | first capacity cycle | CPU per minute |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		var lat []string
		for _, l := range r.lat {
			lat = append(lat, ms(l.median)+" / "+ms(l.p99))
		}
		fmt.Fprintf(&b, "| %d | %s | %d / %d | %s | %s (%s) | %d | %.0f + %.0f | %s | %s |\n",
			r.tables, strings.Join(lat, ", "), r.lat[0].bytes, r.lat[1].bytes, mib(r.rssReady), mib(r.rssBurst), mib(r.hwm), r.series,
			r.cwPerTableHour, r.capPerTableHour, r.firstData.Round(time.Second), r.cpuPerMinute.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "\nMeasured by `go run ./cmd/bench -tables %s` (%s scrapes per format, history %s, quiet window %s) on %s, %d CPUs, %s.\n",
		joinInts(o.sizes), rs[0].scrapersXscrapes, o.history, o.window, cpuModel(), runtime.NumCPU(), runtime.Version())
	return b.String()
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
