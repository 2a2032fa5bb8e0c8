package exposition

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// snapshotter is a collector whose snapshot the test replaces, counting
// how often the exposition reads it.
type snapshotter struct {
	mu    sync.Mutex
	ms    []prometheus.Metric
	reads int
}

func (s *snapshotter) Metrics() []prometheus.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return s.ms
}

// publish stores a new snapshot of n tables, as a collector cycle does.
func (s *snapshotter) publish(n int) {
	var ms []prometheus.Metric
	for i := range n {
		name := "t" + string(rune('a'+i))
		ms = append(ms, catalogue.MustMetric(catalogue.TableInfo, 1, "acct", "us-east-1", name, "PROVISIONED", "STANDARD", "ACTIVE"))
	}
	// Families that sort between the live ones, so that the exposition
	// must interleave them.
	ms = append(ms, catalogue.MustMetric(catalogue.ExporterTables, float64(n), "acct", "us-east-1"),
		catalogue.MustMetric(catalogue.ExporterTTLSamplesTotal, 3, "acct", "us-east-1", "complete"))
	s.mu.Lock()
	s.ms = ms
	s.mu.Unlock()
}

func (s *snapshotter) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// selfMetrics stands in for the exporter's live part: the build info, and
// a counter the test sets.
type selfMetrics struct{ cloudWatch atomic.Int64 }

func (s *selfMetrics) Describe(chan<- *prometheus.Desc) {}
func (s *selfMetrics) Collect(ch chan<- prometheus.Metric) {
	ch <- catalogue.MustMetric(catalogue.ExporterBuildInfo, 1, "test", "rev", "main", "go1", "linux", "amd64", "")
	if n := s.cloudWatch.Load(); n > 0 {
		ch <- catalogue.MustMetric(catalogue.ExporterCloudWatchMetricsTotal, float64(n), "acct", "us-east-1")
	}
}

// sourcesCollector emits the sources' current snapshots, as the
// exporter's registry collector does.
type sourcesCollector []Source

func (sourcesCollector) Describe(chan<- *prometheus.Desc) {}
func (s sourcesCollector) Collect(ch chan<- prometheus.Metric) {
	for _, src := range s {
		for _, m := range src.Metrics() {
			ch <- m
		}
	}
}

// runtimeCollectors returns the Go and process collectors when withRuntime.
func runtimeCollectors(withRuntime bool) []prometheus.Collector {
	if !withRuntime {
		return nil
	}
	return []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}
}

// fullRegistry returns the registry of everything, as the exporter builds
// it: the sources' snapshots, the live part and, withRuntime, the Go and
// process collectors.
func fullRegistry(t testing.TB, sources []Source, self *selfMetrics, withRuntime bool) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	for _, c := range append([]prometheus.Collector{sourcesCollector(sources), self}, runtimeCollectors(withRuntime)...) {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// cacheOver returns the cache of sources over reg (fullRegistry), as the
// exporter wires it.
func cacheOver(t testing.TB, reg *prometheus.Registry, sources []Source, self *selfMetrics, withRuntime bool) *Cache {
	t.Helper()
	x, err := New(sources, append([]prometheus.Collector{self}, runtimeCollectors(withRuntime)...), reg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// newCache returns the cache of sources and the registry of everything.
func newCache(t testing.TB, sources []Source, self *selfMetrics, withRuntime bool) (*Cache, *prometheus.Registry) {
	t.Helper()
	reg := fullRegistry(t, sources, self, withRuntime)
	return cacheOver(t, reg, sources, self, withRuntime), reg
}

// newTestExposition returns the cache of one source, with the Go and
// process collectors, and the registry of everything.
func newTestExposition(t testing.TB, c *snapshotter, self *selfMetrics) (*Cache, *prometheus.Registry) {
	t.Helper()
	return newCache(t, []Source{c}, self, true)
}

// promhttpOver is promhttp serving reg, what the cache must match.
func promhttpOver(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, Registry: reg})
}

func get(t *testing.T, h http.Handler, accept, encoding string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// body reads a response, gunzipping a gzip one as a single member (so that
// a client without multistream support reads all of it).
func body(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr) // checks the CRC-32 and length
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	if rest, _ := io.ReadAll(zr); len(rest) != 0 {
		t.Fatalf("gzip body has %d bytes after its member", len(rest))
	}
	return out
}

// stable drops the families that change from one scrape to the next (Go
// runtime and process figures), sorts the lines and returns them.
func stable(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(l, "# HELP "), "# TYPE "), "# UNIT ")
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") || l == "" {
			continue
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// familyOrder returns the families of a text body in order.
func familyOrder(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[1] == "TYPE" {
			out = append(out, f[2])
		}
	}
	return out
}

