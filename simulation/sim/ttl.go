package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// The attributes of generated items besides the TTL attribute.
const (
	keyAttribute = "pk"   // the partition key
	padAttribute = "data" // padding to the item size
)

// ttlItem builds an item with key pk, the TTL attribute attr of class
// holding expiry, and padding.
func ttlItem(pk, attr, class string, expiry time.Time, pad string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		keyAttribute: &types.AttributeValueMemberS{Value: pk},
		padAttribute: &types.AttributeValueMemberS{Value: pad},
	}
	if v := ttlValue(class, expiry); v != nil {
		it[attr] = v
	}
	return it
}

// ttlValue is expiry written in class, or nil for class missing.
func ttlValue(class string, expiry time.Time) types.AttributeValue {
	secs := strconv.FormatInt(expiry.Unix(), 10)
	switch class {
	case ClassLive, ClassExpired, ClassSeconds:
		return &types.AttributeValueMemberN{Value: secs}
	case ClassString:
		return &types.AttributeValueMemberS{Value: secs}
	case ClassMilliseconds:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(expiry.UnixMilli(), 10)}
	}
	return nil
}

// millisThreshold is where a Number TTL value is read as milliseconds:
// epoch seconds reach 1e12 only in the year 33658.
const millisThreshold = 1e12

// readTTL classifies the value v of an item's TTL attribute as one of the
// classes seconds, milliseconds, string or missing, and returns the expiry
// time it holds (ok false when it holds none that can be read).
func readTTL(v types.AttributeValue) (class string, expiry time.Time, ok bool) {
	switch x := v.(type) {
	case nil:
		return ClassMissing, time.Time{}, false
	case *types.AttributeValueMemberN:
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return ClassSeconds, time.Time{}, false
		}
		if math.Abs(f) >= millisThreshold {
			return ClassMilliseconds, time.UnixMilli(int64(f)).UTC(), true
		}
		return ClassSeconds, time.Unix(int64(f), 0).UTC(), true
	case *types.AttributeValueMemberS:
		n, err := strconv.ParseInt(strings.TrimSpace(x.Value), 10, 64)
		return ClassString, time.Unix(n, 0).UTC(), err == nil
	}
	// Another type (a map, a list, a boolean): TTL ignores it, as it
	// ignores a missing attribute.
	return ClassMissing, time.Time{}, false
}

func padding(n int) string { return strings.Repeat("x", max(1, n)) }

// populations writes the TTL item populations of t, each item at its own
// write time.
func (t *tableSim) populations(start time.Time) error {
	tt := t.spec.TTL
	if tt == nil || len(tt.Items) == 0 {
		return nil
	}
	pad := padding(tt.ItemSize)
	var writes []awssim.ItemWrite
	for p, pop := range tt.Items {
		last := start.Add(pop.Written.D())
		for i := 0; i < pop.Count; i++ {
			at := last
			if pop.Count > 1 && pop.Spread > 0 {
				at = last.Add(-time.Duration(float64(pop.Spread.D()) * float64(pop.Count-1-i) / float64(pop.Count-1)))
			}
			at = at.Truncate(time.Second)
			writes = append(writes, awssim.ItemWrite{
				Item: ttlItem(fmt.Sprintf("pop%d-%06d", p, i), tt.Attribute, pop.Class, at.Add(pop.ExpiresIn.D()), pad),
				At:   at,
			})
		}
	}
	if err := t.e.srv.WriteItemsAt(t.region, t.name, writes); err != nil {
		return fmt.Errorf("table %s: TTL items: %w", t.name, err)
	}
	return nil
}

// writeStream writes the TTL items of one table as time passes: its write
// streams (each with its share of the writes) and its rewrites.
type writeStream struct {
	t         *tableSim
	perMinute float64
	streams   []stream
	rewrites  []rewrite
	pad       string
}

// stream is one StreamSpec in absolute minutes.
type stream struct {
	from, to  int64 // minutes [from, to)
	rate, acc float64
	class     string
	expiresIn time.Duration
	attr      string
}

// rewrite is one RewriteSpec at an absolute minute.
type rewrite struct {
	minute int64
	spec   *RewriteSpec
}

// newWriteStream returns the writes of t, or nil when it writes nothing
// after the populations.
func newWriteStream(t *tableSim, tt *TTLSpec) *writeStream {
	ws := &writeStream{t: t, pad: padding(tt.ItemSize)}
	if w := tt.Writes; w != nil && w.PerMinute > 0 {
		for _, st := range w.Streams {
			s := stream{from: t.e.start + minutesOf(st.From.D()), to: math.MaxInt64,
				rate: w.PerMinute * st.Share, class: st.Class, expiresIn: st.ExpiresIn.D(), attr: st.Attribute}
			if st.Until != nil {
				s.to = t.e.start + minutesOf(st.Until.D())
			}
			ws.streams = append(ws.streams, s)
		}
	}
	for i := range tt.Rewrites {
		ws.rewrites = append(ws.rewrites, rewrite{minute: t.e.start + minutesOf(tt.Rewrites[i].At.D()), spec: &tt.Rewrites[i]})
	}
	if len(ws.streams) == 0 && len(ws.rewrites) == 0 {
		return nil
	}
	return ws
}

// minute applies the rewrites due at minute m, then queues the items
// written in minute m.
func (w *writeStream) minute(m int64) {
	for len(w.rewrites) > 0 && w.rewrites[0].minute <= m {
		w.rewrite(w.rewrites[0])
		w.rewrites = w.rewrites[1:]
	}
	for si := range w.streams {
		s := &w.streams[si]
		if m < s.from || m >= s.to {
			continue
		}
		s.acc += s.rate
		n := int(s.acc)
		s.acc -= float64(n)
		for i := 0; i < n; i++ {
			at := minuteTime(m).Add(time.Duration(i) * time.Minute / time.Duration(n))
			// The first stream keeps the keys of the single-stream form.
			pk := fmt.Sprintf("w%d-%d", m, i)
			if si > 0 {
				pk = fmt.Sprintf("w%d-s%d-%d", m, si, i)
			}
			w.t.pending = append(w.t.pending, awssim.ItemWrite{
				Item: ttlItem(pk, s.attr, s.class, at.Add(s.expiresIn), w.pad),
				At:   at,
			})
		}
	}
}

// rewrite writes the items queued so far, then rewrites the TTL values of
// the items existing at the rewrite's minute.
func (w *writeStream) rewrite(r rewrite) {
	t := w.t
	t.flushWrites()
	if t.deleted {
		return
	}
	at := minuteTime(r.minute)
	rw := r.spec
	_, err := t.e.srv.RewriteItemsAt(t.region, t.name, at, func(it map[string]types.AttributeValue) (map[string]types.AttributeValue, bool) {
		class, expiry, ok := readTTL(it[rw.FromAttribute])
		if rw.Match != MatchAny && class != rw.Match {
			return nil, false
		}
		if rw.ExpiresIn != nil {
			expiry, ok = at.Add(rw.ExpiresIn.D()), true
		}
		if !ok && rw.Class != ClassMissing {
			return nil, false
		}
		delete(it, rw.Attribute)
		if v := ttlValue(rw.Class, expiry); v != nil {
			it[rw.Attribute] = v
		}
		return it, true
	})
	if err != nil {
		t.noteErr(fmt.Errorf("TTL rewrite at %s: %w", at.Format(time.RFC3339), err))
	}
}
