package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// passing returns a result that meets every target at n tables.
func passing(n int) result {
	r := result{
		tables:       n,
		simBuild:     time.Second,
		simHeap:      100 << 20,
		firstSuccess: map[string]time.Duration{"capacity": time.Minute, "ttl": 2 * time.Minute},
		rssSteady:    30 << 20,
		hwm:          60 << 20,
		cpuPerMinute: time.Second,
		cw:           cloudWatch{window: 5 * time.Minute, metrics: 100 * float64(n), refreshMetrics: 6 * float64(n)},
		series:       seriesCount{maxPerTable: map[string]int{}, withTable: map[string]int{}},
	}
	for _, f := range formats {
		r.lat = append(r.lat, latency{format: f.name, gzip: f.gzip, median: 5 * time.Millisecond, p99: 40 * time.Millisecond})
	}
	for _, b := range seriesBudget {
		r.series.maxPerTable[b.family] = b.perTable
		r.series.withTable[b.family] = b.perTable * n
	}
	return r
}

func TestEvaluateNamesEachMissedTargetAndByHowMuch(t *testing.T) {
	if got := misses(evaluate(targets, []result{passing(10), passing(1000)})); len(got) != 0 {
		t.Fatalf("a result within every target missed %v", got)
	}
	bad := passing(1000)
	bad.lat[1].p99 = 60 * time.Millisecond // text+gzip
	bad.lat[3].p99 = 90 * time.Millisecond // protobuf: withdrawn at 1,000 tables
	bad.hwm = 330 << 20
	bad.cw.metrics = 200 * 1000 // 206 per table-hour with the refresh
	small := passing(100)
	small.lat[3].p99 = 90 * time.Millisecond // protobuf: a target up to 100 tables
	got := misses(evaluate(targets, []result{small, bad}))
	if len(got) != 4 {
		t.Fatalf("missed %d targets, want 4: %v", len(got), got)
	}
	want := []string{
		"100 tables: /metrics p99, every format: 90 ms (target ≤ 50): MISSED by 40 ms (80% over); worst: protobuf",
		"1000 tables: /metrics p99, gzip: 60 ms (target ≤ 50): MISSED by 10 ms (20% over); worst: text+gzip",
		"1000 tables: RSS at its peak (VmHWM: first history fetch, scrape bursts): 330 MiB (target ≤ 128): MISSED by 202 MiB (158% over)",
		"1000 tables: CloudWatch metrics requested per table-hour: 206 metrics (target ≤ 150): MISSED by 56 metrics (37% over)",
	}
	for i, v := range got {
		if v.String() != want[i] {
			t.Errorf("miss %d:\n got %s\nwant %s", i, v, want[i])
		}
	}
}

// TestSizedTargetsApplyUpToTheirSize: issue 24's memory targets up to 100
// tables are checked at 10 and 100 tables, not at 1,000, where the
// targets of every size are; the figures print "–" where a target does
// not apply.
func TestSizedTargetsApplyUpToTheirSize(t *testing.T) {
	small, large := passing(100), passing(1000)
	small.rssSteady, large.rssSteady = 50<<20, 50<<20
	vs := evaluate(targets, []result{small, large})
	got := misses(vs)
	if len(got) != 1 || got[0].String() != "100 tables: RSS in steady state, up to 100 tables: 50 MiB (target ≤ 40): MISSED by 10 MiB (25% over)" {
		t.Fatalf("misses %v, want the steady RSS up to 100 tables at 100 tables alone", got)
	}
	o := options{args: "go run ./cmd/bench -tables 100,1000", latency: 50 * time.Millisecond, window: 10 * time.Minute, concurrency: 10, scrapes: 20, history: "90d"}
	s := figures(o, []result{small, large}, vs, "Test CPU")
	if want := "| RSS in steady state, up to 100 tables ≤ 40 MiB | **50: missed by 10** | – |"; !strings.Contains(s, want) {
		t.Errorf("figures lack %q:\n%s", want, s)
	}
}