var textFormats = []struct{ name, accept string }{
	{"text", "text/plain;version=0.0.4"},
	{"default", ""},
	{"OpenMetrics", "application/openmetrics-text;version=1.0.0"},
	{"OpenMetrics 0.0.1", "application/openmetrics-text;version=0.0.1"},
}

// The cached exposition serves what promhttp serves over the full
// registry, in every format, identity and gzip: identity bodies held as
// they are sent, and, above the plain limit, inflated from the compressed
// encoding, the only one then held.
func TestExpositionMatchesFullGather(t *testing.T) {
	for _, limit := range []int{PlainSeriesLimit, 0} {
		t.Run(fmt.Sprintf("plain_limit_%d", limit), func(t *testing.T) {
			matchesFullGather(t, limit)
		})
	}
}

func matchesFullGather(t *testing.T, limit int) {
	c := &snapshotter{}
	c.publish(3)
	x, reg := newTestExposition(t, c, &selfMetrics{})
	x.plainLimit = limit
	full := promhttpOver(reg)
	// Twice: from the generation the first scrape builds, and from one
	// the background worker builds after a publish.
	for round := range 2 {
		if round == 1 {
			c.publish(5)
			x.Published()
			waitEncoded(t, x)
		}
		for _, f := range textFormats {
			for _, enc := range []string{"", "gzip", "gzip;q=0.5, identity"} {
				got, want := get(t, x, f.accept, enc), get(t, full, f.accept, enc)
				if g, w := got.Header.Get("Content-Type"), want.Header.Get("Content-Type"); g != w {
					t.Errorf("%s %q: Content-Type %q, promhttp %q", f.name, enc, g, w)
				}
				if g, w := got.Header.Get("Content-Encoding"), want.Header.Get("Content-Encoding"); g != w {
					t.Errorf("%s %q: Content-Encoding %q, promhttp %q", f.name, enc, g, w)
				}
				gb, wb := body(t, got), body(t, want)
				if n := got.Header.Get("Content-Length"); got.Header.Get("Content-Encoding") == "" && n != strconv.Itoa(len(gb)) {
					t.Errorf("%s %q: Content-Length %s for a body of %d bytes", f.name, enc, n, len(gb))
				}
				if g, w := stable(gb), stable(wb); !slices.Equal(g, w) {
					t.Errorf("%s %q: lines differ from promhttp's\n got %q\nwant %q", f.name, enc, g, w)
				}
				if g, w := familyOrder(gb), familyOrder(wb); !slices.Equal(g, w) {
					t.Errorf("%s %q: family order differs from promhttp's\n got %q\nwant %q", f.name, enc, g, w)
				}
				if strings.HasPrefix(f.accept, "application/openmetrics") && (!bytes.HasSuffix(gb, []byte("# EOF\n")) || bytes.Count(gb, []byte("# EOF")) != 1) {
					t.Errorf("%s %q: body does not end with a single # EOF", f.name, enc)
				}
			}
		}
		// Protobuf: the same families, decoded.
		for _, enc := range []string{"", "gzip"} {
			names := func(resp *http.Response) []string {
				dec := expfmt.NewDecoder(bytes.NewReader(body(t, resp)), expfmt.NewFormat(expfmt.TypeProtoDelim))
				var out []string
				for {
					mf := new(dto.MetricFamily)
					if err := dec.Decode(mf); err == io.EOF {
						break
					} else if err != nil {
						t.Fatalf("protobuf %q: %v", enc, err)
					}
					if n := mf.GetName(); !strings.HasPrefix(n, "go_") && !strings.HasPrefix(n, "process_") {
						out = append(out, mf.String())
					}
				}
				slices.Sort(out)
				return out
			}
			if g, w := names(get(t, x, protoAccept, enc)), names(get(t, full, protoAccept, enc)); !slices.Equal(g, w) || len(g) == 0 {
				t.Errorf("protobuf %q: families differ from promhttp's\n got %q\nwant %q", enc, g, w)
			}
		}
	}
	// Below the limit every format scraped is held in both encodings;
	// above it, compressed only.
	for _, p := range x.ready.Load().parts {
		for k := range p.enc {
			if !k.gzip && limit == 0 {
				t.Errorf("%s held uncompressed above the plain limit", k.format)
			}
		}
		if limit > 0 && len(p.enc) != 2*4 {
			t.Errorf("%d encodings held below the plain limit, want 8 (4 formats, both encodings)", len(p.enc))
		}
	}
	// A filter on names goes to promhttp.
	req := httptest.NewRequest(http.MethodGet, "/metrics?name[]="+catalogue.TableInfo, nil)
	rec := httptest.NewRecorder()
	x.ServeHTTP(rec, req)
	if b := rec.Body.String(); !strings.Contains(b, catalogue.TableInfo+"{") || strings.Contains(b, "go_goroutines") {
		t.Errorf("name[] filter: body %q", b)
	}
}

