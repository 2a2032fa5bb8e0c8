package exposition

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// benchFormats are the formats the bench command scrapes, identity and gzip.
var benchFormats = []struct{ name, accept string }{
	{"text", "text/plain;version=0.0.4"},
	{"OpenMetrics", "application/openmetrics-text;version=1.0.0"},
	{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"},
}

// bigSnapshot returns a snapshot of every catalogued AWS and derived family
// for n tables, two series per family and table (one per account and region
// for the account-level families): 99,900 series at n = 1,030, what
// 1,000 tables with 2 GSIs expose.
//
// Like the collectors' snapshots, the series share their label values' strings
// (a table's name is one string, not one per series), so that the heap it
// holds is the metrics' own.
// benchTables is the tables of the exposition benchmarks' snapshot: 1,030
// (about 100,000 series), or 103 under -short, where the test command runs
// every benchmark once to prove it runs, not to measure it.
func benchTables() int {
	if testing.Short() {
		return 103
	}
	return 1030
}

func bigSnapshot(n int) []prometheus.Metric {
	var ms []prometheus.Metric
	seen := map[string]bool{}
	tables := make([]string, n)
	for i := range tables {
		tables[i] = "table-" + strconv.Itoa(i)
	}
	others := map[string]string{}
	other := func(l string, v int) string {
		k := l + "-" + strconv.Itoa(v)
		if s, ok := others[k]; ok {
			return s
		}
		others[k] = k
		return k
	}
	for _, f := range catalogue.All() {
		if strings.HasPrefix(f.Name, "dynamodb_exporter_") {
			continue
		}
		for i := range n {
			for v := range 2 {
				values := make([]string, len(f.Labels))
				for k, l := range f.Labels {
					switch l {
					case "account":
						values[k] = "123456789012"
					case "region":
						values[k] = "us-east-1"
					case "table":
						values[k] = tables[i]
					default:
						values[k] = other(l, v)
					}
				}
				if k := f.Name + "\xff" + strings.Join(values, "\xff"); !seen[k] {
					seen[k] = true
					ms = append(ms, catalogue.MustMetric(f.Name, float64(i*7+v)/3, values...))
				}
			}
		}
	}
	return ms
}

func newBenchExposition(b *testing.B, c *snapshotter) (*Cache, http.Handler) {
	b.Helper()
	x, reg := newTestExposition(b, c, &selfMetrics{})
	return x, promhttpOver(reg)
}

// discard is a ResponseWriter that counts and drops the body, so that the
// benchmarks measure the handler, not a recorder's buffer.
type discard struct {
	h    http.Header
	n    int
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// BenchmarkExposition serves /metrics over a snapshot of about 100,000
// series (1,000 tables), per format, from the cache and through promhttp
// for comparison.
func BenchmarkExposition(b *testing.B) {
	c := &snapshotter{ms: bigSnapshot(benchTables())}
	x, full := newBenchExposition(b, c)
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"cached", x}, {"promhttp", full}} {
		for _, f := range benchFormats {
			for _, enc := range []string{"identity", "gzip"} {
				b.Run(h.name+"/"+f.name+"/"+enc, func(b *testing.B) {
					req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
					req.Header.Set("Accept", f.accept)
					req.Header.Set("Accept-Encoding", enc)
					first := &discard{h: http.Header{}}
					h.h.ServeHTTP(first, req) // the first, encoding scrape
					if first.code != 0 && first.code != http.StatusOK {
						b.Fatalf("status %d", first.code)
					}
					var n int
					for b.Loop() {
						d := &discard{h: http.Header{}}
						h.h.ServeHTTP(d, req)
						n = d.n
					}
					b.ReportMetric(float64(n), "bytes/scrape")
				})
			}
		}
	}
}

// BenchmarkExpositionParallel serves /metrics to concurrent scrapers (as
// many as GOMAXPROCS × 5, at least 10) over about 100,000 series.
func BenchmarkExpositionParallel(b *testing.B) {
	c := &snapshotter{ms: bigSnapshot(benchTables())}
	x, _ := newBenchExposition(b, c)
	for _, f := range benchFormats {
		for _, enc := range []string{"identity", "gzip"} {
			b.Run(f.name+"/"+enc, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
				req.Header.Set("Accept", f.accept)
				req.Header.Set("Accept-Encoding", enc)
				x.ServeHTTP(&discard{h: http.Header{}}, req)
				b.SetParallelism(5)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						x.ServeHTTP(&discard{h: http.Header{}}, req)
					}
				})
			})
		}
	}
}

