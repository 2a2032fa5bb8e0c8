// Consumed-capacity history for the capacity collector, per table or GSI and
// dimension. A new series is fetched at the finest resolution CloudWatch
// still keeps for each age (1-minute points for 15 days, 5-minute to 63
// days, hourly beyond) into three contiguous tiers (tiers), which the
// collector reads once, for the what-if's simulation and the traffic
// figures, then compacts into what the figures need from then on:
//
//   - the Sum of every whole hour (float32: a relative error of at most
//     2^-24, 6e-8, per hour), which the ratios, baselines, surge detection,
//     the on-demand cost and the charts read; of the hours only the weekly
//     baselines read (before Capacity.splitFrom), a table's or GSI's read
//     series holds the Sum of reads and writes, its write series nothing
//     (mergeHours); packed (internal/packedsums), about 2 bytes an hour;
//   - the minutes of the current hour and the last lateDataOverlap minutes
//     as fetched (CloudWatch may still revise them);
//   - the 1-minute Sums that can still be the peak of the peak-to-average
//     figure (peakSet): exact, the least set that keeps it so, about k per
//     day of the week for a daily cycle (700 to 1,000 of the 10,080
//     minutes at the 99th percentile), 6 bytes each while a cycle pushes
//     minutes, about 2.9 packed between cycles.
//
// A window boundary inside an older hour reads that hour's Sum spread evenly
// over its minutes, as the 5-minute and hourly tiers always did. The
// auto-scaling what-if advances its own simulation state with the minutes
// as they settle (whatIf, capacity_cost.go). About 6.7 KB per series for 90
// days (hourly Sums and peak candidates: BenchmarkCapacityLiveHeap; 10.5 KB
// before they were packed) instead of about 145 KB.
package collectors

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/packedsums"
)

// CloudWatch retention of each resolution.
const (
	minuteRetention = 15 * 24 * time.Hour
	fiveRetention   = 63 * 24 * time.Hour
	// lateDataOverlap is how many already-held minutes a refresh fetches
	// again, because CloudWatch may revise the latest minutes.
	lateDataOverlap = 5 * time.Minute
	// MaxDatapointsPerRequest is how many datapoints one GetMetricData
	// request returns before paginating; a request whose queries need more
	// is split, so that every query is billed once.
	MaxDatapointsPerRequest = 100800
)

// tier is a contiguous run of Sums, one per step, from start.
type tier struct {
	step  time.Duration
	start time.Time
	v     []float32
}

func (t *tier) end() time.Time { return t.start.Add(time.Duration(len(t.v)) * t.step) }

// extend zero-fills the tier up to to.
func (t *tier) extend(to time.Time) {
	if n := int(to.Sub(t.start) / t.step); n > len(t.v) {
		t.v = append(t.v, make([]float32, n-len(t.v))...)
	}
}

// set stores the Sum of the step starting at at, growing the tier as needed;
// points before start are ignored.
func (t *tier) set(at time.Time, x float64) {
	if at.Before(t.start) {
		return
	}
	i := int(at.Sub(t.start) / t.step)
	if i >= len(t.v) {
		t.extend(t.start.Add(time.Duration(i+1) * t.step))
	}
	t.v[i] = float32(x)
}

// add adds x to the Sum of the step starting at at (on the step grid),
// growing the tier as needed; points before start are ignored.
func (t *tier) add(at time.Time, x float64) {
	if at.Before(t.start) {
		return
	}
	i := int(at.Sub(t.start) / t.step)
	if i >= len(t.v) {
		t.extend(t.start.Add(time.Duration(i+1) * t.step))
	}
	t.v[i] += float32(x)
}

// cut removes and returns the values before at (at is on the step grid).
func (t *tier) cut(at time.Time) []float32 {
	n := int(at.Sub(t.start) / t.step)
	if n <= 0 {
		return nil
	}
	n = min(n, len(t.v))
	out := append([]float32(nil), t.v[:n]...)
	t.v = append(t.v[:0:0], t.v[n:]...)
	t.start = at
	return out
}

// appendFolded appends vs, summed k at a time, to the tier.
func (t *tier) appendFolded(vs []float32, k int) {
	for i := 0; i+k <= len(vs); i += k {
		var s float32
		for _, x := range vs[i : i+k] {
			s += x
		}
		t.v = append(t.v, s)
	}
}

// tiers holds a newly fetched series: the hourly, 5-minute and 1-minute
// tiers, adjacent in that order. The minute tier's end is the first minute
// not held.
type tiers struct {
	hour, five, minute tier
}

