package collectors_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// trafficSource is a test-only CloudWatch source: the consumed capacity of
// every table and GSI of the account, minute by minute since its creation,
// a deterministic function of the series and the minute (cheap to answer
// for hundreds of tables, unlike a stored history).
type trafficSource struct {
	srv *awssim.Server
}

var consumedMetrics = []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"}

func (s trafficSource) ListMetrics(region string) []awssim.Metric {
	var out []awssim.Metric
	for _, name := range s.srv.TableNames(region) {
		tb, _ := s.srv.Table(region, name)
		for _, idx := range append([]string{""}, gsiNames(tb)...) {
			for _, m := range consumedMetrics {
				out = append(out, awssim.Metric{Namespace: "AWS/DynamoDB", Name: m, Dimensions: dims(name, idx)})
			}
		}
	}
	return out
}

func (s trafficSource) Datapoints(region string, m awssim.Metric, start, end time.Time) []awssim.Datapoint {
	if !slices.Contains(consumedMetrics, m.Name) {
		return nil
	}
	var table, index string
	for _, d := range m.Dimensions {
		switch d.Name {
		case "TableName":
			table = d.Value
		case "GlobalSecondaryIndexName":
			index = d.Value
		}
	}
	tb, ok := s.srv.Table(region, table)
	if !ok {
		return nil
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s/%s", table, index, m.Name)
	seed := int64(h.Sum32() % 1000)
	first := start.Truncate(time.Minute)
	if first.Before(start) {
		first = first.Add(time.Minute)
	}
	if c := tb.CreationDateTime.Truncate(time.Minute); first.Before(c) {
		first = c
	}
	var out []awssim.Datapoint
	for t := first; t.Before(end); t = t.Add(time.Minute) {
		minute := t.Unix() / 60
		v := float64(10+seed%50) * 60 * (1 + float64((minute+seed)%180)/180)
		out = append(out, awssim.Datapoint{Time: t, Sum: v, SampleCount: 60, Minimum: 1, Maximum: v / 30})
	}
	return out
}

func gsiNames(tb awssim.Table) []string {
	var out []string
	for _, g := range tb.GSIs {
		out = append(out, g.IndexName)
	}
	return out
}

func dims(table, index string) []awssim.Dimension {
	d := []awssim.Dimension{{Name: "TableName", Value: table}}
	if index != "" {
		d = append(d, awssim.Dimension{Name: "GlobalSecondaryIndexName", Value: index})
	}
	return d
}

// fetchAccount is a simulated account of n tables with 2 GSIs each,
// created age ago, with traffic on every series.
func fetchAccount(t *testing.T, regions []string, n int, age time.Duration) (*awssim.Server, string) {
	t.Helper()
	sim := awssim.New()
	created := time.Now().Add(-age)
	for _, region := range regions {
		for i := range n {
			if err := sim.PutTable(region, awssim.Table{
				Name: fmt.Sprintf("t-%04d", i), BillingMode: awssim.BillingPayPerRequest, CreationDateTime: created,
				GSIs: []awssim.GlobalSecondaryIndex{{IndexName: "by-owner"}, {IndexName: "by-date"}},
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	sim.AddMetricSource(trafficSource{srv: sim})
	hs := httptest.NewServer(sim.Handler())
	t.Cleanup(hs.Close)
	return sim, hs.URL
}

// fetchTarget returns the clients of one region of the simulated account;
// maxAttempts 0 keeps the SDK's retry budget.
func fetchTarget(t *testing.T, url, region string, maxAttempts int) *awsclient.Target {
	return fetchTargetVia(t, url, region, maxAttempts, nil)
}

// fetchTargetVia is fetchTarget with the HTTP client hc (nil: the SDK's).
func fetchTargetVia(t *testing.T, url, region string, maxAttempts int, hc *http.Client) *awsclient.Target {
	t.Helper()
	target, err := awsclient.NewTarget(context.Background(), config.Account{Name: "acct"}, region, awsclient.Options{
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Endpoints:   config.Endpoints{DynamoDB: url, CloudWatch: url, ApplicationAutoScaling: url},
		MaxAttempts: maxAttempts,
		HTTPClient:  hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// discovered runs discovery and the table facts once.
func discovered(t *testing.T, targets ...*awsclient.Target) *collectors.Inventory {
	t.Helper()
	inv := collectors.NewInventory()
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	if err := collectors.NewDiscovery(collectors.Deps{Targets: targets, Inventory: inv, Logger: log}, collectors.DiscoverySettings{}).Run(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := collectors.NewTables(collectors.Deps{Targets: targets, Inventory: inv, Logger: log}, collectors.TablesSettings{Concurrency: 8}).Run(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	return inv
}

// figures returns the capacity collector's derived metrics (its history
// fetch self-metrics left out) as sorted lines, and the self-metrics apart.
func figures(t *testing.T, ms []prometheus.Metric) (derived []string, self map[string]float64) {
	t.Helper()
	self = map[string]float64{}
	for _, line := range collectors.MetricLines(t, ms) {
		if !strings.HasPrefix(line, "dynamodb_exporter_capacity_history_fetch_") {
			derived = append(derived, line)
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("self-metric %q: %v", line, err)
		}
		self[line[:i]] = v
	}
	return derived, self
}

func capacitySettings(f collectors.FetchSettings) collectors.CapacitySettings {
	return collectors.CapacitySettings{History: 7 * 24 * time.Hour, Fetch: f}
}

// maxInWindow returns the most requests arriving within any window of w.
func maxInWindow(times []time.Time, w time.Duration) int {
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	best := 0
	lo := 0
	for hi := range times {
		for times[hi].Sub(times[lo]) >= w {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// sendLog is an HTTP transport noting when each GetMetricData request
// leaves the client.
type sendLog struct {
	mu    sync.Mutex
	times []time.Time
}

func (l *sendLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/GetMetricData") {
		l.mu.Lock()
		l.times = append(l.times, time.Now())
		l.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (l *sendLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.times = nil
}

func (l *sendLog) sent() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.times)
}

func metricDataTimes(sim *awssim.Server) []time.Time {
	var out []time.Time
	for _, r := range sim.Requests() {
		if r.Service == awssim.ServiceCloudWatch && r.Operation == "GetMetricData" {
			out = append(out, r.Time)
		}
	}
	return out
}

// TestCapacityFirstFetchIsConcurrentWithinTheRate: with a realistic latency
// injected on every GetMetricData call, the first history fetch of 200
// tables (2 GSIs each) must end in well under the time one request after
// the other takes (requests × latency: the sequential fetch needs it at
// least), never exceed the configured request rate (counted at the
// simulated endpoint, from its own request log), report its progress in
// the logs and in the self-metrics while it runs, and derive exactly the
// figures of a fetch made one request at a time.
func TestCapacityFirstFetchIsConcurrentWithinTheRate(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches the history of 200 tables with injected latency")
	}
	const (
		tables  = 200
		latency = 500 * time.Millisecond
		rate    = 10.0
	)
	sim, url := fetchAccount(t, []string{"us-east-1"}, tables, 26*time.Hour)
	var sends sendLog
	t.Setenv("AWS_CA_BUNDLE", "") // a CA bundle needs the SDK's own HTTP client; the endpoint is plain HTTP
	target := fetchTargetVia(t, url, "us-east-1", 0, &http.Client{Transport: &sends})
	inv := discovered(t, target)
	ctx := context.Background()
	// Both runs derive at the same time: the figures depend on it.
	now := time.Now()

	// Reference: one request at a time, no latency.
	ref := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, capacitySettings(collectors.FetchSettings{Concurrency: 1, RequestsPerSecond: 1000}))
	sim.ResetRequests()
	if err := ref.Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	want, _ := figures(t, withLive(ref))
	requests := sim.RequestCount(awssim.ServiceCloudWatch, "GetMetricData")
	if len(want) < tables || requests < 20 {
		t.Fatalf("reference fetch: %d figures from %d requests; the account is too small to measure", len(want), requests)
	}

	sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Delay: latency})
	sim.ResetRequests()
	sends.reset()
	var logs syncBuffer
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, capacitySettings(collectors.FetchSettings{Concurrency: 16, RequestsPerSecond: rate, ProgressEvery: 500 * time.Millisecond}))

	// Watch the self-metrics while the fetch runs.
	var (
		wg        sync.WaitGroup
		stop      = make(chan struct{})
		sawMiddle bool
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			_, self := figures(t, withLive(c))
			if self[`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=done}`] > 0 &&
				self[`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=pending}`] > 0 {
				sawMiddle = true
			}
		}
	}()
	start := time.Now()
	err := c.Run(ctx, now)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}

	sequential := time.Duration(requests) * latency
	bound := sequential / 2
	t.Logf("%d requests, %s latency each: fetched in %s (one at a time: at least %s; bound %s)", requests, latency, elapsed.Round(time.Millisecond), sequential, bound)
	if elapsed > bound {
		t.Errorf("first fetch took %s, want under %s (half of %d requests × %s one after the other)", elapsed, bound, requests, latency)
	}
	got, self := figures(t, withLive(c))
	if !slices.Equal(got, want) {
		t.Errorf("concurrent fetch derived %d figures, the sequential one %d; first difference: %s", len(got), len(want), collectors.FirstLineDiff(got, want))
	}
	if n := sim.RequestCount(awssim.ServiceCloudWatch, "GetMetricData"); n != requests {
		t.Errorf("concurrent fetch made %d requests, the sequential one %d: the batching changed", n, requests)
	}

	// Rate: a token bucket of one token releases at most rate × w + 1
	// requests in any window of w, as they leave the client. At the
	// endpoint (the simulated account's own request log) delivery can
	// bunch them: a request held up to 250 ms between client and handler
	// on a loaded machine arrives with the next ones, so rate/4 more are
	// allowed there. Without the pace, 16 workers at 500 ms send about
	// 26 a second on a loaded 2-core machine (measured), far above both.
	atEndpoint := metricDataTimes(sim)
	if mean := float64(len(atEndpoint)-1) / atEndpoint[len(atEndpoint)-1].Sub(atEndpoint[0]).Seconds(); mean > rate {
		t.Errorf("mean rate %.1f requests per second at the endpoint, want at most %g", mean, rate)
	}
	for _, m := range []struct {
		where string
		times []time.Time
		slack int
	}{{"leaving the client", sends.sent(), 0}, {"at the endpoint", atEndpoint, int(math.Floor(rate / 4))}} {
		if len(m.times) != requests {
			t.Errorf("%d GetMetricData requests %s, want %d", len(m.times), m.where, requests)
		}
		for _, w := range []time.Duration{time.Second, 3 * time.Second} {
			limit := int(rate*w.Seconds()) + 1 + m.slack
			if n := maxInWindow(m.times, w); n > limit {
				t.Errorf("%d GetMetricData requests within %s %s, want at most %d at %g per second", n, w, m.where, limit, rate)
			} else {
				t.Logf("at most %d requests within %s %s (limit %d)", n, w, m.where, limit)
			}
		}
	}

	// Progress: visible while running, complete at the end.
	if !sawMiddle {
		t.Errorf("the self-metrics never showed tables done and pending at once during the fetch")
	}
	for key, v := range map[string]float64{
		`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=done}`:            tables,
		`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=pending}`:         0,
		`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=failed}`:          0,
		`dynamodb_exporter_capacity_history_fetch_requests_pending{account=acct,region=us-east-1}`:             0,
		`dynamodb_exporter_capacity_history_fetch_requests_total{account=acct,outcome=ok,region=us-east-1}`:    float64(requests),
		`dynamodb_exporter_capacity_history_fetch_requests_total{account=acct,outcome=error,region=us-east-1}`: 0,
	} {
		if self[key] != v {
			t.Errorf("%s = %v, want %v", key, self[key], v)
		}
	}
	out := logs.String()
	for _, want := range []string{"msg=\"fetching capacity history\"", "msg=\"fetching capacity history: progress\"", "msg=\"capacity history fetched\"",
		fmt.Sprintf("tables_done=%d", tables), fmt.Sprintf("requests_done=%d requests=%d", requests, requests)} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %s:\n%s", want, out)
		}
	}
	for _, name := range []string{catalogue.ExporterCapacityHistoryFetchTables, catalogue.ExporterCapacityHistoryFetchRequestsTotal} {
		if _, ok := catalogue.Lookup(name); !ok {
			t.Errorf("%s not catalogued", name)
		}
	}
}

// TestCapacityFetchThrottlingLosesNoTable: GetMetricData answering
// Throttling (with the SDK's own retries off, so that every refusal reaches
// the collector) pauses the fetch and asks again later: every table ends
// with its history, the figures equal an unthrottled fetch's, and the
// throttles are counted.
func TestCapacityFetchThrottlingLosesNoTable(t *testing.T) {
	sim, url := fetchAccount(t, []string{"us-east-1"}, 30, 26*time.Hour)
	target := fetchTarget(t, url, "us-east-1", 1)
	inv := discovered(t, target)
	ctx := context.Background()
	// Both runs derive at the same time: the figures depend on it.
	now := time.Now()
	settings := capacitySettings(collectors.FetchSettings{Concurrency: 4, RequestsPerSecond: 1000, ThrottleBackoff: 10 * time.Millisecond})
	ref := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, settings)
	if err := ref.Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	want, _ := figures(t, withLive(ref))

	const throttles = 6
	sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Error: awssim.ErrThrottling, Times: throttles})
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, settings)
	if err := c.Run(ctx, now); err != nil {
		t.Fatalf("throttled fetch: %v", err)
	}
	got, self := figures(t, withLive(c))
	if !slices.Equal(got, want) {
		t.Errorf("throttled fetch derived %d figures, an unthrottled one %d; first difference: %s", len(got), len(want), collectors.FirstLineDiff(got, want))
	}
	for key, v := range map[string]float64{
		`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=done}`:                30,
		`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=failed}`:              0,
		`dynamodb_exporter_capacity_history_fetch_requests_total{account=acct,outcome=throttled,region=us-east-1}`: throttles,
	} {
		if self[key] != v {
			t.Errorf("%s = %v, want %v", key, self[key], v)
		}
	}
}

