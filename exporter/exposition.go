package exporter

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	promcollectors "github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Exposition serves /metrics without re-gathering and re-encoding what has
// not changed. The exposition has two parts:
//
//   - the collectors' snapshots (nearly every series), which change only
//     when a collector publishes a new snapshot after a cycle: they are
//     gathered and encoded once per format (and compressed once for gzip),
//     and the bytes are reused by every scrape until a snapshot changes;
//   - the live part (self-metrics, build info, Go and process metrics, the
//     handler's error counter), a few hundred series, gathered and encoded
//     on every scrape.
//
// The body is the snapshots' families followed by the live families (the
// two sets of names are disjoint; were they not, the scrape falls back to
// one full gather). Text, OpenMetrics and protobuf are served this way,
// identity or gzip; a request filtering families (name[]) or negotiating
// another encoding is served by promhttp over the full registry.
type Exposition struct {
	collectors []collectors.Collector
	bulk       *prometheus.Registry // the collectors' snapshots
	live       *prometheus.Registry // everything else
	full       http.Handler         // promhttp over the full registry
	errs       *prometheus.CounterVec
	logger     *slog.Logger

	mu  sync.Mutex
	gen *generation
}

// snapshotID identifies a published snapshot: collectors publish a new
// slice on every cycle and never modify one they published.
type snapshotID struct {
	data unsafe.Pointer
	n    int
}

type cacheKey struct {
	format expfmt.Format
	gzip   bool
	// split is, for gzip, the live families the bulk part was cut at.
	split string
}

// encoded is the bulk part in one format, in family-name order, cut into
// segments so that the live families can be inserted in order: for the
// identity encoding one segment per family, for gzip one per run of
// families between two live ones, each a deflate stream sync-flushed (byte
// aligned, not final) with the CRC-32 and length of its uncompressed bytes.
type encoded struct {
	once sync.Once
	segs []segment
	err  error
}

type segment struct {
	first string // name of the first family
	b     []byte
	crc   uint32
	size  uint32
}

// bulkCollector emits the collectors' snapshots.
type bulkCollector struct{ e *Exporter }

func (b bulkCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(b, ch) }
func (b bulkCollector) Collect(ch chan<- prometheus.Metric) {
	for _, c := range b.e.collectors {
		for _, m := range c.Metrics() {
			ch <- m
		}
	}
}

// liveCollector emits the exporter's own metrics.
type liveCollector struct{ e *Exporter }

func (l liveCollector) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(l, ch)
}
func (l liveCollector) Collect(ch chan<- prometheus.Metric) { l.e.collectSelf(ch) }

// NewExposition returns the cached exposition of e; full is the registry
// holding everything (NewRegistry), served by promhttp for the requests the
// cache does not cover.
func NewExposition(e *Exporter, full *prometheus.Registry, withRuntime bool, logger *slog.Logger) (*Exposition, error) {
	x := &Exposition{collectors: e.collectors, bulk: prometheus.NewRegistry(), live: prometheus.NewRegistry(), logger: logger}
	// Unchecked collectors: the snapshots' families vary with the tables.
	if err := x.bulk.Register(uncheckedCollector{bulkCollector{e}}); err != nil {
		return nil, err
	}
	if err := x.live.Register(uncheckedCollector{liveCollector{e}}); err != nil {
		return nil, err
	}
	if withRuntime {
		if err := x.live.Register(promcollectors.NewGoCollector()); err != nil {
			return nil, err
		}
		if err := x.live.Register(promcollectors.NewProcessCollector(promcollectors.ProcessCollectorOpts{})); err != nil {
			return nil, err
		}
	}
	x.full = promhttp.HandlerFor(full, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelError),
		EnableOpenMetrics: true,
		Registry:          full,
	})
	// promhttp registered its error counter in full: count in the same one,
	// and serve it in the live part.
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "promhttp_metric_handler_errors_total",
		Help: "Total number of internal errors encountered by the promhttp metric handler.",
	}, []string{"cause"})
	var are prometheus.AlreadyRegisteredError
	if err := full.Register(errs); err != nil && !errors.As(err, &are) {
		return nil, err
	} else if err != nil {
		errs = are.ExistingCollector.(*prometheus.CounterVec)
	}
	x.errs = errs
	if err := x.live.Register(errs); err != nil {
		return nil, err
	}
	return x, nil
}

// uncheckedCollector describes nothing, so that the registry does not
// check its metrics against descriptors announced in advance.
type uncheckedCollector struct{ c prometheus.Collector }

func (uncheckedCollector) Describe(chan<- *prometheus.Desc)      {}
func (u uncheckedCollector) Collect(ch chan<- prometheus.Metric) { u.c.Collect(ch) }