func TestSeriesBudgetIsCheckedPerFamily(t *testing.T) {
	if len(seriesBudget) == 0 {
		t.Fatal("no series budget")
	}
	r := passing(100)
	b := seriesBudget[0]
	r.series.maxPerTable[b.family] = b.perTable + 2
	r.series.maxPerTable["dynamodb_new_family"] = 1
	vs := misses(evaluate(targets, []result{r}))
	if len(vs) != 2 || !strings.Contains(vs[0].name, "at its most") || !strings.Contains(vs[1].name, "above its family's budget") {
		t.Fatalf("misses %v, want both series targets", vs)
	}
	if !strings.Contains(vs[0].String(), fmt.Sprintf("MISSED by 3 series (%.0f%% over)", 100*3/float64(budgetTotal()))) {
		t.Errorf("%q does not say the total is 3 series over", vs[0])
	}
	for _, want := range []string{"MISSED by 3 series;", fmt.Sprintf("%s %d > %d", b.family, b.perTable+2, b.perTable), "dynamodb_new_family has no budget"} {
		if !strings.Contains(vs[1].String(), want) {
			t.Errorf("%q does not say %q", vs[1], want)
		}
	}
	// Over in one family, under in another: the total passes, the family
	// does not.
	r.series.maxPerTable[seriesBudget[1].family] = seriesBudget[1].perTable - 3
	delete(r.series.maxPerTable, "dynamodb_new_family")
	vs = misses(evaluate(targets, []result{r}))
	if len(vs) != 1 || !strings.Contains(vs[0].String(), "above its family's budget: 2 series") {
		t.Fatalf("misses %v, want the family target alone", vs)
	}
}

func TestWindowHoldsWholeCyclesOfEveryCadenceItCovers(t *testing.T) {
	cs := []cadence{{"fast", time.Minute, false}, {"slow tier", 5 * time.Minute, false}, {"hourly", time.Hour, true}}
	longer, err := checkWindow(5*time.Minute, cs)
	if err != nil || len(longer) != 1 || longer[0].what != "hourly" {
		t.Fatalf("5m: longer %v, err %v; want the hourly cadence left out", longer, err)
	}
	if _, err := checkWindow(7*time.Minute, cs); err == nil || !strings.Contains(err.Error(), "slow tier") {
		t.Fatalf("7m: err %v, want one naming the slow tier", err)
	}
	if _, err := checkWindow(10*time.Minute+30*time.Second, cs); err == nil || !strings.Contains(err.Error(), "fast") {
		t.Fatalf("10m30s: err %v, want one naming the fast cadence", err)
	}
	if _, err := checkWindow(2*time.Minute, cs); err == nil || !strings.Contains(err.Error(), "shorter than the slow tier") {
		t.Fatalf("2m: err %v, want one saying the slow tier is not covered", err)
	}
	if _, err := checkWindow(90*time.Minute, cs); err == nil || !strings.Contains(err.Error(), "hourly") {
		t.Fatalf("90m: err %v, want one naming the hourly cadence", err)
	}
	if longer, err := checkWindow(2*time.Hour, cs); err != nil || len(longer) != 0 {
		t.Fatalf("2h: longer %v, err %v", longer, err)
	}
	if _, err := checkWindow(defaultWindow, cadences()); err != nil {
		t.Fatalf("the default window does not fit the exporter's cadences: %v", err)
	}
}

