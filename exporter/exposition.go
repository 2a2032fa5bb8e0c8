package exporter

import (
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
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	promcollectors "github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Exposition serves /metrics without re-gathering and re-encoding what has
// not changed. The exposition has two parts:
//
//   - the collectors' snapshots (nearly every series), which change only
//     when a collector publishes a new snapshot after a cycle: each new set
//     of snapshots is gathered once and encoded, in the background, in
//     every format scraped lately (and compressed once for gzip); every
//     scrape until the next set is published serves those bytes as they
//     are;
//   - the live part (self-metrics, build info, Go and process metrics, the
//     handler's error counter), a few hundred series, gathered and encoded
//     on every scrape.
//
// The body is the snapshots' families followed by the live families (the
// two sets of names are disjoint; were they not, the scrape falls back to
// one full gather). Text, OpenMetrics and protobuf are served this way,
// identity or gzip; a request filtering families (name[]) or negotiating
// another encoding is served by promhttp over the full registry.
//
// A scrape never waits for an encoding, with two exceptions: the first
// scrape of all (nothing is encoded yet), and the first scrape in a format
// nobody asked for in the last formatKeep (encoding every format on every
// publish would cost the CPU and memory of formats nobody reads). While a
// new set of snapshots is being encoded, scrapes serve the previous set,
// complete.
type Exposition struct {
	collectors []collectors.Collector
	live       *prometheus.Registry // everything else
	full       http.Handler         // promhttp over the full registry
	errs       *prometheus.CounterVec
	logger     *slog.Logger

	// ready is the generation every scrape serves: complete in the
	// formats it was built with, extended on request with others.
	ready atomic.Pointer[generation]
	// building serialises the building of generations.
	building sync.Mutex
	// dirty: a snapshot was published since the worker last looked;
	// running: the background worker is running.
	dirty, running atomic.Bool

	formatsMu sync.Mutex
	formats   map[cacheKey]time.Time // the last request in each format

	// Counters for tests and benchmarks: generations built, formats
	// encoded (each identity or gzip body counts one), and the encodings
	// done on a request's path.
	built, encodings, onRequest atomic.Int64
	// beforeBuild, when set, runs before the background worker gathers a
	// generation (tests block the encoder with it).
	beforeBuild func()
	now         func() time.Time
}

// formatKeep is how long after its last request a format is still encoded
// in the background on every publish.
const formatKeep = 10 * time.Minute

// snapshotID identifies a published snapshot: collectors publish a new
// slice on every cycle and never modify one they published (a generation
// holds the slices it was built from, so an identity cannot be reused
// while it is compared).
type snapshotID struct {
	data unsafe.Pointer
	n    int
}

type cacheKey struct {
	format expfmt.Format
	gzip   bool
}

// encoded is the snapshots' part in one format: one buffer, the families
// in name order, cut into one segment per family so that the live
// families can be inserted in order. For gzip, each segment is a deflate
// stream sync-flushed (byte aligned, not final) with the CRC-32 and length
// of its uncompressed bytes, so that any run of them splices into one gzip
// member.
type encoded struct {
	once sync.Once
	buf  []byte
	segs []segment
	err  error
}

type segment struct {
	first     string // name of the family
	end       int    // offset in buf where the segment ends (it starts where the previous one ends)
	crc, size uint32 // gzip: of the uncompressed family
}

// generation is the cache of one set of published snapshots.
type generation struct {
	ids   []snapshotID
	snaps [][]prometheus.Metric
	mu    sync.Mutex
	names map[string]bool // families of the snapshots, once gathered
	enc   map[cacheKey]*encoded
}

// get returns g's entry for key, an empty one when key was not encoded.
func (g *generation) get(key cacheKey) *encoded {
	g.mu.Lock()
	defer g.mu.Unlock()
	en := g.enc[key]
	if en == nil {
		en = &encoded{}
		g.enc[key] = en
	}
	return en
}

// has reports whether g holds every key, encoded.
func (g *generation) has(keys []cacheKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		if g.enc[k] == nil {
			return false
		}
	}
	return true
}

func (g *generation) families() map[string]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.names
}

func (g *generation) setFamilies(names map[string]bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.names == nil {
		g.names = names
	}
}

// snapsCollector emits a set of snapshots.
type snapsCollector [][]prometheus.Metric

