// Package exposition serves /metrics from a cache: the metrics a
// Prometheus server scrapes are encoded when they change, not on every
// scrape. It knows nothing of AWS or of the collectors: it serves the
// snapshots of its sources and the live collectors it is given, beside
// the full registry that holds the same metrics.
//
// What it guarantees:
//
//   - What a scrape sees: the same series, HELP, TYPE and family order as
//     promhttp serving the full registry, in one body. The sources'
//     snapshots are served as of a complete generation: every source's
//     last published snapshot, each one whole (never half a cycle), the
//     previous generation while a new one is encoded; the live part is
//     gathered on every scrape.
//   - Formats: the text format (0.0.4), OpenMetrics (1.0.0 and 0.0.1) and
//     delimited protobuf, each identity or gzip (one gzip member, spliced
//     from per-family deflate streams). A request filtering families
//     (name[]) or negotiating another encoding is served by promhttp over
//     the full registry, as is the rare scrape the cache cannot serve (an
//     error, a family found in two sources on a new format).
//   - Concurrency: any number of scrapes at once, lock-free on the common
//     path; a scrape waits for an encoding only for the first scrape of all
//     and the first scrape in a format nobody asked for in formatKeep
//     (concurrent ones share it). Published may be called from any
//     goroutine; calls while an encoding runs coalesce into one more.
//   - Memory: one encoded body per format scraped within formatKeep, held
//     as the buffers of each source's part, not copied per scrape, and
//     above PlainSeriesLimit series only compressed (an uncompressed
//     scrape inflates it as it writes it); a
//     snapshot is gathered a family at a time (the dto of its largest
//     family at once, not a second copy of the snapshot); a generation
//     replaced is freed once the scrapes serving it are done.
//
// How: the body is the snapshots' families and the live families merged
// in name order, as promhttp sorts them (the two sets of names are
// disjoint; were they not, the scrape falls back to one full gather). Each
// new snapshot is gathered once and encoded in the background, in every
// format scraped lately (and compressed once for gzip), and the other
// sources' encodings are reused. Encoding every format on every publish
// instead would cost about three times the CPU and, at 1,000 tables, 55 MB
// of bodies nobody reads (BenchmarkExpositionBuild): a Prometheus server
// asks for one format.
package exposition

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
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
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Source is what the cache serves snapshots of (every collector is one):
// Metrics returns the last snapshot the source published, a slice it
// never modifies once returned (a new snapshot is a new slice), so that
// an unchanged snapshot is recognised by its identity.
type Source interface {
	Metrics() []prometheus.Metric
}

// Cache serves /metrics without re-gathering and re-encoding what has
// not changed (package doc). Call Published when a source has published a
// snapshot.
type Cache struct {
	sources []Source
	live    *prometheus.Registry // everything else
	full    http.Handler         // promhttp over the full registry
	errs    *prometheus.CounterVec
	logger  *slog.Logger

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

	// joint: two sources emit the same family, so that the snapshots
	// are gathered together (a part over all), not one by one.
	joint atomic.Bool

	// Counters for tests and benchmarks: generations built, parts encoded
	// in a format (each identity or gzip body counts one), and formats
	// encoded on a request's path.
	built, encodings, onRequest atomic.Int64
	// beforeBuild, when set, runs before the background worker gathers a
	// generation (tests block the encoder with it).
	beforeBuild func()
	now         func() time.Time
	// plainLimit is PlainSeriesLimit (tests lower it).
	plainLimit int
}

// PlainSeriesLimit is the number of snapshot series up to which a format
// scraped without compression is held as it is sent. Above it (about
// 4 MB of text; 1,000 tables hold about 136,000 series, 24 MB in text and
// OpenMetrics, 18 MB in protobuf), only the compressed encoding is held
// and an uncompressed scrape inflates it as it writes it: about 0.8 ms a MB
// of the exporter's CPU (BenchmarkExposition), instead of holding each
// such body, twice while a new one is encoded. Prometheus asks for gzip.
const PlainSeriesLimit = 25_000