// bounds are the tier boundaries at one refresh: hour [h0, b5), five [b5, b1),
// minute [b1, end).
type bounds struct {
	h0, b5, b1, end time.Time
}

func ceilHour(t time.Time) time.Time {
	if f := t.Truncate(time.Hour); f.Equal(t) {
		return f
	} else {
		return f.Add(time.Hour)
	}
}

// boundsAt returns the tier boundaries for history ending at end (a whole
// minute) and keeping span.
func boundsAt(end time.Time, span time.Duration) bounds {
	b := bounds{
		h0:  ceilHour(end.Add(-span)),
		b5:  ceilHour(end.Add(-fiveRetention)),
		b1:  ceilHour(end.Add(-minuteRetention)),
		end: end,
	}
	if b.b5.Before(b.h0) {
		b.b5 = b.h0
	}
	if b.b1.Before(b.h0) {
		b.b1 = b.h0
	}
	return b
}

// since returns b for a table created at created: the tiers start no
// earlier than the hour of its creation, so that a young table's history
// holds no zeros for the time before it existed (a 2-day-old table holds 2
// days of minutes, not 90 days of tiers). Boundaries stay whole hours; a
// zero or older creation leaves b as it is.
func (b bounds) since(created time.Time) bounds {
	h := created.Truncate(time.Hour)
	if !h.After(b.h0) {
		return b
	}
	if last := b.end.Truncate(time.Hour); h.After(last) {
		h = last
	}
	b.h0 = h
	if b.b5.Before(h) {
		b.b5 = h
	}
	if b.b1.Before(h) {
		b.b1 = h
	}
	return b
}

// hourlyUntil returns where a new history's 5-minute Sums start: the
// what-if's first run (whatIfStart) within [b.b5, b.b1]. Nothing reads the
// older ones finer than hours, so the first fetch asks CloudWatch for
// hourly Sums there (12 times fewer datapoints than 5-minute ones: about a
// quarter of a 90-day first fetch's, against CloudWatch's datapoints-per-
// second quota), and they are held as hours.
func hourlyUntil(b bounds) time.Time {
	cut := whatIfStart(b.end)
	if cut.After(b.b1) {
		cut = b.b1
	}
	if cut.Before(b.b5) {
		cut = b.b5
	}
	return cut
}

// newTiers returns empty tiers laid out for b: hours until hourlyUntil,
// 5-minute Sums until b.b1, minutes after.
func newTiers(b bounds) *tiers {
	cut := hourlyUntil(b)
	return &tiers{
		hour:   tier{step: time.Hour, start: b.h0},
		five:   tier{step: 5 * time.Minute, start: cut},
		minute: tier{step: time.Minute, start: b.b1},
	}
}

// roll moves the boundaries forward to b: minutes older than b.b1 fold into
// 5-minute Sums, 5-minute Sums older than b.b5 into hourly ones, and hours
// before b.h0 are dropped. It reports false when the held minutes do not
// reach b.b1 (the exporter was away for longer than CloudWatch keeps
// 1-minute points): the history must then be fetched again.
func (h *tiers) roll(b bounds) bool {
	if h.minute.end().Add(-lateDataOverlap).Before(b.b1) {
		return false
	}
	h.five.extend(h.minute.start)
	h.five.appendFolded(h.minute.cut(b.b1), 5)
	h.hour.extend(h.five.start)
	h.hour.appendFolded(h.five.cut(b.b5), 12)
	h.hour.cut(b.h0)
	return true
}

// fetchWindow is one range of one tier to request.
type fetchWindow struct {
	period     time.Duration
	start, end time.Time
}

// points is the number of datapoints a query over w returns at most.
func (w fetchWindow) points() int { return int(w.end.Sub(w.start) / w.period) }

// windowsFor returns what a history needs at b: everything for a new one
// (nil h), otherwise the minutes since the last one held, minus the overlap.
// Windows that end before notBefore (the table's creation) are skipped.
func windowsFor(h *history, b bounds, notBefore time.Time) []fetchWindow {
	if h == nil {
		return windowsForTiers(nil, b, notBefore)
	}
	if h.staged != nil {
		return windowsForTiers(h.staged, b, notBefore)
	}
	from := h.end().Add(-lateDataOverlap)
	if from.Before(b.b1) {
		from = b.b1
	}
	if w := (fetchWindow{time.Minute, from, b.end}); w.start.Before(w.end) && w.end.After(notBefore) {
		return []fetchWindow{w}
	}
	return nil
}