func (s snapsCollector) Describe(chan<- *prometheus.Desc) {}
func (s snapsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, ms := range s {
		for _, m := range ms {
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
// cache does not cover. Call Published when a collector has published a
// snapshot; a scrape that finds a snapshot newer than it serves calls it
// too.
func NewExposition(e *Exporter, full *prometheus.Registry, withRuntime bool, logger *slog.Logger) (*Exposition, error) {
	x := &Exposition{collectors: e.collectors, live: prometheus.NewRegistry(), logger: logger,
		formats: map[cacheKey]time.Time{}, now: time.Now}
	// Unchecked collectors: the snapshots' families vary with the tables.
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

// Published tells the exposition that a collector has published a new
// snapshot: it is encoded in the background, in the formats scraped
// lately, and served once complete. Calls while an encoding runs coalesce
// into one more encoding of the snapshots published by then.
func (x *Exposition) Published() {
	x.dirty.Store(true)
	if x.running.CompareAndSwap(false, true) {
		go x.work()
	}
}

// work is the background worker: it builds generations while snapshots
// are being published, then ends.
func (x *Exposition) work() {
	for {
		for x.dirty.Swap(false) {
			x.refresh()
		}
		x.running.Store(false)
		// A Published between the loop's end and the Store above found
		// the worker running: take its work.
		if !x.dirty.Load() || !x.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// refresh builds the generation of the published snapshots, in the formats
// in use, unless the ready one is already it.
func (x *Exposition) refresh() {
	x.building.Lock()
	defer x.building.Unlock()
	if x.beforeBuild != nil {
		x.beforeBuild()
	}
	snaps, ids := x.snapshots()
	keys := x.inUse()
	if g := x.ready.Load(); g != nil && slices.Equal(ids, g.ids) && g.has(keys) {
		return
	}
	x.ready.Store(x.newGeneration(ids, snaps, keys))
}

// first returns the ready generation, building it on the request's path
// when there is none yet (the first scrape of all).
func (x *Exposition) first() *generation {
	x.building.Lock()
	defer x.building.Unlock()
	if g := x.ready.Load(); g != nil {
		return g
	}
	snaps, ids := x.snapshots()
	keys := x.inUse()
	x.onRequest.Add(int64(len(keys)))
	g := x.newGeneration(ids, snaps, keys)
	x.ready.Store(g)
	return g
}

// snapshots returns the collectors' published snapshots and their identities.
func (x *Exposition) snapshots() ([][]prometheus.Metric, []snapshotID) {
	snaps := make([][]prometheus.Metric, len(x.collectors))
	ids := make([]snapshotID, len(x.collectors))
	for i, c := range x.collectors {
		snaps[i] = c.Metrics()
		ids[i] = snapshotID{unsafe.Pointer(unsafe.SliceData(snaps[i])), len(snaps[i])}
	}
	return snaps, ids
}

// stale reports whether a collector has published since g was built.
func (x *Exposition) stale(g *generation) bool {
	for i, c := range x.collectors {
		ms := c.Metrics()
		if (snapshotID{unsafe.Pointer(unsafe.SliceData(ms)), len(ms)}) != g.ids[i] {
			return true
		}
	}
	return false
}

// touch records a request in format key.
func (x *Exposition) touch(key cacheKey) {
	x.formatsMu.Lock()
	x.formats[key] = x.now()
	x.formatsMu.Unlock()
}

// inUse returns the formats requested within formatKeep, forgetting the others.
func (x *Exposition) inUse() []cacheKey {
	x.formatsMu.Lock()
	defer x.formatsMu.Unlock()
	now := x.now()
	keys := make([]cacheKey, 0, len(x.formats))
	for k, t := range x.formats {
		if now.Sub(t) > formatKeep {
			delete(x.formats, k)
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// newGeneration gathers snaps once and encodes them in every format of keys.
func (x *Exposition) newGeneration(ids []snapshotID, snaps [][]prometheus.Metric, keys []cacheKey) *generation {
	x.built.Add(1)
	g := &generation{ids: ids, snaps: snaps, enc: make(map[cacheKey]*encoded, len(keys))}
	if len(keys) == 0 {
		return g
	}
	mfs, names, err := gather(snaps)
	g.names = names
	formats := map[expfmt.Format][2]bool{} // identity, gzip
	for _, k := range keys {
		f := formats[k.format]
		if k.gzip {
			f[1] = true
		} else {
			f[0] = true
		}
		formats[k.format] = f
	}
	for format, want := range formats {
		var plain *encoded
		if err == nil {
			plain = encodePlain(mfs, format)
		} else {
			plain = &encoded{err: err}
		}
		if want[0] {
			x.encodings.Add(1)
			plain.once.Do(func() {})
			g.enc[cacheKey{format, false}] = plain
		}
		if want[1] {
			x.encodings.Add(1)
			z := compress(plain)
			z.once.Do(func() {})
			g.enc[cacheKey{format, true}] = z
		}
	}
	return g
}

// encode fills en, g's entry for key, on a request's path: the format was
// not in use when g was built.
func (x *Exposition) encode(g *generation, key cacheKey, en *encoded) {
	en.once.Do(func() {
		x.encodings.Add(1)
		x.onRequest.Add(1)
		mfs, names, err := gather(g.snaps)
		if err != nil {
			en.err = err
			return
		}
		g.setFamilies(names)
		e := encodePlain(mfs, key.format)
		if key.gzip {
			e = compress(e)
		}
		en.buf, en.segs, en.err = e.buf, e.segs, e.err
	})
}

// gather gathers snaps (sorted, checked for consistency) and returns the
// families and their names.
func gather(snaps [][]prometheus.Metric) ([]*dto.MetricFamily, map[string]bool, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(uncheckedCollector{snapsCollector(snaps)}); err != nil {
		return nil, nil, err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return nil, nil, fmt.Errorf("gathering the collectors' snapshots: %w", err)
	}
	names := make(map[string]bool, len(mfs))
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	return mfs, names, nil
}

// encodePlain encodes mfs in format, one segment per family.
func encodePlain(mfs []*dto.MetricFamily, format expfmt.Format) *encoded {
	var buf bytes.Buffer
	e := expfmt.NewEncoder(&buf, format)
	segs := make([]segment, 0, len(mfs))
	for _, mf := range mfs {
		if err := e.Encode(mf); err != nil {
			return &encoded{err: fmt.Errorf("encoding %s: %w", mf.GetName(), err)}
		}
		segs = append(segs, segment{first: mf.GetName(), end: buf.Len()})
	}
	// Closing adds nothing to the snapshots' part: OpenMetrics' "# EOF"
	// comes after the live families.
	return &encoded{buf: slices.Clip(buf.Bytes()), segs: segs}
}

// compress returns plain with each segment a sync-flushed deflate stream.
func compress(plain *encoded) *encoded {
	if plain.err != nil {
		return &encoded{err: plain.err}
	}
	var buf bytes.Buffer
	buf.Grow(len(plain.buf) / 16)
	fw, _ := flate.NewWriter(&buf, bulkCompression)
	segs := make([]segment, len(plain.segs))
	start := 0
	for i, sg := range plain.segs {
		b := plain.buf[start:sg.end]
		start = sg.end
		fw.Reset(&buf)
		_, _ = fw.Write(b)
		_ = fw.Flush() // byte-aligned and not final
		segs[i] = segment{first: sg.first, end: buf.Len(), crc: crc32.ChecksumIEEE(b), size: uint32(len(b))}
	}
	return &encoded{buf: slices.Clip(buf.Bytes()), segs: segs}
}

// bulkCompression is the deflate level of the snapshots' part, compressed
// once per publish in the background.
const bulkCompression = flate.DefaultCompression

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
	key := cacheKey{format: format, gzip: enc == "gzip"}
	x.touch(key)
	g := x.ready.Load()
	if g == nil {
		g = x.first()
	} else if x.stale(g) {
		// A snapshot nobody announced (a collector run outside the
		// scheduler): encode it for the next scrape.
		x.Published()
	}
	bulk := g.get(key)
	x.encode(g, key, bulk) // a no-op unless the format is new to g
	if bulk.err != nil {
		x.errs.WithLabelValues("gathering").Inc()
		x.logger.Error("error gathering or encoding the collectors' metrics", "err", bulk.err)
		x.full.ServeHTTP(w, r)
		return
	}
	liveMFs, err := x.live.Gather()
	if err != nil {
		x.errs.WithLabelValues("gathering").Inc()
		x.logger.Error("error gathering metrics", "err", err)
		if len(liveMFs) == 0 {
			http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	bulkNames := g.families()
	for _, mf := range liveMFs {
		if bulkNames[mf.GetName()] {
			// A family in both parts: one full gather merges it.
			x.full.ServeHTTP(w, r)
			return
		}
	}
	// The live families, encoded one after the other; chunk j is family j,
	// the last chunk what closing the encoder adds (OpenMetrics' "# EOF").
	lb := scratch.Get().(*bytes.Buffer)
	defer putScratch(lb)
	ends := make([]int, 0, len(liveMFs)+1)
	e := expfmt.NewEncoder(lb, format)
	for _, mf := range liveMFs {
		if err := e.Encode(mf); err != nil {
			x.errs.WithLabelValues("encoding").Inc()
			x.logger.Error("error encoding a metric family", "family", mf.GetName(), "err", err)
		}
		ends = append(ends, lb.Len())
	}
	if c, ok := e.(expfmt.Closer); ok {
		_ = c.Close()
	}
	ends = append(ends, lb.Len())
	live := lb.Bytes()
	// The body in order: runs of the snapshots' segments (contiguous in
	// the cached buffer, served as they are) and of live families, merged
	// by name as promhttp sorts them.
	type piece struct {
		bulk       bool
		start, end int // in bulk.buf, or chunks [start, end) of live
		segs       []segment
	}
	var pieces []piece
	i, j := 0, 0
	for i < len(bulk.segs) || j < len(liveMFs) {
		if j < len(liveMFs) && (i == len(bulk.segs) || liveMFs[j].GetName() < bulk.segs[i].first) {
			if n := len(pieces); n > 0 && !pieces[n-1].bulk {
				pieces[n-1].end = j + 1
			} else {
				pieces = append(pieces, piece{start: j, end: j + 1})
			}
			j++
			continue
		}
		start := 0
		if i > 0 {
			start = bulk.segs[i-1].end
		}
		if n := len(pieces); n > 0 && pieces[n-1].bulk {
			pieces[n-1].end = bulk.segs[i].end
			pieces[n-1].segs = bulk.segs[i-len(pieces[n-1].segs) : i+1]
		} else {
			pieces = append(pieces, piece{bulk: true, start: start, end: bulk.segs[i].end, segs: bulk.segs[i : i+1]})
		}
		i++
	}
	// The closing chunk joins the last live run, or makes one.
	if n := len(pieces); n > 0 && !pieces[n-1].bulk {
		pieces[n-1].end = len(liveMFs) + 1
	} else {
		pieces = append(pieces, piece{start: len(liveMFs), end: len(liveMFs) + 1})
	}
	liveBytes := func(p piece) []byte {
		s := 0
		if p.start > 0 {
			s = ends[p.start-1]
		}
		return live[s:ends[p.end-1]]
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", string(format))
	if !key.gzip {
		h.Set("Content-Length", strconv.Itoa(len(bulk.buf)+len(live)))
		for _, p := range pieces {
			if p.bulk {
				_, _ = w.Write(bulk.buf[p.start:p.end])
			} else {
				_, _ = w.Write(liveBytes(p))
			}
		}
		return
	}
	// One gzip member: the cached deflate segments and the live runs' own
	// deflate streams (a fresh compressor each, since back-references
	// cannot reach across the cached segments), a final empty block, then
	// the CRC-32 and length of the whole uncompressed body. The live runs
	// are compressed first, so that the length is known.
	zb := scratch.Get().(*bytes.Buffer)
	defer putScratch(zb)
	fw := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(fw)
	zends := make([]int, len(pieces)) // end of each live piece in zb
	for k, p := range pieces {
		if !p.bulk {
			fw.Reset(zb)
			_, _ = fw.Write(liveBytes(p))
			_ = fw.Flush()
		}
		zends[k] = zb.Len()
	}
	fw.Reset(zb)
	_ = fw.Close() // the final, empty block
	z := zb.Bytes()
	n := len(gzipHeader) + len(z) + 8
	for _, p := range pieces {
		if p.bulk {
			n += p.end - p.start
		}
	}
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(n))
	_, _ = w.Write(gzipHeader[:])
	var crc, size uint32
	zstart := 0
	for k, p := range pieces {
		if p.bulk {
			_, _ = w.Write(bulk.buf[p.start:p.end])
			for _, sg := range p.segs {
				crc = crc32Combine(crc, sg.crc, sg.size)
				size += sg.size
			}
			continue
		}
		_, _ = w.Write(z[zstart:zends[k]])
		zstart = zends[k]
		b := liveBytes(p)
		crc = crc32.Update(crc, crc32.IEEETable, b)
		size += uint32(len(b))
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], size)
	_, _ = w.Write(z[zstart:]) // the final block
	_, _ = w.Write(trailer[:])
}

// gzipHeader is a gzip member header (RFC 1952): deflate, no flags, no
// time, no extra flags, OS unknown.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// scratch holds the per-scrape buffers of the live part.
var scratch = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putScratch returns b to the pool unless it grew large (a live part is a
// few tens of kilobytes).
func putScratch(b *bytes.Buffer) {
	if b.Cap() > 1<<20 {
		return
	}
	b.Reset()
	scratch.Put(b)
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