// seriesHeld returns how many series the sources' snapshots hold.
func (x *Cache) seriesHeld() int {
	n := 0
	for _, c := range x.sources {
		n += len(c.Metrics())
	}
	return n
}

// formatKeep is how long after its last request a format is still encoded
// in the background on every publish.
const formatKeep = 10 * time.Minute

// snapshotID identifies a published snapshot: sources publish a new
// slice on every cycle and never modify one they published (a generation
// holds the slices it was built from, so an identity cannot be reused
// while it is compared).
type snapshotID struct {
	data unsafe.Pointer
	n    int
}

func idOf(ms []prometheus.Metric) snapshotID {
	return snapshotID{unsafe.Pointer(unsafe.SliceData(ms)), len(ms)}
}

type cacheKey struct {
	format expfmt.Format
	gzip   bool
}

// part is one source's snapshot (or, when two sources emit the same
// family, all of them), encoded in the formats asked for. A part is
// reused by the next generations until its source publishes again, so
// that a publish re-encodes only its own source's families.
type part struct {
	snap []prometheus.Metric
	// hint: the bytes of the part it replaces in each format, so that its
	// buffers are allocated once, at about their size.
	hint map[cacheKey]int
	mu   sync.Mutex
	enc  map[cacheKey]*encoded
}

// encoded is a part in one format: one buffer, the families in no
// particular order (views sort them), cut into one segment per family so
// that the families of the other parts and the live ones can be inserted
// in order. For gzip, each segment is a deflate stream sync-flushed (byte
// aligned, not final) with the CRC-32 and length of its uncompressed
// bytes, so that any sequence of them splices into one gzip member.
type encoded struct {
	done chan struct{} // closed once the fields below are set
	buf  []byte
	segs []segment
	err  error
}

type segment struct {
	first     string // name of the family
	end       int    // offset in buf where the segment ends (it starts where the previous one ends)
	crc, size uint32 // gzip: of the uncompressed family
}

// generation is the cache of one set of published snapshots: their parts
// and, per format, the parts' segments merged in name order.
type generation struct {
	ids   []snapshotID
	joint bool // one part over all the snapshots
	parts []*part
	mu    sync.Mutex
	views map[cacheKey]*view
}

// view is a generation's body in one format, but for the live families:
// every part's segments, in name order.
type view struct {
	once  sync.Once
	segs  []piece
	size  int
	names map[string]bool
	err   error
}

// piece is a family's segment in the buffer of its part.
type piece struct {
	first     string
	b         []byte
	crc, size uint32
}

// errOverlap: two sources emit the same family, which one gather must merge.
var errOverlap = errors.New("two sources emit the same family")

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