func windowsForTiers(h *tiers, b bounds, notBefore time.Time) []fetchWindow {
	var ws []fetchWindow
	if h == nil {
		cut := hourlyUntil(b)
		ws = []fetchWindow{
			{time.Hour, b.h0, cut},
			{5 * time.Minute, cut, b.b1},
			{time.Minute, b.b1, b.end},
		}
	} else {
		from := h.minute.end().Add(-lateDataOverlap)
		if from.Before(b.b1) {
			from = b.b1
		}
		ws = []fetchWindow{{time.Minute, from, b.end}}
	}
	out := ws[:0]
	for _, w := range ws {
		if w.start.Before(w.end) && w.end.After(notBefore) {
			out = append(out, w)
		}
	}
	return out
}

// apply stores the points of one fetched window; the tier is zero-filled to
// the window's end, since DynamoDB publishes nothing for an idle minute.
func (h *tiers) apply(w fetchWindow, r queryResult) {
	t := h.tierOf(w.period)
	t.extend(w.end)
	if t == &h.five {
		h.hour.extend(h.five.start)
	}
	for i := range r.len() {
		if at, v := r.at(i); !at.Before(w.start) && at.Before(w.end) {
			if t == &h.five && at.Before(h.five.start) {
				h.hour.add(at.Truncate(time.Hour), v)
				continue
			}
			t.set(at, v)
		}
	}
}

func (h *tiers) tierOf(period time.Duration) *tier {
	switch period {
	case time.Hour:
		return &h.hour
	case 5 * time.Minute:
		return &h.five
	}
	return &h.minute
}

// finish zero-fills the coarser tiers up to the next one, for a history
// whose earliest windows were skipped (a young table).
func (h *tiers) finish(b bounds) {
	h.hour.extend(h.five.start)
	h.five.extend(b.b1)
	h.minute.extend(b.end)
}

// perMinute returns the Sums of [from, to) as one value per minute: 5-minute
// and hourly Sums are spread evenly over their minutes. Minutes outside the
// history are zero.
func (h *tiers) perMinute(from, to time.Time) []float64 {
	n := int(to.Sub(from) / time.Minute)
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	for _, t := range []*tier{&h.hour, &h.five, &h.minute} {
		k := int(t.step / time.Minute)
		base := int(t.start.Sub(from) / time.Minute) // minute index of t.v[0]
		first := max(0, (-base)/k-1)
		for i := first; i < len(t.v); i++ {
			j0 := base + i*k
			if j0 >= n {
				break
			}
			if t.v[i] == 0 || j0+k <= 0 {
				continue
			}
			v := float64(t.v[i]) / float64(k)
			for j := max(j0, 0); j < min(j0+k, n); j++ {
				out[j] = v
			}
		}
	}
	return out
}

// hourly returns the Sums of the whole hours [from, to) (hour-aligned).
func (h *tiers) hourly(from, to time.Time) []float64 {
	n := int(to.Sub(from) / time.Hour)
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	for _, t := range []*tier{&h.hour, &h.five, &h.minute} {
		k := int(time.Hour / t.step) // values per hour
		base := int(t.start.Sub(from) / t.step)
		for i, v := range t.v {
			if j := base + i; j >= 0 && j < n*k {
				out[j/k] += float64(v)
			}
		}
	}
	return out
}

// sum returns the total of the whole minutes in [from, to).
func (h *tiers) sum(from, to time.Time) float64 {
	var s float64
	for _, v := range h.perMinute(from, to) {
		s += v
	}
	return s
}

// history is one series: its tiers as fetched (staged) until compact, then
// hourly Sums, the raw minutes of the current hour and the peak candidates.
type history struct {
	// staged holds a new series until compact; nil after.
	staged *tiers
	// hours holds the Sum of each whole hour from h0 to tail0, packed
	// (about 1.8 bytes an hour instead of 4: BenchmarkCapacityLiveHeap).
	h0    time.Time
	hours packedsums.Sums
	// tail holds the Sum of each minute from tail0 (a whole hour) on; its
	// end is the first minute not held.
	tail0 time.Time
	tail  []float32
	// fed is the first minute not yet given to peaks: the minutes before it
	// are settled (no longer fetched again).
	fed   time.Time
	peaks peakSet
	// since is the table's creation: an hourly Sum is spread over the
	// minutes of its hour from since on.
	since time.Time
	// tracker classifies the series' peaks (capacity_peakadvice.go); it
	// has been given the minutes before trackNext.
	tracker   *capacity.PeakTracker
	trackNext time.Time
	// merged, on a read series, ends the hours whose Sum is that of the
	// reads and the writes of the table or GSI: hours [h0, merged) are
	// held merged, the write series holding none of them (mergeHours).
	merged time.Time
}