// waitEncoded waits until the background worker has encoded the
// collectors' current snapshots.
func waitEncoded(t *testing.T, x *Cache) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := x.ready.Load()
		if !x.running.Load() && !x.dirty.Load() && g != nil && !x.stale(g) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the background encoding did not finish within 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// tableInfos returns the number of table_info series of a scrape in the
// given format and encoding.
func tableInfos(t *testing.T, x http.Handler, accept, enc string) int {
	t.Helper()
	resp := get(t, x, accept, enc)
	b := body(t, resp)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.google.protobuf") {
		dec := expfmt.NewDecoder(bytes.NewReader(b), expfmt.NewFormat(expfmt.TypeProtoDelim))
		for {
			mf := new(dto.MetricFamily)
			if err := dec.Decode(mf); err == io.EOF {
				return 0
			} else if err != nil {
				t.Fatalf("protobuf: %v", err)
			}
			if mf.GetName() == catalogue.TableInfo {
				return len(mf.GetMetric())
			}
		}
	}
	return strings.Count(string(b), catalogue.TableInfo+"{")
}

// allFormats are every format and encoding the cache serves.
var allFormats = func() (out []struct{ name, accept, enc string }) {
	for _, f := range append(slices.Clone(textFormats), struct{ name, accept string }{"protobuf", protoAccept}) {
		for _, enc := range []string{"", "gzip"} {
			out = append(out, struct{ name, accept, enc string }{f.name, f.accept, enc})
		}
	}
	return out
}()

const protoAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"

// A published snapshot is encoded in the background, in every format in
// use, once: the scrapes after it serve it without encoding anything on
// their path, consistently across formats.
func TestExpositionEncodesPublishedSnapshotInBackground(t *testing.T) {
	c := &snapshotter{}
	c.publish(2)
	x, _ := newTestExposition(t, c, &selfMetrics{})
	// The first scrape of all encodes on its path; every format once.
	for _, f := range allFormats {
		if n := tableInfos(t, x, f.accept, f.enc); n != 2 {
			t.Fatalf("%s %q: %d table_info series, want 2", f.name, f.enc, n)
		}
	}
	formats := int64(len(allFormats) - 2) // the default text format is text 0.0.4
	if n := x.onRequest.Load(); n != formats {
		t.Fatalf("%d encodings on the request path for %d formats", n, formats)
	}
	for range 5 {
		for _, f := range allFormats {
			tableInfos(t, x, f.accept, f.enc)
		}
	}
	if n, built := x.encodings.Load(), x.built.Load(); n != formats || built != 1 {
		t.Fatalf("after repeated scrapes: %d encodings, %d generations, want %d and 1", n, built, formats)
	}
	c.publish(4)
	x.Published()
	waitEncoded(t, x)
	if n, built := x.encodings.Load(), x.built.Load(); n != 2*formats || built != 2 {
		t.Errorf("after a publish: %d encodings in %d generations, want %d in 2", n, built, 2*formats)
	}
	for _, f := range allFormats {
		if n := tableInfos(t, x, f.accept, f.enc); n != 4 {
			t.Errorf("%s %q after a publish: %d table_info series, want 4", f.name, f.enc, n)
		}
	}
	if n := x.onRequest.Load(); n != formats {
		t.Errorf("%d encodings on the request path after a publish, want none more than the first %d", n, formats)
	}
	// A snapshot nobody announced: the scrape that finds it serves the
	// previous one and has it encoded for the next.
	c.publish(5)
	if n := tableInfos(t, x, "", ""); n != 4 && n != 5 {
		t.Errorf("unannounced snapshot: %d table_info series", n)
	}
	waitEncoded(t, x)
	if n := tableInfos(t, x, "", ""); n != 5 {
		t.Errorf("unannounced snapshot, next scrape: %d table_info series, want 5", n)
	}
	if n := x.onRequest.Load(); n != formats {
		t.Errorf("%d encodings on the request path, want %d", n, formats)
	}
}