// generation is the cache of one set of published snapshots.
type generation struct {
	ids   []snapshotID
	mu    sync.Mutex
	names map[string]bool // families of the bulk part, once gathered
	enc   map[cacheKey]*encoded
}

// current returns the generation of the published snapshots, starting a
// new one when a collector has published since the last.
func (x *Exposition) current() *generation {
	ids := make([]snapshotID, len(x.collectors))
	for i, c := range x.collectors {
		ms := c.Metrics()
		ids[i] = snapshotID{unsafe.Pointer(unsafe.SliceData(ms)), len(ms)}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.gen == nil || !slices.Equal(ids, x.gen.ids) {
		x.gen = &generation{ids: ids, enc: map[cacheKey]*encoded{}}
	}
	return x.gen
}

// ServeHTTP serves the exposition.
func (x *Exposition) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL != nil && len(r.URL.Query()["name[]"]) > 0 {
		x.full.ServeHTTP(w, r)
		return
	}
	enc := negotiateEncoding(r.Header.Values("Accept-Encoding"))
	if enc != "identity" && enc != "gzip" {
		x.full.ServeHTTP(w, r)
		return
	}
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...)
	g := x.current()
	liveMFs, err := x.live.Gather()
	if err != nil {
		x.errs.WithLabelValues("gathering").Inc()
		x.logger.Error("error gathering metrics", "err", err)
		if len(liveMFs) == 0 {
			http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	names := make([]string, len(liveMFs))
	for i, mf := range liveMFs {
		names[i] = mf.GetName()
	}
	key := cacheKey{format: format, gzip: enc == "gzip"}
	if key.gzip {
		key.split = strings.Join(names, "\n")
	}
	bulk, err := x.encode(g, key, names)
	if err != nil {
		x.errs.WithLabelValues("gathering").Inc()
		x.logger.Error("error gathering or encoding the collectors' metrics", "err", err)
		x.full.ServeHTTP(w, r)
		return
	}
	g.mu.Lock()
	bulkNames := g.names
	g.mu.Unlock()
	for _, n := range names {
		if bulkNames[n] {
			// A family in both parts: one full gather merges it.
			x.full.ServeHTTP(w, r)
			return
		}
	}
	// The live families, encoded one after the other; chunk j is family j,
	// the last chunk what closing the encoder adds (OpenMetrics' "# EOF").
	var live bytes.Buffer
	ends := make([]int, 0, len(liveMFs)+1)
	e := expfmt.NewEncoder(&live, format)
	for _, mf := range liveMFs {
		if err := e.Encode(mf); err != nil {
			x.errs.WithLabelValues("encoding").Inc()
			x.logger.Error("error encoding a metric family", "family", mf.GetName(), "err", err)
		}
		ends = append(ends, live.Len())
	}
	if c, ok := e.(expfmt.Closer); ok {
		_ = c.Close()
	}
	ends = append(ends, live.Len())
	chunk := func(j int) []byte {
		if j == 0 {
			return live.Bytes()[:ends[0]]
		}
		return live.Bytes()[ends[j-1]:ends[j]]
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", string(format))
	// Segments and live families merge in name order, as promhttp sorts.
	merge := func(seg func(segment), lv func(j int)) {
		i, j := 0, 0
		for i < len(bulk.segs) || j < len(names) {
			if j < len(names) && (i == len(bulk.segs) || names[j] < bulk.segs[i].first) {
				lv(j)
				j++
			} else {
				seg(bulk.segs[i])
				i++
			}
		}
	}
	if !key.gzip {
		n := live.Len()
		for _, sg := range bulk.segs {
			n += len(sg.b)
		}
		h.Set("Content-Length", strconv.Itoa(n))
		merge(func(sg segment) { _, _ = w.Write(sg.b) }, func(j int) { _, _ = w.Write(chunk(j)) })
		_, _ = w.Write(chunk(len(names)))
		return
	}
	// One gzip member: the cached deflate segments and the live families'
	// own deflate blocks (a fresh compressor each, since back-references
	// cannot reach across the cached segments), a final empty block, then
	// the CRC-32 and length of the whole uncompressed body.
	h.Set("Content-Encoding", "gzip")
	bw := bufio.NewWriterSize(w, 32<<10)
	fw := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(fw)
	var crc, size uint32
	pending := []byte(nil) // live bytes not yet compressed
	flushLive := func() {
		if len(pending) == 0 {
			return
		}
		fw.Reset(bw)
		_, _ = fw.Write(pending)
		_ = fw.Flush()
		crc = crc32.Update(crc, crc32.IEEETable, pending)
		size += uint32(len(pending))
		pending = pending[:0]
	}
	_, _ = bw.Write(gzipHeader[:])
	merge(func(sg segment) {
		flushLive()
		_, _ = bw.Write(sg.b)
		crc = crc32Combine(crc, sg.crc, sg.size)
		size += sg.size
	}, func(j int) { pending = append(pending, chunk(j)...) })
	pending = append(pending, chunk(len(names))...)
	flushLive()
	fw.Reset(bw)
	_ = fw.Close() // the final, empty block
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], size)
	_, _ = bw.Write(trailer[:])
	_ = bw.Flush()
}