// newHistory returns an empty history laid out for b, to fetch.
func newHistory(b bounds) *history { return &history{staged: newTiers(b)} }

// end returns the first minute not held.
func (h *history) end() time.Time {
	if h.staged != nil {
		return h.staged.minute.end()
	}
	return h.tail0.Add(time.Duration(len(h.tail)) * time.Minute)
}

// roll prepares the history for a refresh at b: it reports false when the
// held minutes do not reach b.b1 (the exporter was away for longer than
// CloudWatch keeps 1-minute points): the history must then be fetched
// again. Hours before b.h0 are dropped.
func (h *history) roll(b bounds) bool {
	if h.staged != nil {
		return h.staged.roll(b)
	}
	if h.end().Add(-lateDataOverlap).Before(b.b1) {
		return false
	}
	if n := int(b.h0.Sub(h.h0) / time.Hour); n > 0 {
		n = min(n, h.hours.Len())
		h.hours.DropFront(n)
		h.h0 = h.h0.Add(time.Duration(n) * time.Hour)
	}
	return true
}

// forget drops the hourly Sums before the hour before, which no figure
// reads (Capacity.keepFrom), and spare capacity beyond a few hours.
func (h *history) forget(before time.Time) {
	if h.staged != nil {
		return
	}
	if n := int(before.Sub(h.h0) / time.Hour); n > 0 {
		n = min(n, h.hours.Len())
		h.hours.DropFront(n)
		h.h0 = h.h0.Add(time.Duration(n) * time.Hour)
	}
	h.hours.Trim(16)
}

// mergeHours moves the write series' hourly Sums before at into the read
// series of the same table or GSI: the read series' Sum of each such hour
// becomes reads plus writes, and the write series drops it. Only the
// weekly baselines read those hours, and only that sum (hourlyBoth);
// Capacity.splitFrom says which hours those are. Consumed-capacity Sums
// are multiples of 0.5, so an hour's sum is exact in float32 below 2^23
// units (the sum of the two float32 Sums the baselines added before).
//
// Both series must be compacted; hours from either's tail wait. A write
// series fetched again alone holds the hours already merged again: they
// are dropped (hourlyBoth never reads them). Nothing is merged while the
// write series holds an hour before the read series' first that is not
// merged (a read series fetched again alone: runTarget fetches both).
func mergeHours(read, write *history, at time.Time) {
	if read.staged != nil || write.staged != nil {
		return
	}
	from := read.h0
	if read.merged.After(from) {
		from = read.merged
	}
	if write.hours.Len() > 0 && write.h0.Before(from) && !write.h0.Before(read.merged) {
		return // the write series holds hours the read series does not
	}
	to := at
	for _, t := range []time.Time{read.tail0, write.tail0} {
		if t.Before(to) {
			to = t
		}
	}
	if from.Before(to) {
		writes := write.hourReader()
		read.hours.Update(int(from.Sub(read.h0)/time.Hour), int(to.Sub(read.h0)/time.Hour), func(i int, v float32) float32 {
			return float32(float64(v) + writes(read.h0.Add(time.Duration(i)*time.Hour)))
		})
		read.merged = to
	}
	write.forget(read.merged)
}

// hourlyBoth returns the Sums of the reads plus the writes of the whole
// hours [from, to) (hour-aligned) of a table or GSI, whose hours before
// read.merged the read series holds merged (mergeHours).
func hourlyBoth(read, write *history, from, to time.Time) []float64 {
	out, w := read.hourly(from, to), write.hourly(from, to)
	for i := range out {
		if !from.Add(time.Duration(i) * time.Hour).Before(read.merged) {
			out[i] += w[i]
		}
	}
	return out
}

// apply stores the points of one fetched window; the minutes are zero-filled
// to the window's end, since DynamoDB publishes nothing for an idle minute.
// A compacted history takes 1-minute windows only (a refresh).
func (h *history) apply(w fetchWindow, r queryResult) {
	if h.staged != nil {
		h.staged.apply(w, r)
		return
	}
	if w.period != time.Minute {
		return
	}
	h.extend(w.end)
	for i := range r.len() {
		if at, v := r.at(i); !at.Before(w.start) && at.Before(w.end) && !at.Before(h.tail0) {
			h.tail[int(at.Sub(h.tail0)/time.Minute)] = float32(v)
		}
	}
}

