// Consumed-capacity history for the capacity collector: per table or GSI and
// dimension, the CloudWatch Sums at the finest resolution CloudWatch still
// keeps for each age (1-minute points for 15 days, 5-minute to 63 days,
// hourly beyond), held in three contiguous tiers whose boundaries are whole
// hours. Older points are folded into the coarser tier as time passes, so
// memory is bounded and nothing already held is fetched again.
package collectors

import (
	"time"
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

// history holds one series: the hourly, 5-minute and 1-minute tiers,
// adjacent in that order. The minute tier's end is the first minute not held.
type history struct {
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

// newHistory returns an empty history laid out for b.
func newHistory(b bounds) *history {
	return &history{
		hour:   tier{step: time.Hour, start: b.h0},
		five:   tier{step: 5 * time.Minute, start: b.b5},
		minute: tier{step: time.Minute, start: b.b1},
	}
}

// roll moves the boundaries forward to b: minutes older than b.b1 fold into
// 5-minute Sums, 5-minute Sums older than b.b5 into hourly ones, and hours
// before b.h0 are dropped. It reports false when the held minutes do not
// reach b.b1 (the exporter was away for longer than CloudWatch keeps
// 1-minute points): the history must then be fetched again.
func (h *history) roll(b bounds) bool {
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
	var ws []fetchWindow
	if h == nil {
		ws = []fetchWindow{
			{time.Hour, b.h0, b.b5},
			{5 * time.Minute, b.b5, b.b1},
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
func (h *history) apply(w fetchWindow, ts []time.Time, vs []float64) {
	t := h.tierOf(w.period)
	t.extend(w.end)
	for i := range ts {
		if i < len(vs) && !ts[i].Before(w.start) && ts[i].Before(w.end) {
			t.set(ts[i], vs[i])
		}
	}
}

func (h *history) tierOf(period time.Duration) *tier {
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
func (h *history) finish(b bounds) {
	h.hour.extend(b.b5)
	h.five.extend(b.b1)
	h.minute.extend(b.end)
}

// perMinute returns the Sums of [from, to) as one value per minute: 5-minute
// and hourly Sums are spread evenly over their minutes. Minutes outside the
// history are zero.
func (h *history) perMinute(from, to time.Time) []float64 {
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
func (h *history) hourly(from, to time.Time) []float64 {
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
func (h *history) sum(from, to time.Time) float64 {
	var s float64
	for _, v := range h.perMinute(from, to) {
		s += v
	}
	return s
}
