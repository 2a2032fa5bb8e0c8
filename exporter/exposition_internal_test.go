package exporter

import (
	"bytes"
	"compress/gzip"
	"context"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// snapshotter is a collector whose snapshot the test replaces, counting
// how often the exposition reads it.
type snapshotter struct {
	mu    sync.Mutex
	ms    []prometheus.Metric
	reads int
}

func (s *snapshotter) Name() string                                 { return "fake" }
func (s *snapshotter) Run(ctx context.Context, now time.Time) error { return nil }
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

func newTestExposition(t *testing.T, c *snapshotter, self *SelfMetrics) (*Exposition, *prometheus.Registry) {
	t.Helper()
	e := New([]collectors.Collector{c}, self)
	reg, err := NewRegistry(e, true)
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewExposition(e, reg, true, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return x, reg
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
// registry, in every format, identity and gzip.
func TestExpositionMatchesFullGather(t *testing.T) {
	c := &snapshotter{}
	c.publish(3)
	x, reg := newTestExposition(t, c, NewSelfMetrics())
	full, err := Handler(reg, "/metrics", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
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
	const proto = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"
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
		if g, w := names(get(t, x, proto, enc)), names(get(t, full, proto, enc)); !slices.Equal(g, w) || len(g) == 0 {
			t.Errorf("protobuf %q: families differ from promhttp's\n got %q\nwant %q", enc, g, w)
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

// The collectors' snapshots are gathered once per format and published
// snapshot; a new snapshot is served on the next scrape.
func TestExpositionEncodesOncePerSnapshot(t *testing.T) {
	c := &snapshotter{}
	c.publish(2)
	self := NewSelfMetrics()
	x, _ := newTestExposition(t, c, self)
	before := c.readCount()
	for range 5 {
		if n := strings.Count(string(body(t, get(t, x, "", ""))), catalogue.TableInfo+"{"); n != 2 {
			t.Fatalf("%d table_info series, want 2", n)
		}
	}
	// One read per scrape to see whether the snapshot changed, and one
	// gather for the format.
	if reads := c.readCount() - before; reads != 5+1 {
		t.Errorf("snapshot read %d times over 5 scrapes, want 6 (5 checks + 1 gather)", reads)
	}
	c.publish(4)
	if n := strings.Count(string(body(t, get(t, x, "", "gzip"))), catalogue.TableInfo+"{"); n != 4 {
		t.Errorf("after a new snapshot: %d table_info series, want 4", n)
	}
	if n := strings.Count(string(body(t, get(t, x, "", ""))), catalogue.TableInfo+"{"); n != 4 {
		t.Errorf("after a new snapshot, text: %d table_info series, want 4", n)
	}
	// Self-metrics are live: a change shows without a new snapshot.
	self.RecordCloudWatchMetrics("acct", "us-east-1", 7)
	for _, enc := range []string{"", "gzip"} {
		if b := string(body(t, get(t, x, "", enc))); !strings.Contains(b, catalogue.ExporterCloudWatchMetricsTotal+`{account="acct",region="us-east-1"} 7`) {
			t.Errorf("%q: self-metric not live:\n%s", enc, b)
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

// BenchmarkExposition serves /metrics over a snapshot of 10,000 series
// (about 100 tables), from the cache and through promhttp for comparison.
func BenchmarkExposition(b *testing.B) {
	c := &snapshotter{}
	var ms []prometheus.Metric
	for i := range 10000 {
		ms = append(ms, catalogue.MustMetric(catalogue.TableInfo, 1, "acct", "us-east-1", "table-"+strconv.Itoa(i), "PROVISIONED", "STANDARD", "ACTIVE"))
	}
	c.ms = ms
	e := New([]collectors.Collector{c}, NewSelfMetrics())
	reg, err := NewRegistry(e, true)
	if err != nil {
		b.Fatal(err)
	}
	x, err := NewExposition(e, reg, true, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	full, err := Handler(reg, "/metrics", slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"cached", x}, {"promhttp", full}} {
		for _, enc := range []string{"identity", "gzip"} {
			b.Run(h.name+"/"+enc, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
				req.Header.Set("Accept-Encoding", enc)
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.h.ServeHTTP(rec, req)
				}
			})
		}
	}
}