// extend zero-fills the tail up to to.
func (h *history) extend(to time.Time) {
	if n := int(to.Sub(h.tail0) / time.Minute); n > len(h.tail) {
		h.tail = append(h.tail, make([]float32, n-len(h.tail))...)
	}
}

// finish zero-fills the history up to b.end.
func (h *history) finish(b bounds) {
	if h.staged != nil {
		h.staged.finish(b)
		return
	}
	h.extend(b.end)
}

// settledAt returns the first minute that may still be revised for a
// history ending at end.
func settledAt(end time.Time) time.Time { return end.Add(-lateDataOverlap) }

// compact turns a staged history ending at end into its compact form,
// keeping k peak candidates (see peakSet), then settles it. since is the
// table's creation (zero when unknown).
func (h *history) compact(end time.Time, k int, since time.Time) {
	s := h.staged
	if s == nil {
		return
	}
	h.peakTracker(end)
	h.since = since
	h0 := s.hour.start
	tail0 := settledAt(end).Truncate(time.Hour)
	if tail0.Before(h0) {
		tail0 = h0
	}
	h.h0, h.tail0 = h0, tail0
	h.hours.Reset(int(tail0.Sub(h0)/time.Hour) + 1)
	for _, v := range s.hourly(h0, tail0) {
		h.hours.Append(float32(v))
	}
	h.hours.Trim(16)
	h.tail = make([]float32, 0, 60+int(lateDataOverlap/time.Minute)+1)
	for _, v := range s.perMinute(tail0, end) {
		h.tail = append(h.tail, float32(v))
	}
	h.fed = end.Add(-week)
	if h.fed.Before(h0) {
		h.fed = h0
	}
	h.peaks = peakSet{k: k}
	if settled := settledAt(end); h.fed.Before(settled) {
		for i, v := range s.perMinute(h.fed, settled) {
			h.peaks.push(minuteIndex(h.fed)+int32(i), float32(v))
		}
		h.fed = settled
	}
	h.staged = nil
	h.settle(end)
}

// settle gives the minutes settled at end to the peak candidates and folds
// the whole hours before the current one into hourly Sums. The what-if
// must have read the minutes it needs before (they are spread evenly over
// their hour after).
func (h *history) settle(end time.Time) {
	if h.staged != nil {
		return
	}
	settled := settledAt(end)
	h.feedTracker(settled)
	for ; h.fed.Before(settled) && h.fed.Before(h.end()); h.fed = h.fed.Add(time.Minute) {
		if !h.fed.Before(h.tail0) {
			h.peaks.push(minuteIndex(h.fed), h.tail[int(h.fed.Sub(h.tail0)/time.Minute)])
		}
	}
	h.peaks.pruneAll(minuteIndex(end.Add(-week)))
	for cut := settled.Truncate(time.Hour); h.tail0.Before(cut) && len(h.tail) >= 60; {
		var s float64
		for _, v := range h.tail[:60] {
			s += float64(v)
		}
		h.hours.Append(float32(s))
		h.tail = append(h.tail[:0], h.tail[60:]...)
		h.tail0 = h.tail0.Add(time.Hour)
	}
	h.hours.Trim(16)
	// The tail grows by the minutes of each refresh and shrinks here: it
	// does not keep the room between refreshes.
	if cap(h.tail) > len(h.tail)+16 {
		h.tail = append(make([]float32, 0, len(h.tail)), h.tail...)
	}
}

// minuteIndex numbers the minutes since the Unix epoch.
func minuteIndex(t time.Time) int32 { return int32(t.Unix() / 60) }

// hourReader returns a function giving the Sum of the whole hour at
// (before tail0; zero outside the history), for hours asked in increasing
// order: each packed Sum is decoded once.
func (h *history) hourReader() func(at time.Time) float64 {
	var c packedsums.Cursor
	return func(at time.Time) float64 {
		i := int(at.Sub(h.h0) / time.Hour)
		if at.Before(h.h0) || i >= h.hours.Len() {
			return 0
		}
		h.hours.Seek(&c, i)
		return float64(c.Next())
	}
}

// each calls f for the runs of [from, to) the history holds: an hour (or
// the part of it in range) before tail0 with its Sum and the number of its
// minutes in range, then each minute of the tail with its Sum.
func (h *history) each(from, to time.Time, f func(at time.Time, sum float64, minutes, of int)) {
	h.eachWith(h.hourReader(), from, to, f)
}