// TestCapacityFetchOneTableFailingStopsNoOther: a table whose requests
// fail (AccessDenied naming it) loses only the requests that read it; every
// table that shares none of them gets its figures, and the failure is
// returned, counted and visible in the self-metrics.
func TestCapacityFetchOneTableFailingStopsNoOther(t *testing.T) {
	sim, url := fetchAccount(t, []string{"us-east-1"}, 40, 26*time.Hour)
	target := fetchTarget(t, url, "us-east-1", 1)
	inv := discovered(t, target)
	sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Table: "t-0003", Error: awssim.ErrAccessDenied})
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, capacitySettings(collectors.FetchSettings{Concurrency: 4, RequestsPerSecond: 1000}))
	err := c.Run(context.Background(), time.Now())
	if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("err = %v, want the AccessDenied of the failing requests", err)
	}
	// The requests of consumed history that named t-0003, and the tables
	// they read. The billing-mode history of every table (2 queries a
	// table, base table only: the consumed requests hold 6, with 2 GSIs)
	// shares one request with t-0003 too, but its failure loses no figure
	// but its own.
	lost := map[string]bool{}
	for _, r := range sim.Requests() {
		if r.Operation == "GetMetricData" && slices.Contains(r.Tables, "t-0003") && r.Queries != 2*len(r.Tables) {
			for _, tb := range r.Tables {
				lost[tb] = true
			}
		}
	}
	_, self := figures(t, withLive(c))
	done := self[`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=done}`]
	failed := self[`dynamodb_exporter_capacity_history_fetch_tables{account=acct,region=us-east-1,state=failed}`]
	if failed != float64(len(lost)) || done != float64(40-len(lost)) || len(lost) == 0 || len(lost) > 20 {
		t.Errorf("tables done %v, failed %v; want %d failed (those sharing a request with t-0003), the other %d done", done, failed, len(lost), 40-len(lost))
	}
	reported := map[string]bool{}
	for _, r := range c.Reports() {
		reported[r.Table] = true
		if r.Switches != nil {
			t.Errorf("table %s: billing-mode figures %+v from a failed request", r.Table, r.Switches)
		}
	}
	for i := range 40 {
		name := fmt.Sprintf("t-%04d", i)
		if reported[name] == lost[name] {
			t.Errorf("table %s: reported %v, lost %v", name, reported[name], lost[name])
		}
	}
}