func TestCountExtrapolatesTheWindowToAnHour(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration, svc, op string) awssim.RequestRecord {
		return awssim.RequestRecord{Time: t0.Add(d), Service: svc, Operation: op}
	}
	var recs []awssim.RequestRecord
	for m := range 7 { // a GetMetricData of 40 queries and a ListMetrics every minute, from -1m to 5m
		g := at(time.Duration(m-1)*time.Minute+time.Second, awssim.ServiceCloudWatch, "GetMetricData")
		g.Queries = 40
		recs = append(recs, g, at(time.Duration(m-1)*time.Minute, awssim.ServiceCloudWatch, "ListMetrics"))
	}
	recs = append(recs,
		at(2*time.Minute, awssim.ServiceDynamoDB, "DescribeTable"),
		at(2*time.Minute, awssim.ServiceDynamoDB, "DescribeTable"),
		at(3*time.Minute, awssim.ServiceAutoScaling, "DescribeScalableTargets"),
	)
	scan := at(4*time.Minute, awssim.ServiceDynamoDB, "Scan")
	scan.ReadUnits, scan.Tables = 2.5, []string{"bench-0000"}
	recs = append(recs, scan)
	w := 5 * time.Minute
	c := count(recs, t0, t0.Add(w))
	if c.gmdRequests != 5 || c.gmdMetrics != 200 || c.listMetrics != 5 {
		t.Fatalf("counted %d GetMetricData (%d metrics), %d ListMetrics; want 5 (200), 5", c.gmdRequests, c.gmdMetrics, c.listMetrics)
	}
	if c.actions["DynamoDB DescribeTable"] != 2 || c.actions["Application Auto Scaling DescribeScalableTargets"] != 1 || len(c.actions) != 2 {
		t.Fatalf("actions %v", c.actions)
	}
	if c.scans != 1 || c.readUnits != 2.5 || !c.scanned["bench-0000"] {
		t.Fatalf("scans %d, read units %v, tables %v", c.scans, c.readUnits, c.scanned)
	}
	if got := perHour(float64(c.gmdMetrics), w); got != 2400 {
		t.Fatalf("200 metrics in 5 minutes = %v per hour, want 2400", got)
	}
	cw := cloudWatch{metrics: 2400, refreshMetrics: 600, listMetrics: 60}
	if got := cw.metricsPerTableHour(10); got != 300 {
		t.Fatalf("per table-hour %v, want 300", got)
	}
	// 3,000 metrics an hour for 720 hours at $0.01 per 1,000, and 60
	// ListMetrics an hour at $0.01 per 1,000.
	if got, want := cw.monthlyCost(), 21.6+0.432; got < want-1e-9 || got > want+1e-9 {
		t.Fatalf("monthly cost %v, want %v", got, want)
	}
}

func TestTTLReadUnitsPerHour(t *testing.T) {
	for _, c := range []struct {
		units    float64
		elapsed  time.Duration
		everyone bool
		want     float64
	}{
		{30, 10 * time.Minute, true, 30},    // one pass of every table: one hour's reads
		{30, 10 * time.Minute, false, 180},  // the budget spreads the pass: a rate
		{30, 2 * time.Hour, true, 15},       // two passes in two hours
		{0, 10 * time.Minute, true, 0},      // nothing read
		{30, 90 * time.Minute, false, 20.0}, // a rate over 1.5 h
	} {
		if got := ttlReadUnitsPerHour(c.units, c.elapsed, time.Hour, c.everyone); got != c.want {
			t.Errorf("%v units over %s (every table sampled: %v) = %v per hour, want %v", c.units, c.elapsed, c.everyone, got, c.want)
		}
	}
}

func TestParseRefreshReadsTheCheckPlan(t *testing.T) {
	out := "  tables monitored: 10 (of 10 discovered), global secondary indexes: 20\n" +
		"  capacity history: first fetch 16 GetMetricData requests, 200 metrics requested; then every 30m0s 1 requests, 60 metrics\n"
	req, met, err := parseRefresh(out)
	if err != nil || req != 2 || met != 120 {
		t.Fatalf("got %v requests, %v metrics per hour, err %v; want 2, 120", req, met, err)
	}
	if _, _, err := parseRefresh("preflight passed\n"); err == nil {
		t.Fatal("an output without the plan parsed")
	}
}