// BenchmarkExpositionBuild builds the generation of a new snapshot of about
// 100,000 series (gathered and encoded a family at a time) after one of the
// previous snapshot, in one format in use (Prometheus's scrapes: protobuf or
// text, gzip), or eagerly in every cached format. It reports the bytes the
// generation keeps (bytes-kept: its bodies; live-MiB: all it holds, spare
// capacity included) and how far the heap rises above the live heap while
// one is built (peak-MiB, see peakDuring).
func BenchmarkExpositionBuild(b *testing.B) {
	c := &snapshotter{ms: bigSnapshot(benchTables())}
	x, _ := newBenchExposition(b, c)
	snaps, ids := x.snapshots()
	all := []cacheKey{}
	for _, f := range []expfmt.Format{expfmt.FmtText, expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtProtoDelim} {
		all = append(all, cacheKey{f, false}, cacheKey{f, true})
	}
	for _, tc := range []struct {
		name string
		keys []cacheKey
	}{
		{"text+gzip", []cacheKey{{expfmt.FmtText, true}}},
		{"OpenMetrics+gzip", []cacheKey{{expfmt.FmtOpenMetrics_1_0_0, true}}},
		{"protobuf+gzip", []cacheKey{{expfmt.FmtProtoDelim, true}}},
		{"text", []cacheKey{{expfmt.FmtText, false}}},
		{"all", all},
	} {
		b.Run(tc.name, func(b *testing.B) {
			// A publish: the generation is built anew (the snapshot's
			// identity changes) while the previous one is served.
			var g *generation
			republish := func() {
				next := ids
				if g != nil && slices.Equal(g.ids, ids) {
					next = []snapshotID{{n: -1}}
				}
				g = x.newGeneration(g, next, snaps, tc.keys, false)
			}
			for b.Loop() {
				republish()
			}
			kept := 0
			for _, p := range g.parts {
				for _, en := range p.enc {
					if en.err != nil {
						b.Fatal(en.err)
					}
					kept += cap(en.buf) + cap(en.segs)*int(unsafe.Sizeof(segment{}))
				}
			}
			b.ReportMetric(float64(kept), "bytes-kept")
			peak := peakDuring(republish)
			with := liveHeap()
			runtime.KeepAlive(g)
			g = nil
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(with-liveHeap())/(1<<20), "live-MiB")
		})
	}
}

// BenchmarkSnapshotLiveHeap reports the heap a snapshot of about 100,000
// series (1,000 tables) holds: what every collector's published snapshot
// costs until the next one replaces it.
func BenchmarkSnapshotLiveHeap(b *testing.B) {
	var live uint64
	var n int
	for b.Loop() {
		before := liveHeap()
		ms := bigSnapshot(benchTables())
		live = liveHeap() - before
		n = len(ms)
		runtime.KeepAlive(ms)
	}
	b.ReportMetric(float64(live)/(1<<20), "live-MiB")
	b.ReportMetric(float64(live)/float64(n), "live-B/series")
}

// liveHeap returns the bytes of live heap objects, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	return heapObjects()
}

// heapObjects returns the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakDuring returns how far the heap rises above its live size while f
// runs: the largest heap sampled every 100µs, with the collector at GOGC=10
// so that garbage is collected promptly and the figure approaches what f
// holds at once (plus at most a tenth of the live heap).
func peakDuring(f func()) uint64 {
	base := liveHeap()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		var peak uint64
		for {
			if h := heapObjects(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	if peak := <-done; peak > base {
		return peak - base
	}
	return 0
}

// A burst of 10 concurrent scrapers in every format does not grow the heap:
// the cached bodies are served as they are, the per-scrape buffers pooled.
func TestExpositionBurstDoesNotGrowHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-series snapshot")
	}
	c := &snapshotter{ms: bigSnapshot(200)}
	x, _ := newTestExposition(t, c, &selfMetrics{})
	var reqs []*http.Request
	for _, f := range benchFormats {
		for _, enc := range []string{"identity", "gzip"} {
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			req.Header.Set("Accept", f.accept)
			req.Header.Set("Accept-Encoding", enc)
			x.ServeHTTP(&discard{h: http.Header{}}, req) // encodes the format
			reqs = append(reqs, req)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC() // pooled buffers survive one collection
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	burst := func() {
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				for range 5 {
					for _, req := range reqs {
						x.ServeHTTP(&discard{h: http.Header{}}, req)
					}
				}
			})
		}
		wg.Wait()
	}
	burst() // fills the pools
	before := heap()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	burst()
	runtime.ReadMemStats(&m1)
	after := heap()
	runtime.KeepAlive(x)
	runtime.KeepAlive(c)
	perScrape := (m1.TotalAlloc - m0.TotalAlloc) / uint64(10*5*len(reqs))
	t.Logf("heap %d kB before a burst of %d scrapes, %d kB after; %d kB allocated per scrape",
		before>>10, 10*5*len(reqs), after>>10, perScrape>>10)
	if after > before+1<<20 {
		t.Errorf("a burst grew the heap from %d kB to %d kB", before>>10, after>>10)
	}
	// The largest body is about 2.8 MB: a scrape that copied it would
	// allocate as much.
	if perScrape > 512<<10 {
		t.Errorf("%d kB allocated per scrape", perScrape>>10)
	}
}