// New returns the cache of sources' snapshots and of the live collectors
// (gathered on every scrape: registered as they are, so a collector that
// describes nothing is not checked against descriptors). full is the
// registry holding everything, sources and live alike, served by promhttp
// for the requests the cache does not cover; its promhttp error counter
// (promhttp_metric_handler_errors_total) is served in the live part.
func New(sources []Source, live []prometheus.Collector, full *prometheus.Registry, logger *slog.Logger) (*Cache, error) {
	x := &Cache{sources: sources, live: prometheus.NewRegistry(), logger: logger,
		formats: map[cacheKey]time.Time{}, now: time.Now, plainLimit: PlainSeriesLimit}
	for _, c := range live {
		if err := x.live.Register(c); err != nil {
			return nil, fmt.Errorf("registering a live collector: %w", err)
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

// Published tells the exposition that a source has published a new
// snapshot: it is encoded in the background, in the formats scraped
// lately, and served once complete. Calls while an encoding runs coalesce
// into one more encoding of the snapshots published by then.
func (x *Cache) Published() {
	x.dirty.Store(true)
	if x.running.CompareAndSwap(false, true) {
		go x.work()
	}
}

// work is the background worker: it builds generations while snapshots
// are being published, then ends.
func (x *Cache) work() {
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
func (x *Cache) refresh() {
	x.building.Lock()
	defer x.building.Unlock()
	if x.beforeBuild != nil {
		x.beforeBuild()
	}
	snaps, ids := x.snapshots()
	keys := x.inUse()
	prev := x.ready.Load()
	if prev != nil && slices.Equal(ids, prev.ids) && prev.joint == x.joint.Load() && prev.has(keys) {
		return
	}
	x.ready.Store(x.newGeneration(prev, ids, snaps, keys, false))
}

// first returns the ready generation, building it on the request's path
// when there is none yet (the first scrape of all).
func (x *Cache) first() *generation {
	x.building.Lock()
	defer x.building.Unlock()
	if g := x.ready.Load(); g != nil {
		return g
	}
	snaps, ids := x.snapshots()
	g := x.newGeneration(nil, ids, snaps, x.inUse(), true)
	x.ready.Store(g)
	return g
}

// snapshots returns the sources' published snapshots and their identities.
func (x *Cache) snapshots() ([][]prometheus.Metric, []snapshotID) {
	snaps := make([][]prometheus.Metric, len(x.sources))
	ids := make([]snapshotID, len(x.sources))
	for i, c := range x.sources {
		snaps[i] = c.Metrics()
		ids[i] = idOf(snaps[i])
	}
	return snaps, ids
}

// stale reports whether a source has published since g was built.
func (x *Cache) stale(g *generation) bool {
	for i, c := range x.sources {
		if idOf(c.Metrics()) != g.ids[i] {
			return true
		}
	}
	return false
}

// touch records a request in format key.
func (x *Cache) touch(key cacheKey) {
	x.formatsMu.Lock()
	x.formats[key] = x.now()
	x.formatsMu.Unlock()
}

// inUse returns the formats requested within formatKeep, forgetting the others.
func (x *Cache) inUse() []cacheKey {
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

// newGeneration returns the generation of snaps, encoded in every format
// of keys: the parts of prev whose snapshot is unchanged are reused, the
// others gathered (a family at a time) and encoded. onRequest: built on a
// request's path (counted as such).
func (x *Cache) newGeneration(prev *generation, ids []snapshotID, snaps [][]prometheus.Metric, keys []cacheKey, onRequest bool) *generation {
	x.built.Add(1)
	g := &generation{ids: ids, joint: x.joint.Load(), views: map[cacheKey]*view{}}
	if g.joint {
		// Families shared between sources: one part over all.
		g.parts = []*part{{snap: slices.Concat(snaps...), enc: map[cacheKey]*encoded{}}}
		if prev != nil && prev.joint {
			g.parts[0].hint = prev.parts[0].sizes()
		}
	} else {
		g.parts = make([]*part, len(snaps))
		for i, s := range snaps {
			if prev != nil && len(prev.parts) == len(snaps) && prev.ids[i] == ids[i] {
				g.parts[i] = prev.parts[i]
				g.parts[i].retain(keys)
			} else {
				g.parts[i] = &part{snap: s, enc: map[cacheKey]*encoded{}}
				if prev != nil && !prev.joint && len(prev.parts) == len(snaps) {
					g.parts[i].hint = prev.parts[i].sizes()
				}
			}
		}
	}
	if len(keys) == 0 {
		return g
	}
	before := x.encodings.Load()
	for _, p := range g.parts {
		x.encodePart(p, keys)
	}
	if onRequest && x.encodings.Load() > before {
		x.onRequest.Add(int64(len(keys)))
	}
	for _, k := range keys {
		if v := g.view(x, k, false); errors.Is(v.err, errOverlap) && !x.joint.Load() {
			x.joint.Store(true)
			return x.newGeneration(nil, ids, snaps, keys, onRequest)
		}
	}
	return g
}

// encodePart encodes p in every format of keys it lacks, gathering each
// family once, and returns its encodings of keys (waiting for those
// another goroutine is encoding).
func (x *Cache) encodePart(p *part, keys []cacheKey) []*encoded {
	ens := make([]*encoded, len(keys))
	var todo []int // indexes in keys of the encodings to do here
	p.mu.Lock()
	for i, k := range keys {
		if p.enc[k] == nil {
			p.enc[k] = &encoded{done: make(chan struct{})}
			todo = append(todo, i)
		}
		ens[i] = p.enc[k]
	}
	p.mu.Unlock()
	if len(todo) > 0 {
		todoKeys := make([]cacheKey, len(todo))
		for j, i := range todo {
			todoKeys[j] = keys[i]
		}
		for j, e := range encodeSnap(p.snap, todoKeys, p.hint) {
			x.encodings.Add(1)
			en := ens[todo[j]]
			en.buf, en.segs, en.err = e.buf, e.segs, e.err
			close(en.done)
		}
	}
	for _, en := range ens {
		<-en.done
	}
	return ens
}

// sizes returns the bytes of p's complete encodings.
func (p *part) sizes() map[cacheKey]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	sizes := make(map[cacheKey]int, len(p.enc))
	for k, en := range p.enc {
		select {
		case <-en.done:
			if en.err == nil {
				sizes[k] = len(en.buf)
			}
		default: // being encoded
		}
	}
	return sizes
}

// retain forgets p's encodings in formats other than keys (the views
// built from them keep what they use).
func (p *part) retain(keys []cacheKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.enc {
		if !slices.Contains(keys, k) {
			delete(p.enc, k)
		}
	}
}

// has reports whether g holds every key, encoded.
func (g *generation) has(keys []cacheKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		if g.views[k] == nil {
			return false
		}
	}
	return true
}

// view returns g's body in format key, encoding the parts that lack it
// (on a request's path when the format was not in use when g was built).
func (g *generation) view(x *Cache, key cacheKey, onRequest bool) *view {
	g.mu.Lock()
	v := g.views[key]
	if v == nil {
		v = &view{}
		g.views[key] = v
	}
	g.mu.Unlock()
	v.once.Do(func() {
		before := x.encodings.Load()
		var ens []*encoded
		for _, p := range g.parts {
			ens = append(ens, x.encodePart(p, []cacheKey{key})[0])
		}
		if onRequest && x.encodings.Load() > before {
			x.onRequest.Add(1)
		}
		n := 0
		for _, en := range ens {
			if en.err != nil {
				v.err = en.err
				return
			}
			n += len(en.segs)
			v.size += len(en.buf)
		}
		v.segs = make([]piece, 0, n)
		v.names = make(map[string]bool, n)
		for _, en := range ens {
			start := 0
			for _, sg := range en.segs {
				if v.names[sg.first] {
					v.err = fmt.Errorf("%w: %s", errOverlap, sg.first)
					return
				}
				v.names[sg.first] = true
				v.segs = append(v.segs, piece{first: sg.first, b: en.buf[start:sg.end], crc: sg.crc, size: sg.size})
				start = sg.end
			}
		}
		slices.SortFunc(v.segs, func(a, b piece) int { return strings.Compare(a.first, b.first) })
	})
	return v
}

// gather gathers a snapshot (sorted, checked for consistency).
func gather(snap []prometheus.Metric) ([]*dto.MetricFamily, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(uncheckedCollector{snapsCollector{snap}}); err != nil {
		return nil, err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return nil, fmt.Errorf("gathering the sources' snapshots: %w", err)
	}
	return mfs, nil
}

// eachFamily gathers snap family by family and calls f on each family, in
// no particular order. Each family is gathered by client_golang's registry,
// sorted and checked as in one gather of the whole snapshot, but only one
// family's dto is held at a time, not a second copy of the snapshot.
func eachFamily(snap []prometheus.Metric, f func(*dto.MetricFamily)) error {
	groups := byDesc(snap)
	// One metric of each descriptor, gathered together: the registry's
	// checks across families (a name colliding with a histogram's series),
	// and whether two descriptors share a name, which only a gather of the
	// whole snapshot merges. A gather that fails here fails on the whole
	// snapshot too: gathered whole, it returns the snapshot's error.
	if mfs, err := gather(representatives(groups)); err != nil || len(mfs) != len(groups) {
		groups = [][]prometheus.Metric{snap}
	}
	for _, g := range groups {
		mfs, err := gather(g)
		if err != nil {
			return err
		}
		for _, mf := range mfs {
			f(mf)
		}
	}
	return nil
}

// byDesc groups the metrics of snap by descriptor, in the order each
// descriptor first appears (the groups share one array).
func byDesc(snap []prometheus.Metric) [][]prometheus.Metric {
	index := map[*prometheus.Desc]int{}
	var next []int // the size of each group, then where its next metric goes
	for _, m := range snap {
		i, ok := index[m.Desc()]
		if !ok {
			i = len(next)
			index[m.Desc()] = i
			next = append(next, 0)
		}
		next[i]++
	}
	groups := make([][]prometheus.Metric, len(next))
	all := make([]prometheus.Metric, len(snap))
	start := 0
	for i, n := range next {
		groups[i] = all[start : start+n : start+n]
		next[i] = start
		start += n
	}
	for _, m := range snap {
		i := index[m.Desc()]
		all[next[i]] = m
		next[i]++
	}
	return groups
}

// representatives returns the first metric of each group.
func representatives(groups [][]prometheus.Metric) []prometheus.Metric {
	reps := make([]prometheus.Metric, len(groups))
	for i, g := range groups {
		reps[i] = g[0]
	}
	return reps
}

// encodeSnap encodes snap in every format of keys, one segment per family,
// a family at a time: its dto is gathered, encoded in each format (and
// compressed for gzip), then dropped. The text of a format wanted in gzip
// only is held for one family at a time. hint holds the expected size of
// each encoding, if known.
func encodeSnap(snap []prometheus.Metric, keys []cacheKey, hint map[cacheKey]int) []*encoded {
	sinks := map[expfmt.Format]*sink{}
	for _, k := range keys {
		s := sinks[k.format]
		if s == nil {
			s = &sink{}
			s.enc = expfmt.NewEncoder(&s.plain, k.format)
			sinks[k.format] = s
		}
		if k.gzip {
			s.gz = new(bytes.Buffer)
			s.gz.Grow(withMargin(hint[k]))
			s.fw, _ = flate.NewWriter(s.gz, bulkCompression)
		} else {
			s.keepPlain = true
			s.plain.Grow(withMargin(hint[k]))
		}
	}
	err := eachFamily(snap, func(mf *dto.MetricFamily) {
		for _, s := range sinks {
			s.add(mf)
		}
	})
	out := make([]*encoded, len(keys))
	for i, k := range keys {
		s := sinks[k.format]
		switch {
		case err != nil:
			out[i] = &encoded{err: err}
		case s.err != nil:
			out[i] = &encoded{err: s.err}
		case k.gzip:
			out[i] = &encoded{buf: tight(s.gz.Bytes()), segs: slices.Clip(s.gzSegs)}
		default:
			// Closing the encoder adds nothing to the snapshots' part:
			// OpenMetrics' "# EOF" comes after the live families.
			out[i] = &encoded{buf: tight(s.plain.Bytes()), segs: slices.Clip(s.plainSegs)}
		}
	}
	return out
}

// withMargin returns size and a sixteenth: room for a part that grew a
// little since the size was taken.
func withMargin(size int) int { return size + size/16 }

// tight returns b, copied if its array is more than an eighth larger: a
// generation keeps its bodies until replaced, and a buffer grown by
// doubling can hold twice what it needs.
func tight(b []byte) []byte {
	if cap(b)-len(b) > len(b)/8 {
		return slices.Clip(bytes.Clone(b))
	}
	return slices.Clip(b)
}

// sink encodes families in one format, identity, gzip or both.
type sink struct {
	enc   expfmt.Encoder // writes to plain
	plain bytes.Buffer
	// keepPlain: the identity body is wanted, plain keeps every family
	// (with plainSegs); otherwise only the family being compressed.
	keepPlain bool
	plainSegs []segment
	// gz, when gzip is wanted: every family, each a deflate stream
	// sync-flushed (byte aligned, not final), with gzSegs.
	gz     *bytes.Buffer
	fw     *flate.Writer
	gzSegs []segment
	err    error
}

// add encodes mf at the end of s.
func (s *sink) add(mf *dto.MetricFamily) {
	if s.err != nil {
		return
	}
	start := s.plain.Len()
	if err := s.enc.Encode(mf); err != nil {
		s.err = fmt.Errorf("encoding %s: %w", mf.GetName(), err)
		return
	}
	if s.keepPlain {
		s.plainSegs = append(s.plainSegs, segment{first: mf.GetName(), end: s.plain.Len()})
	}
	if s.gz != nil {
		b := s.plain.Bytes()[start:]
		s.fw.Reset(s.gz)
		_, _ = s.fw.Write(b)
		_ = s.fw.Flush() // byte-aligned and not final
		s.gzSegs = append(s.gzSegs, segment{first: mf.GetName(), end: s.gz.Len(), crc: crc32.ChecksumIEEE(b), size: uint32(len(b))})
	}
	if !s.keepPlain {
		s.plain.Reset()
	}
}

// bulkCompression is the deflate level of the snapshots' part, compressed
// once per publish in the background.
const bulkCompression = flate.DefaultCompression

// ServeHTTP serves the exposition.
func (x *Cache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	// Above plainLimit series a format is held compressed only: an
	// identity scrape inflates the cached segments as it writes them.
	identity := enc == "identity"
	key := cacheKey{format: format, gzip: !identity || x.seriesHeld() > x.plainLimit}
	x.touch(key)
	g := x.ready.Load()
	if g == nil {
		g = x.first()
	} else if x.stale(g) {
		// A snapshot nobody announced (a collector run outside the
		// scheduler): encode it for the next scrape.
		x.Published()
	}
	bulk := g.view(x, key, true) // encodes only a format new to g
	if errors.Is(bulk.err, errOverlap) {
		// Found on a format new to g: gather the snapshots together
		// from now on; meanwhile, promhttp merges the family.
		x.joint.Store(true)
		x.Published()
		x.full.ServeHTTP(w, r)
		return
	}
	if bulk.err != nil {
		x.errs.WithLabelValues("gathering").Inc()
		x.logger.Error("error gathering or encoding the sources' metrics", "err", bulk.err)
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
	for _, mf := range liveMFs {
		if bulk.names[mf.GetName()] {
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
	// The body in order: the snapshots' families (each a segment of a
	// cached buffer, served as it is) and runs of live families, merged by
	// name as promhttp sorts them. A run is chunks [start, end) of live.
	type item struct {
		seg        *piece
		start, end int
	}
	items := make([]item, 0, len(bulk.segs)+len(liveMFs)+1)
	i, j := 0, 0
	for i < len(bulk.segs) || j < len(liveMFs) {
		if j < len(liveMFs) && (i == len(bulk.segs) || liveMFs[j].GetName() < bulk.segs[i].first) {
			if n := len(items); n > 0 && items[n-1].seg == nil {
				items[n-1].end = j + 1
			} else {
				items = append(items, item{start: j, end: j + 1})
			}
			j++
			continue
		}
		items = append(items, item{seg: &bulk.segs[i]})
		i++
	}
	// The closing chunk joins the last live run, or makes one.
	if n := len(items); n > 0 && items[n-1].seg == nil {
		items[n-1].end = len(liveMFs) + 1
	} else {
		items = append(items, item{start: len(liveMFs), end: len(liveMFs) + 1})
	}
	run := func(it item) []byte {
		s := 0
		if it.start > 0 {
			s = ends[it.start-1]
		}
		return live[s:ends[it.end-1]]
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", string(format))
	if !key.gzip {
		h.Set("Content-Length", strconv.Itoa(bulk.size+len(live)))
		for _, it := range items {
			if it.seg != nil {
				_, _ = w.Write(it.seg.b)
			} else {
				_, _ = w.Write(run(it))
			}
		}
		return
	}
	if identity {
		size := len(live)
		for _, it := range items {
			if it.seg != nil {
				size += int(it.seg.size)
			}
		}
		h.Set("Content-Length", strconv.Itoa(size))
		for _, it := range items {
			if it.seg == nil {
				_, _ = w.Write(run(it))
				continue
			}
			if err := inflate(w, it.seg.b); err != nil {
				// The segment was compressed here: a failure is the
				// client's (a closed connection) or a bug; either way
				// the body is cut short, which its length shows.
				x.errs.WithLabelValues("encoding").Inc()
				x.logger.Error("error inflating a cached family", "family", it.seg.first, "err", err)
				return
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
	zends := make([]int, len(items)) // end of each live run in zb
	for k, it := range items {
		if it.seg == nil {
			fw.Reset(zb)
			_, _ = fw.Write(run(it))
			_ = fw.Flush()
		}
		zends[k] = zb.Len()
	}
	fw.Reset(zb)
	_ = fw.Close() // the final, empty block
	z := zb.Bytes()
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(gzipHeader)+bulk.size+len(z)+8))
	_, _ = w.Write(gzipHeader[:])
	var crc, size uint32
	zstart := 0
	for k, it := range items {
		if it.seg != nil {
			_, _ = w.Write(it.seg.b)
			crc = crc32Combine(crc, it.seg.crc, it.seg.size)
			size += it.seg.size
			continue
		}
		_, _ = w.Write(z[zstart:zends[k]])
		zstart = zends[k]
		b := run(it)
		crc = crc32.Update(crc, crc32.IEEETable, b)
		size += uint32(len(b))
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], size)
	_, _ = w.Write(z[zstart:]) // the final block
	_, _ = w.Write(trailer[:])
}

// inflate writes the uncompressed bytes of a cached deflate segment (a
// stream of its own, sync-flushed and not final) to w.
func inflate(w io.Writer, seg []byte) error {
	in, _ := inflaters.Get().(*inflater)
	if in == nil {
		in = &inflater{buf: make([]byte, 32<<10)}
	}
	defer inflaters.Put(in)
	in.seg.Reset(seg)
	in.end.Reset(finalBlock)
	in.src = io.MultiReader(&in.seg, &in.end)
	if in.fr == nil {
		in.fr = flate.NewReader(in.src)
	} else if err := in.fr.(flate.Resetter).Reset(in.src, nil); err != nil {
		return err
	}
	_, err := io.CopyBuffer(onlyWriter{w}, onlyReader{in.fr}, in.buf)
	return err
}

// inflater is what inflate reuses from one segment to the next.
type inflater struct {
	seg, end bytes.Reader
	src      io.Reader
	fr       io.ReadCloser
	buf      []byte
}

var inflaters sync.Pool

// onlyReader and onlyWriter hide a reader's and a writer's other methods,
// so that io.CopyBuffer uses the buffer it is given: an http.ResponseWriter
// is an io.ReaderFrom that reads through a 32 KB buffer of its own, new
// for each call (net's genericReadFrom), and a scrape inflates a segment
// per family (about 150: 4.8 MB allocated a scrape at 1,000 tables, 9 MB
// of them in use at the peak of the bench's scrape bursts).
type onlyReader struct{ io.Reader }

type onlyWriter struct{ io.Writer }

// finalBlock is a final, empty deflate block: it ends a cached segment
// inflated on its own.
var finalBlock = func() []byte {
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestSpeed)
	_ = fw.Close()
	return b.Bytes()
}()

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