func TestReplaceSectionKeepsTheProse(t *testing.T) {
	doc := "# Performance\n\nProse before.\n\n" + beginMarker + "\nold figures\n" + endMarker + "\n\n## After\n\nProse after.\n"
	section := beginMarker + "\nnew figures\n" + endMarker + "\n"
	got, err := replaceSection(doc, section)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Performance\n\nProse before.\n\n" + section + "\n## After\n\nProse after.\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Twice gives the same document.
	if again, _ := replaceSection(got, section); again != got {
		t.Fatalf("not idempotent:\n%s", again)
	}
	for _, bad := range []string{
		"# no markers\n",
		endMarker + "\n" + beginMarker + "\n",
		beginMarker + "\n" + endMarker + "\n" + beginMarker + "\n" + endMarker + "\n",
	} {
		if _, err := replaceSection(bad, section); err == nil {
			t.Errorf("replaced in %q", bad)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "perf.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFigures(path, section); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("file holds\n%s", b)
	}
	if err := writeFigures(filepath.Join(dir, "new.md"), section); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFigures(path, section); err == nil {
		t.Fatal("a file without markers was overwritten")
	}
}

func TestFiguresSectionCarriesTheMachineAndEveryTarget(t *testing.T) {
	rs := []result{passing(10), passing(100)}
	rs[1].lat[0].median = 12 * time.Millisecond
	vs := evaluate(targets, rs)
	o := options{args: "go run ./cmd/bench -tables 10,100", latency: 50 * time.Millisecond, window: 5 * time.Minute, concurrency: 10, scrapes: 20, history: "90d"}
	s := figures(o, rs, vs, "Test CPU, 2 CPUs, linux/amd64, go1.x")
	for _, want := range []string{beginMarker, endMarker, "Test CPU, 2 CPUs", "go run ./cmd/bench -tables 10,100", "**12: missed by 2** (text)", "| 10 tables | 100 tables |"} {
		if !strings.Contains(s, want) {
			t.Errorf("section lacks %q:\n%s", want, s)
		}
	}
	for _, tg := range targets {
		if !strings.Contains(s, tg.name) {
			t.Errorf("section lacks target %q", tg.name)
		}
	}
	if _, err := replaceSection("x\n"+beginMarker+"\n"+endMarker+"\n", s); err != nil {
		t.Fatal(err)
	}
}

func TestCountSeriesByFamilyAndTable(t *testing.T) {
	body := `# HELP dynamodb_items Items.
# TYPE dynamodb_items gauge
dynamodb_items{account="a",region="r",table="t1",index=""} 1
dynamodb_items{account="a",region="r",table="t1",index="g1"} 1
dynamodb_items{account="a",region="r",table="t\"2",index=""} 1
dynamodb_ttl_live_item_remaining_lifetime_seconds_bucket{account="a",region="r",table="t1",le="+Inf"} 3
dynamodb_ttl_live_item_remaining_lifetime_seconds_sum{account="a",region="r",table="t1"} 3
dynamodb_ttl_live_item_remaining_lifetime_seconds_count{account="a",region="r",table="t1"} 3
dynamodb_exporter_tables{account="a",region="r"} 2
go_goroutines 12
`
	c := countSeries([]byte(body))
	if c.total != 8 || c.tables != 2 {
		t.Fatalf("total %d, tables %d; want 8, 2", c.total, c.tables)
	}
	if c.maxPerTable["dynamodb_items"] != 2 || c.withTable["dynamodb_items"] != 3 {
		t.Fatalf("items: max %d, with table %d", c.maxPerTable["dynamodb_items"], c.withTable["dynamodb_items"])
	}
	if c.maxPerTable["dynamodb_ttl_live_item_remaining_lifetime_seconds"] != 3 {
		t.Fatalf("histogram samples not counted under their family: %v", c.maxPerTable)
	}
	if c.byFamily["go_goroutines"] != 1 || c.withTable["dynamodb_exporter_tables"] != 0 {
		t.Fatalf("by family %v", c.byFamily)
	}
}

func TestReadSelfTellsPendingCollectors(t *testing.T) {
	body := []byte(`dynamodb_exporter_collector_errors_total{collector="capacity"} 0
dynamodb_exporter_collector_errors_total{collector="cloudwatch"} 0
dynamodb_exporter_collector_last_success_timestamp_seconds{collector="cloudwatch",account="a",region="r"} 1.7e+09
go_memstats_heap_inuse_bytes 1.5e+07
`)
	s := readSelf(body)
	if p := s.pending(); len(p) != 1 || p[0] != "capacity" {
		t.Fatalf("pending %v, want [capacity]", p)
	}
	if s.heapInUse != 1.5e7 || s.lastSuccess["cloudwatch"] != 1.7e9 {
		t.Fatalf("heap %v, last success %v", s.heapInUse, s.lastSuccess)
	}
}

func TestQuantilesNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 200; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	med, p99 := quantiles(ds)
	if med != 100*time.Millisecond || p99 != 198*time.Millisecond {
		t.Fatalf("median %s, p99 %s; want 100ms, 198ms", med, p99)
	}
	if m, p := quantiles([]time.Duration{7}); m != 7 || p != 7 {
		t.Fatalf("one sample: %s %s", m, p)
	}
}