// eachWith is each reading the hourly Sums with hourValue, a reader of
// hourReader's that earlier calls advanced no further than from (a caller
// reading consecutive ranges decodes each Sum once).
func (h *history) eachWith(hourValue func(time.Time) float64, from, to time.Time, f func(at time.Time, sum float64, minutes, of int)) {
	for at := from.Truncate(time.Hour); at.Before(to) && at.Before(h.tail0); at = at.Add(time.Hour) {
		lo, hi := at, at.Add(time.Hour)
		if lo.Before(from) {
			lo = from
		}
		if hi.After(to) {
			hi = to
		}
		of := 60
		if h.since.After(at) {
			of = int(at.Add(time.Hour).Sub(ceilMinute(h.since)) / time.Minute)
			if lo.Before(h.since) {
				lo = ceilMinute(h.since)
			}
		}
		if n := int(hi.Sub(lo) / time.Minute); n > 0 && of > 0 {
			f(at, hourValue(at), n, of)
		}
	}
	start := from
	if start.Before(h.tail0) {
		start = h.tail0
	}
	for at := start; at.Before(to) && at.Before(h.end()); at = at.Add(time.Minute) {
		f(at, float64(h.tail[int(at.Sub(h.tail0)/time.Minute)]), 1, 1)
	}
}

// sum returns the total of the whole minutes in [from, to).
func (h *history) sum(from, to time.Time) float64 {
	if h.staged != nil {
		return h.staged.sum(from, to)
	}
	return h.sumWith(h.hourReader(), from, to)
}

// sumWith is sum reading the hourly Sums with hourValue (eachWith).
func (h *history) sumWith(hourValue func(time.Time) float64, from, to time.Time) float64 {
	if h.staged != nil {
		return h.staged.sum(from, to)
	}
	var s float64
	h.eachWith(hourValue, from, to, func(_ time.Time, v float64, n, of int) {
		if n == of {
			s += v
		} else if v != 0 {
			s += v * float64(n) / float64(of)
		}
	})
	return s
}

// hourly returns the Sums of the whole hours [from, to) (hour-aligned).
func (h *history) hourly(from, to time.Time) []float64 {
	if h.staged != nil {
		return h.staged.hourly(from, to)
	}
	n := int(to.Sub(from) / time.Hour)
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	h.each(from, to, func(at time.Time, v float64, _, _ int) {
		out[int(at.Sub(from)/time.Hour)] += v
	})
	return out
}

// perMinute returns the Sums of [from, to) as one value per minute: hourly
// Sums are spread evenly over their minutes. Minutes outside the history
// are zero.
func (h *history) perMinute(from, to time.Time) []float64 {
	if h.staged != nil {
		return h.staged.perMinute(from, to)
	}
	n := int(to.Sub(from) / time.Minute)
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	h.each(from, to, func(at time.Time, v float64, m, of int) {
		if h.since.After(at) {
			at = ceilMinute(h.since)
		}
		lo := max(0, int(at.Sub(from)/time.Minute))
		for j := lo; j < min(n, lo+m); j++ {
			out[j] = v / float64(of)
		}
	})
	return out
}

// peakToAverage returns the p-th percentile (nearest rank) of the minutes
// of [from, end) over their mean; NaN without traffic.
func (h *history) peakToAverage(from, end time.Time, p float64) float64 {
	if h.staged != nil {
		return peakToAverage(h.staged.perMinute(from, end), p)
	}
	n := int(end.Sub(from) / time.Minute)
	total := h.sum(from, end)
	if n <= 0 || total == 0 {
		return math.NaN()
	}
	return h.peak(from, end, p) / (total / float64(n))
}

// peak returns the p-th percentile (nearest rank) of the minutes of [from,
// end) of a compacted history, from its peak candidates and the minutes
// not yet given to them: from must be no earlier than a week before the
// latest settle and end no later than the history's end.
func (h *history) peak(from, end time.Time, p float64) float64 {
	cands := h.peaks.since(minuteIndex(from), nil)
	start := h.fed
	if start.Before(from) {
		start = from
	}
	h.each(start, end, func(_ time.Time, v float64, m, of int) {
		if m == 1 && of == 1 && v > 0 {
			cands = append(cands, float32(v))
		}
	})
	k := rankFromTop(int(end.Sub(from)/time.Minute), p)
	if k > len(cands) {
		return 0
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i] > cands[j] })
	return float64(cands[k-1])
}