// TestCapacityFetchHonoursCancellation: cancelling the run's context
// mid-fetch returns at once with the cancellation, not after every queued
// request has waited its turn.
func TestCapacityFetchHonoursCancellation(t *testing.T) {
	sim, url := fetchAccount(t, []string{"us-east-1"}, 60, 50*time.Hour)
	target := fetchTarget(t, url, "us-east-1", 0)
	inv := discovered(t, target)
	sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Delay: 300 * time.Millisecond})
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, capacitySettings(collectors.FetchSettings{Concurrency: 2, RequestsPerSecond: 2}))
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Run(ctx, time.Now())
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("run returned %s after its context ended, want promptly", elapsed-700*time.Millisecond)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	if n := collectors.CountErrors(err); n > 3 {
		t.Errorf("%d errors for one cancellation, want it summarised: %v", n, err)
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withLive returns a capacity collector's snapshot and its live figures
// (the fetch's progress), as a scrape sees them.
func withLive(c *collectors.Capacity) []prometheus.Metric {
	return append(c.Metrics(), c.LiveMetrics()...)
}

// TestCapacityFetchBillingModeFirst: the billing-mode requests (every base
// table's provisioned read and write capacity, hourly) run before the
// consumed-history requests, so that a table is derived, and its fetched
// tiers dropped, as soon as its own consumed history has arrived rather
// than when the mode request of its hundred tables does.
func TestCapacityFetchBillingModeFirst(t *testing.T) {
	sim, url := fetchAccount(t, []string{"us-east-1"}, 40, 26*time.Hour)
	target := fetchTarget(t, url, "us-east-1", 1)
	inv := discovered(t, target)
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, capacitySettings(collectors.FetchSettings{Concurrency: 1, RequestsPerSecond: 1000}))
	if err := c.Run(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	var first *awssim.RequestRecord
	n := 0
	for _, r := range sim.Requests() {
		if r.Operation == "GetMetricData" {
			if first == nil {
				first = &r
			}
			n++
		}
	}
	// 40 base tables x 2 (read, write): one request; the consumed ones hold
	// 6 queries a table (2 GSIs).
	if first == nil || first.Queries != 80 || len(first.Tables) != 40 || n < 2 {
		t.Fatalf("first of %d GetMetricData requests: %+v; want the billing-mode request of the 40 tables (80 queries)", n, first)
	}
}