// TestSeriesBudgetNamesEveryFamilyWithATableLabel keeps the budget and the
// catalogue together: a new family with a table label needs a budget (it
// has to earn its place), and a budget for a family that is gone goes.
func TestSeriesBudgetNamesEveryFamilyWithATableLabel(t *testing.T) {
	budgeted := map[string]bool{}
	for _, b := range seriesBudget {
		if budgeted[b.family] {
			t.Errorf("%s budgeted twice", b.family)
		}
		budgeted[b.family] = true
		f, ok := catalogue.Lookup(b.family)
		if !ok {
			t.Errorf("budget for %s, which the catalogue does not have", b.family)
			continue
		}
		if !slices.Contains(f.Labels, catalogue.LabelTable) {
			t.Errorf("budget for %s, which has no table label", b.family)
		}
		if b.perTable < 1 || b.why == "" {
			t.Errorf("%s: budget %d, why %q", b.family, b.perTable, b.why)
		}
	}
	for _, f := range catalogue.All() {
		if slices.Contains(f.Labels, catalogue.LabelTable) && !budgeted[f.Name] {
			t.Errorf("%s has a table label and no series budget (cmd/bench/budget.go)", f.Name)
		}
	}
}

// TestScrapeCountsTheBodyAndRefusesAShortOne: a burst's scrape receives the
// whole body into io.Discard and counts it; a body shorter than its
// Content-Length, an error status or a plain answer to a gzip request fail.
func TestScrapeCountsTheBodyAndRefusesAShortOne(t *testing.T) {
	body := strings.Repeat("dynamodb_items{table=\"t\"} 1\n", 40000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/short":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = io.WriteString(w, body[:len(body)/2])
			panic(http.ErrAbortHandler) // cut the connection mid-body
		case "/fail":
			http.Error(w, "no", http.StatusInternalServerError)
		default:
			_, _ = io.WriteString(w, body)
		}
	}))
	defer srv.Close()
	buf := make([]byte, 4096)
	if n, err := scrape(srv.URL+"/metrics", formats[0], io.Discard, buf); err != nil || n != int64(len(body)) {
		t.Errorf("scrape: %d bytes, %v; want %d, nil", n, err, len(body))
	}
	if b, err := get(srv.URL+"/metrics", formats[0]); err != nil || string(b) != body {
		t.Errorf("get: %d bytes, %v; want the body", len(b), err)
	}
	if _, err := scrape(srv.URL+"/short", formats[0], io.Discard, buf); err == nil {
		t.Error("scrape of a body cut short: no error")
	}
	if _, err := scrape(srv.URL+"/fail", formats[0], io.Discard, buf); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("scrape of a 500: %v, want an error naming it", err)
	}
	if _, err := scrape(srv.URL+"/metrics", formats[1], io.Discard, buf); err == nil || !strings.Contains(err.Error(), "asked for gzip") {
		t.Errorf("scrape for gzip answered plain: %v, want an error", err)
	}
}

// TestNumKeepsRatiosApart: a ratio just under a target of 1.25 does not
// print as the same figure as the target.
func TestNumKeepsRatiosApart(t *testing.T) {
	for v, want := range map[float64]string{1.226: "1.23", 1.25: "1.25", 5.5: "5.5", 52.4: "52.4", 0.5: "0.5", 421: "421", 1910: "1,910"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