// rankFromTop returns the rank, from the largest (1), of the nearest-rank
// p-th percentile of n values.
func rankFromTop(n int, p float64) int {
	i := min(max(int(math.Ceil(p/100*float64(n)))-1, 0), n-1)
	return n - i
}

// peakSet holds, of a sequence of minutes arriving in order, those that
// can still be the k-th largest (or larger) of a window ending at the
// latest minute or later: a minute is dropped once k later minutes are at
// least as large, since any window holding it then holds those k too. The
// k-th largest of any window ending now is therefore the k-th largest of
// the candidates in it (zero when fewer).
//
// This is the least the figure can keep without knowing the minutes to
// come: a minute with c < k later minutes at least as large is, in the
// last window that holds it (itself, the c, and the minutes still to
// come), the k-th largest if k-1-c of the minutes to come are larger and
// the others smaller. (Only in its last k-1-c minutes in the window, when
// too few minutes are still to come, is it sure to stay above the k-th
// largest: its value is no longer needed then, but it must still count;
// dropping that value would save at most k values.) Its size is therefore
// the traffic's: about k × (1 + ln(n/k)) for noise alone, but for a daily
// cycle the top minutes of each day that no later day reaches k times, and
// the falling side of the last day, so that a week with a daily and a
// weekly cycle keeps about k per day (700 to 1,000 at the 99th percentile);
// and at worst every minute of the window for traffic falling minute after
// minute.
//
// While minutes are pushed, a candidate takes 6 bytes: its minute (modulo
// 2^16) and its Sum. How many later minutes are at least as large is not
// kept: sweep counts it again, newest first, when minutes were pushed.
// Between cycles (pruneAll) the set rests packed, about 2.6 bytes a
// candidate: the minutes as varint gaps, the Sums as packedsums (the
// top minutes of a series are close to each other). Reads decode it.
type peakSet struct {
	k int
	// last is the minuteIndex of the latest minute pushed.
	last int32
	// at holds the minuteIndex of each candidate modulo 2^16 (the set
	// spans less than 45 days), oldest first; v its Sum. Both are empty
	// while the set is packed.
	at []uint16
	v  []float32
	// fresh is how many candidates were pushed since the last sweep.
	fresh int
	// The packed form: the candidates' minutes, the first as its
	// minuteIndex and each other as the gap from the one before
	// (uvarints), and their Sums.
	packedAt []byte
	packedV  packedsums.Sums
}

// size returns how many candidates the set holds.
func (p *peakSet) size() int { return len(p.v) + p.packedV.Len() }

// pack puts the candidates into the packed form.
func (p *peakSet) pack() {
	if len(p.v) == 0 {
		return
	}
	// Encoded in a scratch buffer, then copied to size: one allocation
	// each, not a guess and a trim (every history packs every cycle).
	sc := packScratch.Get().(*packBuffers)
	defer packScratch.Put(sc)
	sc.v.Clear()
	sc.at = sc.at[:0]
	prev := int32(0)
	for i, v := range p.v {
		m := p.minute(i)
		sc.at = binary.AppendUvarint(sc.at, uint64(m-prev))
		prev = m
		sc.v.Append(v)
	}
	p.packedV = sc.v.Clone()
	p.packedAt = bytes.Clone(sc.at)
	p.at, p.v = nil, nil
}

// packBuffers are the scratch buffers of peakSet.pack.
type packBuffers struct {
	v  packedsums.Sums
	at []byte
}

var packScratch = sync.Pool{New: func() any { return new(packBuffers) }}

// unpack puts the candidates back into at and v, with room for more.
func (p *peakSet) unpack() {
	n := p.packedV.Len()
	if n == 0 {
		return
	}
	p.at, p.v = make([]uint16, 0, n+n/8+64), make([]float32, 0, n+n/8+64)
	p.eachPacked(func(m int32, v float32) {
		p.at, p.v = append(p.at, uint16(m)), append(p.v, v)
	})
	p.packedAt, p.packedV = nil, packedsums.Sums{}
}

// eachPacked calls f with the minuteIndex and Sum of each packed
// candidate, oldest first.
func (p *peakSet) eachPacked(f func(m int32, v float32)) {
	c := p.packedV.CursorAt(0)
	m, off := int32(0), 0
	for range p.packedV.Len() {
		gap, k := binary.Uvarint(p.packedAt[off:])
		off += k
		m += int32(gap)
		f(m, c.Next())
	}
}

