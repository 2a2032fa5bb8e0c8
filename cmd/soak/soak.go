package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// options configure one soak.
type options struct {
	duration    time.Duration // after the warm-up: the fault schedule and its final quiet phase
	warmup      time.Duration // after the first capacity cycle, before the first sample judged
	on, off     time.Duration // each fault's time on, and the time without fault around it
	sampleEvery time.Duration
	window      time.Duration // the floors are taken over this much at each end
	scrapers    int
	scrapeEvery time.Duration
	tables      int
	history     string
	callTimeout time.Duration
	cadence     time.Duration // discovery, tables, auto scaling and TTL collectors
	exporter    string        // binary; empty: go build moduleDir
	moduleDir   string
	readyWithin time.Duration
	log         io.Writer // progress lines
}

// report is what one soak measured.
type report struct {
	o          options
	samples    []sample // after the warm-up
	verdicts   []verdict
	phases     []phaseResult
	scrapes    *scrapeStats
	ready      time.Duration
	awsErrors  map[string]float64 // dynamodb_exporter_aws_request_errors_total by error_code at the end
	notSuccess []string           // collectors not successful at the end
	exit       error              // the exporter's exit after SIGTERM
	exitAfter  time.Duration
	started    time.Time
}

// phaseResult is one phase of the schedule as run.
type phaseResult struct {
	name string
	dur  time.Duration
	hits int64 // requests the fault applied to
}