// gzipHeader is a gzip member header (RFC 1952): deflate, no flags, no
// time, no extra flags, OS unknown.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// encode returns the bulk part of generation g for key, gathering and
// encoding it on the first request for key; live are the names of the
// live families (sorted), where a gzip encoding is cut.
func (x *Exposition) encode(g *generation, key cacheKey, live []string) (*encoded, error) {
	g.mu.Lock()
	en := g.enc[key]
	if en == nil {
		en = &encoded{}
		g.enc[key] = en
	}
	g.mu.Unlock()
	en.once.Do(func() {
		mfs, err := x.bulk.Gather()
		if err != nil {
			en.err = fmt.Errorf("gathering the collectors' snapshots: %w", err)
			return
		}
		names := make(map[string]bool, len(mfs))
		var plain bytes.Buffer
		e := expfmt.NewEncoder(&plain, key.format)
		var segs []segment
		start := 0 // of the current segment in plain
		cut := func() {
			if plain.Len() > start {
				segs = append(segs, segment{b: bytes.Clone(plain.Bytes()[start:])})
				start = plain.Len()
			}
		}
		var firsts []string
		for k, mf := range mfs {
			name := mf.GetName()
			names[name] = true
			// Identity: one segment per family; gzip: a new segment
			// when a live family sorts between this family and the
			// previous one.
			if k > 0 && (!key.gzip || liveBetween(live, mfs[k-1].GetName(), name)) {
				cut()
			}
			if plain.Len() == start {
				firsts = append(firsts, name)
			}
			if err := e.Encode(mf); err != nil {
				en.err = fmt.Errorf("encoding %s: %w", name, err)
				return
			}
		}
		cut()
		for i := range segs {
			segs[i].first = firsts[i]
		}
		g.mu.Lock()
		g.names = names
		g.mu.Unlock()
		if key.gzip {
			var buf bytes.Buffer
			fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
			for i, sg := range segs {
				buf.Reset()
				fw.Reset(&buf)
				_, _ = fw.Write(sg.b)
				_ = fw.Flush() // byte-aligned and not final
				segs[i] = segment{first: sg.first, b: bytes.Clone(buf.Bytes()), crc: crc32.ChecksumIEEE(sg.b), size: uint32(len(sg.b))}
			}
		}
		en.segs = segs
	})
	return en, en.err
}

// liveBetween reports whether a live family sorts between a and b.
func liveBetween(live []string, a, b string) bool {
	i, _ := slices.BinarySearch(live, a)
	return i < len(live) && live[i] < b && live[i] != a
}

// crc32Combine returns the CRC-32 (IEEE) of A followed by B from crcA,
// crcB and the length of B: CRC(A‖B) = CRC(A)·x^(8·len B) + CRC(B) modulo
// the CRC polynomial (the pre- and post-inversions cancel out).
func crc32Combine(crcA, crcB, lenB uint32) uint32 {
	p := uint32(1) << 31    // x^0, bit-reflected
	base := uint32(1) << 23 // x^8
	for n := lenB; n != 0; n >>= 1 {
		if n&1 != 0 {
			p = mulModP(p, base)
		}
		base = mulModP(base, base)
	}
	return mulModP(p, crcA) ^ crcB
}

// mulModP multiplies two bit-reflected polynomials modulo the IEEE CRC-32
// polynomial (0xedb88320 reflected): bit 31 is x^0, bit 0 is x^31.
func mulModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32.IEEE
		} else {
			b >>= 1
		}
	}
	return p
}

// negotiateEncoding picks identity or gzip from Accept-Encoding headers
// the way promhttp does: the offer with the highest q wins, identity first
// on a tie; "" when the best q is 0.
func negotiateEncoding(values []string) string {
	best, bestQ := "identity", -1.0
	for _, offer := range []string{"identity", "gzip"} {
		for _, v := range values {
			for _, part := range strings.Split(v, ",") {
				name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
				name = strings.ToLower(strings.TrimSpace(name))
				q := 1.0
				for _, p := range strings.Split(params, ";") {
					if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.TrimSpace(k) == "q" {
						if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
							q = f
						}
					}
				}
				if name == "" {
					continue
				}
				if q > bestQ && (name == "*" || name == offer) {
					best, bestQ = offer, q
				}
			}
		}
	}
	if bestQ == 0 {
		return ""
	}
	return best
}