// While a new snapshot is being encoded, scrapes serve the previous one,
// complete, in every format; then the new one. Publishes during the
// encoding coalesce into one more encoding.
func TestExpositionServesPreviousWhileEncoding(t *testing.T) {
	c := &snapshotter{}
	c.publish(2)
	x, _ := newTestExposition(t, c, &selfMetrics{})
	for _, f := range allFormats {
		tableInfos(t, x, f.accept, f.enc)
	}
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	x.beforeBuild = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	built := x.built.Load()
	c.publish(4)
	x.Published()
	<-entered // the worker is encoding the 4-table snapshot
	for _, n := range []int{5, 6, 7} {
		c.publish(n)
		x.Published()
	}
	for _, f := range allFormats {
		if n := tableInfos(t, x, f.accept, f.enc); n != 2 {
			t.Errorf("%s %q while encoding: %d table_info series, want the previous 2", f.name, f.enc, n)
		}
	}
	close(release)
	waitEncoded(t, x)
	for _, f := range allFormats {
		if n := tableInfos(t, x, f.accept, f.enc); n != 7 {
			t.Errorf("%s %q after encoding: %d table_info series, want 7", f.name, f.enc, n)
		}
	}
	// The blocked build read the snapshots once released (7 tables by
	// then); the publishes during the wait coalesce: at most one more.
	if n := x.built.Load() - built; n < 1 || n > 2 {
		t.Errorf("%d generations built for 4 publishes during one encoding, want 1 or 2", n)
	}
	if n := x.onRequest.Load(); n != int64(len(allFormats)-2) {
		t.Errorf("%d encodings on the request path, want only the first scrape's %d", n, len(allFormats)-2)
	}
}

// A format not asked for within formatKeep is no longer encoded on every
// publish; asked for again, it is encoded once on the request's path.
func TestExpositionForgetsUnusedFormats(t *testing.T) {
	c := &snapshotter{}
	c.publish(2)
	x, _ := newTestExposition(t, c, &selfMetrics{})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	x.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	tableInfos(t, x, protoAccept, "gzip")
	advance(time.Minute)
	tableInfos(t, x, "", "gzip")
	advance(formatKeep)
	// protobuf was last asked for 11 minutes ago, text 10.
	c.publish(3)
	x.Published()
	waitEncoded(t, x)
	if n := x.encodings.Load(); n != 3 {
		t.Errorf("%d encodings, want 3 (protobuf and text for the first snapshot, text for the second)", n)
	}
	if n := tableInfos(t, x, protoAccept, "gzip"); n != 3 {
		t.Errorf("protobuf asked for again: %d table_info series, want 3", n)
	}
	if n := x.onRequest.Load(); n != 3 {
		t.Errorf("%d encodings on the request path, want 3 (two first scrapes, protobuf again)", n)
	}
}

// Self-metrics are live: a change shows without a new snapshot.
func TestExpositionSelfMetricsLive(t *testing.T) {
	c := &snapshotter{}
	c.publish(2)
	self := &selfMetrics{}
	x, _ := newTestExposition(t, c, self)
	for _, enc := range []string{"", "gzip"} {
		body(t, get(t, x, "", enc))
	}
	self.cloudWatch.Store(7)
	for _, enc := range []string{"", "gzip"} {
		if b := string(body(t, get(t, x, "", enc))); !strings.Contains(b, catalogue.ExporterCloudWatchMetricsTotal+`{account="acct",region="us-east-1"} 7`) {
			t.Errorf("%q: self-metric not live:\n%s", enc, b)
		}
	}
}