// candidates returns the minuteIndex and Sum of every candidate, oldest
// first.
func (p *peakSet) candidates() ([]int32, []float32) {
	ms, vs := make([]int32, 0, p.size()), make([]float32, 0, p.size())
	p.eachPacked(func(m int32, v float32) { ms, vs = append(ms, m), append(vs, v) })
	for i, v := range p.v {
		ms, vs = append(ms, p.minute(i)), append(vs, v)
	}
	return ms, vs
}

// minute returns the minuteIndex of candidate i.
func (p *peakSet) minute(i int) int32 { return p.last - int32(uint16(p.last)-p.at[i]) }

// push adds the next minute. Zero minutes are never stored. The set is
// swept when it grew by half since the last sweep, so that it holds at most
// half as many again as the candidates (plus 64) between two prunes.
func (p *peakSet) push(at int32, v float32) {
	p.unpack()
	p.last = at
	if !(v > 0) {
		return
	}
	p.at, p.v = append(p.at, uint16(at)), append(p.v, v)
	if p.fresh++; p.fresh > 64 && 2*p.fresh > len(p.v) {
		p.sweep()
	}
}

// sweep drops the candidates that k later candidates are at least as
// large as: newest first, keeping the k largest of the candidates kept
// after each in a min-heap. It drops the same candidates as counting
// every later minute would: of the later minutes at least as large as a
// candidate, the k largest are kept.
func (p *peakSet) sweep() {
	p.fresh = 0
	if len(p.v) <= p.k {
		return
	}
	heap := make([]float32, 0, p.k)
	j := len(p.v)
	for i := len(p.v) - 1; i >= 0; i-- {
		v := p.v[i]
		if len(heap) == p.k && heap[0] >= v {
			continue
		}
		j--
		p.at[j], p.v[j] = p.at[i], v
		if len(heap) < p.k {
			heap = append(heap, v)
			for c := len(heap) - 1; c > 0; {
				up := (c - 1) / 2
				if heap[up] <= heap[c] {
					break
				}
				heap[up], heap[c] = heap[c], heap[up]
				c = up
			}
			continue
		}
		heap[0] = v
		for c := 0; ; {
			l, r, m := 2*c+1, 2*c+2, c
			if l < len(heap) && heap[l] < heap[m] {
				m = l
			}
			if r < len(heap) && heap[r] < heap[m] {
				m = r
			}
			if m == c {
				break
			}
			heap[m], heap[c] = heap[c], heap[m]
			c = m
		}
	}
	p.drop(j)
}

// drop removes the first n candidates.
func (p *peakSet) drop(n int) {
	if n > 0 {
		p.at = append(p.at[:0], p.at[n:]...)
		p.v = append(p.v[:0], p.v[n:]...)
	}
}

// prune drops the minutes before the minute index before and, once an
// hour of minutes or an eighth of the set was pushed since the last sweep,
// the candidates no longer needed; spare capacity beyond an eighth goes.
func (p *peakSet) prune(before int32) {
	p.pruneTo(before, p.fresh >= 60 || 8*p.fresh >= len(p.v))
}

// pruneAll is prune sweeping whenever a minute was pushed since the last
// sweep: the set is then exactly the candidates. It ends a cycle (settle):
// the set is packed until the next one pushes.
func (p *peakSet) pruneAll(before int32) {
	p.pruneTo(before, p.fresh > 0)
	p.pack()
}

func (p *peakSet) pruneTo(before int32, sweep bool) {
	p.unpack()
	p.drop(sort.Search(len(p.v), func(i int) bool { return p.minute(i) >= before }))
	if sweep {
		p.sweep()
	}
	if n := len(p.v) + len(p.v)/16 + 8; cap(p.v) > n+len(p.v)/8 || cap(p.at) > n+len(p.at)/8 {
		p.at = append(make([]uint16, 0, n), p.at...)
		p.v = append(make([]float32, 0, n), p.v...)
	}
}

// since appends to dst the values of the candidates from minute index from.
func (p *peakSet) since(from int32, dst []float32) []float32 {
	p.eachPacked(func(m int32, v float32) {
		if m >= from {
			dst = append(dst, v)
		}
	})
	i := sort.Search(len(p.v), func(i int) bool { return p.minute(i) >= from })
	return append(dst, p.v[i:]...)
}

// peakCandidates returns k for peakSet at percentile p over a week.
func peakCandidates(p float64) int {
	return rankFromTop(int(week/time.Minute), p)
}