func (o *options) logf(format string, args ...any) {
	if o.log != nil {
		fmt.Fprintf(o.log, "%s soak: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

// soakTable names table i of the soak's account.
func soakTable(i int) string { return fmt.Sprintf("soak-%03d", i) }

// scenario is n tables with 2 GSIs each: every third on-demand, the others
// provisioned, half of those with auto-scaling, every fourth with TTL.
func scenario(n int, history string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: soak\ndescription: %d tables for the soak\nhistory: %s\naccount:\n  regions: [us-east-1]\n  user_errors_per_minute: 0.2\ntables:\n", n, history)
	for i := range n {
		read, write := 40+float64(i%7)*10, 15+float64(i%5)*5
		fmt.Fprintf(&b, "  - name: %s\n", soakTable(i))
		if i%3 == 2 {
			fmt.Fprintf(&b, "    billing: on_demand\n")
		} else {
			fmt.Fprintf(&b, "    billing: provisioned\n    capacity: {read: %g, write: %g}\n", read*2, write*2)
			if i%3 == 1 {
				b.WriteString("    auto_scaling:\n      read: {min: 10, max: 2000, target: 70}\n      write: {min: 5, max: 1000, target: 70}\n")
			}
		}
		fmt.Fprintf(&b, "    traffic: {read: %g, write: %g, daily: 0.3, weekly: 0.2, noise: 0.1}\n", read, write)
		b.WriteString("    gsis:\n")
		for _, g := range []string{"by-owner", "by-date"} {
			if i%3 == 2 {
				fmt.Fprintf(&b, "      - {name: %s, share: {read: 0.3, write: 1}}\n", g)
			} else {
				fmt.Fprintf(&b, "      - {name: %s, capacity: {read: %g, write: %g}, share: {read: 0.3, write: 1}}\n", g, read, write*2)
			}
		}
		if i%4 == 0 {
			b.WriteString("    ttl:\n      attribute: expires_at\n      writes: {per_minute: 0.5, class: seconds, expires_in: 1h, from: -1d}\n")
		}
	}
	return b.String()
}

// exporterConfig is the exporter's configuration: the simulated endpoint,
// the short call timeout the delay fault exceeds, and short cadences so
// that a run goes through many collection cycles.
func exporterConfig(o options, url string) string {
	c := o.cadence.String()
	return fmt.Sprintf(`accounts:
  - name: soak
    regions: [us-east-1]
collectors:
  discovery: {interval: %[2]s}
  tables: {interval: %[2]s}
  autoscaling: {interval: %[2]s}
  cloudwatch: {interval: 1m, delay: 2m}
  ttl: {interval: %[2]s, table_interval: %[2]s}
  capacity: {interval: 5m}
aws:
  call_timeout: %[3]s
  endpoints: {dynamodb: %[1]q, cloudwatch: %[1]q, application_autoscaling: %[1]q, sts: %[1]q}
`, url, c, o.callTimeout)
}

// run soaks the exporter and returns what it measured; the verdicts say
// whether it grew. An error means the soak itself could not run, or the
// exporter failed in a way that is not growth (it exited, it refused a
// scrape).
func run(ctx context.Context, o options) (*report, error) {
	r := &report{o: o, scrapes: &scrapeStats{}, started: time.Now()}
	dir, err := os.MkdirTemp("", "dynamodb-exporter-soak")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if o.exporter == "" {
		o.exporter = filepath.Join(dir, "dynamodb_exporter")
		o.logf("building the exporter")
		cmd := exec.Command("go", "build", "-o", o.exporter, ".")
		cmd.Dir = o.moduleDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %w\n%s", err, out)
		}
	}

	sc, err := sim.LoadScenario([]byte(scenario(o.tables, o.history)))
	if err != nil {
		return nil, fmt.Errorf("soak scenario: %w", err)
	}
	srv := awssim.New(awssim.WithClock(clock.Real{}), awssim.WithLogger(slog.New(slog.DiscardHandler)))
	if _, err := sim.New(sc, srv, clock.Real{}); err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	defer srv.Close()

	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(exporterConfig(o, srv.URL())), 0o600); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "exporter.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(o.exporter, "serve", "--config="+cfg, "--web.listen-address="+addr, "--log.level=warn")
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=SOAKACCESSKEY", "AWS_SECRET_ACCESS_KEY=soak-secret-not-real",
		"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	fail := func(err error) (*report, error) {
		return r, fmt.Errorf("%w\nexporter log (last lines):\n%s", err, tail(logPath, 20))
	}
	pid := cmd.Process.Pid
	url := "http://" + addr + "/metrics"
	probe := newClient(10 * time.Second)
	defer probe.CloseIdleConnections()

	// Ready: the capacity collector (the first history fetch) succeeded.
	o.logf("exporter pid %d on %s; waiting for the first capacity cycle", pid, addr)
	for {
		select {
		case err := <-exited:
			stopped = true
			return fail(fmt.Errorf("the exporter exited before it was ready: %v", err))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(time.Second):
		}
		if time.Since(start) > o.readyWithin {
			return fail(fmt.Errorf("no capacity cycle within %s", o.readyWithin))
		}
		body, err := scrape(ctx, probe, url, formats[0])
		if v, _ := value(body, "dynamodb_exporter_collector_last_success_timestamp_seconds", `collector="capacity"`); err == nil && v > 0 {
			break
		}
	}
	r.ready = time.Since(start)
	o.logf("ready after %s; %d scrapers every %s, warm-up %s", r.ready.Round(time.Second), o.scrapers, o.scrapeEvery, o.warmup)

	sctx, stopScrapers := context.WithCancel(ctx)
	defer stopScrapers()
	waitScrapers := runScrapers(sctx, url, o.scrapers, o.scrapeEvery, r.scrapes)

	wait := func(d time.Duration) error {
		select {
		case err := <-exited:
			stopped = true
			return fmt.Errorf("the exporter exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if err := wait(o.warmup); err != nil {
		return fail(err)
	}

	// The sampler reads the process every sampleEvery from here on.
	var mu sync.Mutex
	var sampleErr error
	sampling, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		t := time.NewTicker(o.sampleEvery)
		defer t.Stop()
		for {
			s, err := read(sampling, probe, url, pid)
			mu.Lock()
			if err == nil {
				r.samples = append(r.samples, s)
			} else if sampling.Err() == nil && sampleErr == nil {
				sampleErr = err
			}
			mu.Unlock()
			select {
			case <-sampling.Done():
				return
			case <-t.C:
			}
		}
	}()

	for _, p := range schedule(o.duration, o.on, o.off) {
		pr := phaseResult{name: "no fault", dur: p.dur}
		var hits atomic.Int64
		off := func() {}
		if p.fault != nil {
			pr.name = p.fault.name
			off = inject(srv, p.fault, o.callTimeout, &hits)
		}
		o.logf("%s for %s", pr.name, p.dur)
		err := wait(p.dur)
		off()
		pr.hits = hits.Load()
		r.phases = append(r.phases, pr)
		// The request log is the soak's memory, not the exporter's: keep
		// it from growing.
		srv.ResetRequests()
		if err != nil {
			return fail(err)
		}
	}
	stopSampling()
	<-samplerDone
	stopScrapers()
	waitScrapers()
	if sampleErr != nil {
		return fail(fmt.Errorf("sampling the exporter: %w", sampleErr))
	}

	// What the exporter says at the end: errors it counted, collectors
	// that have not succeeded since the last fault.
	body, err := scrape(ctx, probe, url, formats[0])
	if err != nil {
		return fail(fmt.Errorf("final scrape: %w", err))
	}
	r.awsErrors = map[string]float64{}
	for _, line := range lines(body, "dynamodb_exporter_aws_request_errors_total") {
		code := labelValue(line, "error_code")
		v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		r.awsErrors[code] += v
	}
	for _, line := range lines(body, "dynamodb_exporter_collector_success") {
		if strings.HasSuffix(line, " 0") {
			r.notSuccess = append(r.notSuccess, labelValue(line, "collector"))
		}
	}

	// SIGTERM: a clean exit.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	select {
	case err := <-exited:
		stopped = true
		r.exit, r.exitAfter = err, time.Since(sent)
	case <-time.After(15 * time.Second):
		return fail(errors.New("still running 15s after SIGTERM"))
	}

	r.verdicts, err = judge(r.samples, min(o.window, o.off))
	if err != nil {
		return fail(err)
	}
	return r, nil
}

// read samples the exporter: goroutines and heap from its own /metrics,
// RSS and open descriptors from /proc.
func read(ctx context.Context, c *http.Client, url string, pid int) (sample, error) {
	s := sample{at: time.Now()}
	body, err := scrape(ctx, c, url, formats[0])
	if err != nil {
		return s, err
	}
	for _, m := range []struct {
		name string
		into *float64
	}{
		{"go_goroutines", &s.goroutines},
		{"go_memstats_heap_alloc_bytes", &s.heap},
		{"go_memstats_next_gc_bytes", &s.heapGoal},
	} {
		if *m.into, err = value(body, m.name); err != nil {
			return s, err
		}
	}
	rss, err := procStatus(pid, "VmRSS")
	if err != nil {
		return s, err
	}
	s.rss = float64(rss)
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = float64(len(fds))
	return s, nil
}

// procStatus returns a kB field of /proc/pid/status in bytes.
func procStatus(pid int, field string) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// labelValue returns the value of label in a text exposition line.
func labelValue(line, label string) string {
	_, rest, ok := strings.Cut(line, label+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}