// Over a real connection, every format's body matches its Content-Length
// and a gzip body decompresses (the client checks both).
func TestExpositionOverHTTP(t *testing.T) {
	c := &snapshotter{ms: bigSnapshot(20)}
	x, _ := newTestExposition(t, c, &selfMetrics{})
	srv := httptest.NewServer(x)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, f := range allFormats {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Accept", f.accept)
		if f.enc != "" {
			req.Header.Set("Accept-Encoding", f.enc)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ContentLength <= 0 {
			t.Errorf("%s %q: no Content-Length", f.name, f.enc)
		}
		b := body(t, resp) // fails on a short body or a bad CRC
		resp.Body.Close()
		if len(b) < 1000 {
			t.Errorf("%s %q: %d bytes", f.name, f.enc, len(b))
		}
	}
}

func TestNegotiateEncoding(t *testing.T) {
	for _, tc := range []struct {
		header []string
		want   string
	}{
		{nil, "identity"},
		{[]string{"gzip"}, "gzip"},
		{[]string{"gzip, deflate, br"}, "gzip"},
		{[]string{"identity;q=0.5, gzip"}, "gzip"},
		{[]string{"gzip;q=0.5, identity"}, "identity"},
		{[]string{"*"}, "identity"},
		{[]string{"zstd"}, "identity"},
		{[]string{"gzip;q=0, identity;q=0"}, ""},
	} {
		if got := negotiateEncoding(tc.header); got != tc.want {
			t.Errorf("Accept-Encoding %q: %q, want %q", tc.header, got, tc.want)
		}
	}
}

func TestCRC32Combine(t *testing.T) {
	data := make([]byte, 5000)
	for i := range data {
		data[i] = byte(i*7 + i/13)
	}
	for _, cut := range []int{0, 1, 7, 100, 4096, 4999, 5000} {
		a, b := data[:cut], data[cut:]
		got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), uint32(len(b)))
		if want := crc32.ChecksumIEEE(data); got != want {
			t.Errorf("cut at %d: %08x, want %08x", cut, got, want)
		}
	}
}

// fixed is a collector with a fixed snapshot, replaced by the test.
type fixed struct {
	name string
	p    atomic.Pointer[[]prometheus.Metric]
}

func (f *fixed) Metrics() []prometheus.Metric  { return *f.p.Load() }
func (f *fixed) store(ms ...prometheus.Metric) { f.p.Store(&ms) }
func (f *fixed) tables(family string, names ...string) {
	var ms []prometheus.Metric
	for _, n := range names {
		ms = append(ms, catalogue.MustMetric(family, 1, "acct", "us-east-1", n, "PROVISIONED", "STANDARD", "ACTIVE"))
	}
	f.store(ms...)
}

// sameAsPromhttp checks that every format of x serves what promhttp serves
// over reg.
func sameAsPromhttp(t *testing.T, x http.Handler, reg *prometheus.Registry) {
	t.Helper()
	full := promhttpOver(reg)
	for _, f := range textFormats {
		for _, enc := range []string{"", "gzip"} {
			gb, wb := body(t, get(t, x, f.accept, enc)), body(t, get(t, full, f.accept, enc))
			if g, w := stable(gb), stable(wb); !slices.Equal(g, w) {
				t.Errorf("%s %q: lines differ from promhttp's\n got %q\nwant %q", f.name, enc, g, w)
			}
			if g, w := familyOrder(gb), familyOrder(wb); !slices.Equal(g, w) {
				t.Errorf("%s %q: family order differs from promhttp's\n got %q\nwant %q", f.name, enc, g, w)
			}
		}
	}
}

// A publish re-encodes only its own collector's families; the others'
// are reused as they were encoded.
func TestExpositionReencodesOnlyThePublishingCollector(t *testing.T) {
	a, b := &fixed{name: "a"}, &fixed{name: "b"}
	a.tables(catalogue.TableInfo, "orders", "payments")
	b.store(catalogue.MustMetric(catalogue.ProvisionedReadCapacityUnits, 5, "acct", "us-east-1", "orders", ""),
		catalogue.MustMetric(catalogue.ExporterTables, 2, "acct", "us-east-1"))
	self := &selfMetrics{}
	x, reg := newCache(t, []Source{a, b}, self, true)
	sameAsPromhttp(t, x, reg)
	formats := x.encodings.Load() / 2 // two parts
	b.store(catalogue.MustMetric(catalogue.ProvisionedReadCapacityUnits, 7, "acct", "us-east-1", "orders", ""))
	x.Published()
	waitEncoded(t, x)
	if n := x.encodings.Load() - 2*formats; n != formats {
		t.Errorf("a publish of one collector of two: %d parts encoded, want %d (its own, per format)", n, formats)
	}
	sameAsPromhttp(t, x, reg)
	if x.joint.Load() {
		t.Error("disjoint collectors gathered together")
	}
}

// Two collectors emitting the same family: the snapshots are gathered
// together, so that the family is one block, as promhttp serves it.
func TestExpositionMergesFamilySharedByCollectors(t *testing.T) {
	a, b := &fixed{name: "a"}, &fixed{name: "b"}
	a.tables(catalogue.TableInfo, "orders", "payments")
	b.tables(catalogue.TableInfo, "accounts")
	self := &selfMetrics{}
	x, reg := newCache(t, []Source{a, b}, self, true)
	sameAsPromhttp(t, x, reg)
	if !x.joint.Load() {
		t.Error("a family shared by two collectors did not make them gathered together")
	}
	b.tables(catalogue.TableInfo, "accounts", "users")
	x.Published()
	waitEncoded(t, x)
	sameAsPromhttp(t, x, reg)
	// Found on a format first asked for after the snapshots were encoded
	// (in no format yet): served merged, and not counted as an error.
	y := cacheOver(t, reg, []Source{a, b}, self, true)
	y.Published()
	waitEncoded(t, y)
	sameAsPromhttp(t, y, reg)
	waitEncoded(t, y)
	if !y.joint.Load() || y.ready.Load().joint != true {
		t.Error("a family shared by two collectors, found on a scrape, did not make them gathered together")
	}
	var m dto.Metric
	if err := y.errs.WithLabelValues("gathering").Write(&m); err != nil {
		t.Fatal(err)
	}
	if v := m.GetCounter().GetValue(); v != 0 {
		t.Errorf("%v gathering errors counted for a family shared by two collectors", v)
	}
	if n := tableInfos(t, x, "", "gzip"); n != 4 {
		t.Errorf("%d table_info series, want 4", n)
	}
}

// A collector's part, reused while it publishes nothing new, keeps only
// the formats in use: a format no longer asked for is freed at the next
// publish of any collector.
func TestExpositionFreesUnusedFormatsOfReusedParts(t *testing.T) {
	a, b := &fixed{name: "a"}, &fixed{name: "b"}
	a.tables(catalogue.TableInfo, "orders")
	b.store(catalogue.MustMetric(catalogue.ExporterTables, 1, "acct", "us-east-1"))
	x, _ := newCache(t, []Source{a, b}, &selfMetrics{}, false)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	x.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tableInfos(t, x, protoAccept, "")
	mu.Lock()
	now = now.Add(formatKeep + time.Minute)
	mu.Unlock()
	tableInfos(t, x, "", "gzip")
	b.store(catalogue.MustMetric(catalogue.ExporterTables, 2, "acct", "us-east-1"))
	x.Published()
	waitEncoded(t, x)
	g := x.ready.Load()
	pa := g.parts[0]
	pa.mu.Lock()
	defer pa.mu.Unlock()
	if _, ok := pa.enc[cacheKey{expfmt.FmtProtoDelim, false}]; ok || len(pa.enc) != 1 {
		t.Errorf("collector a's part after protobuf went unused: %d formats kept (protobuf kept: %v), want text+gzip only", len(pa.enc), ok)
	}
}

// readerFromRecorder is a response recorder that is also an io.ReaderFrom,
// as net/http's response writer is; it counts the calls to ReadFrom.
type readerFromRecorder struct {
	*httptest.ResponseRecorder
	readFroms int
}

func (r *readerFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFroms++
	return io.Copy(r.ResponseRecorder, src)
}

// An uncompressed scrape above the plain limit, inflated from the
// compressed encoding a segment at a time, writes each segment through the
// exposition's pooled buffer: it never hands the response writer a reader
// to copy through a buffer of its own (net/http's allocates 32 KB a call,
// a segment per family), and the body is the one promhttp serves.
func TestInflatedScrapeWritesThroughItsBuffer(t *testing.T) {
	c := &snapshotter{}
	c.publish(3)
	x, reg := newTestExposition(t, c, &selfMetrics{})
	x.plainLimit = 0
	for _, f := range textFormats {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if f.accept != "" {
			req.Header.Set("Accept", f.accept)
		}
		rec := &readerFromRecorder{ResponseRecorder: httptest.NewRecorder()}
		x.ServeHTTP(rec, req)
		if rec.readFroms != 0 {
			t.Errorf("%s: %d calls to the response writer's ReadFrom, want 0", f.name, rec.readFroms)
		}
		got, want := stable(rec.Body.Bytes()), stable(body(t, get(t, promhttpOver(reg), f.accept, "")))
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: lines differ from promhttp's\n got %q\nwant %q", f.name, got, want)
		}
	}
}
