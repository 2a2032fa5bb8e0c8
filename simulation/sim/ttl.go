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

// ttlItem builds an item with key pk, the TTL attribute attr of class
// holding expiry, and padding.
func ttlItem(pk, attr, class string, expiry time.Time, pad string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		"pk":   &types.AttributeValueMemberS{Value: pk},
		"data": &types.AttributeValueMemberS{Value: pad},
	}
	secs := strconv.FormatInt(expiry.Unix(), 10)
	switch class {
	case ClassLive, ClassExpired, ClassSeconds:
		it[attr] = &types.AttributeValueMemberN{Value: secs}
	case ClassString:
		it[attr] = &types.AttributeValueMemberS{Value: secs}
	case ClassMilliseconds:
		it[attr] = &types.AttributeValueMemberN{Value: strconv.FormatInt(expiry.UnixMilli(), 10)}
	}
	return it
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

// writeStream is a steady stream of new items of one table.
type writeStream struct {
	t         *tableSim
	from, to  int64 // minutes
	perMinute float64
	acc       float64
	class     string
	expiresIn time.Duration
	attr, pad string
}

func newWriteStream(t *tableSim, tt *TTLSpec) *writeStream {
	w := tt.Writes
	ws := &writeStream{
		t: t, from: t.e.start + minutesOf(w.From.D()), to: math.MaxInt64,
		perMinute: w.PerMinute, class: w.Class, expiresIn: w.ExpiresIn.D(),
		attr: tt.Attribute, pad: padding(tt.ItemSize),
	}
	if w.Until != nil {
		ws.to = t.e.start + minutesOf(w.Until.D())
	}
	return ws
}

// minute queues the items written in minute m.
func (w *writeStream) minute(m int64) {
	if m < w.from || m >= w.to || w.perMinute <= 0 {
		return
	}
	w.acc += w.perMinute
	n := int(w.acc)
	w.acc -= float64(n)
	for i := 0; i < n; i++ {
		at := minuteTime(m).Add(time.Duration(i) * time.Minute / time.Duration(n))
		w.t.pending = append(w.t.pending, awssim.ItemWrite{
			Item: ttlItem(fmt.Sprintf("w%d-%d", m, i), w.attr, w.class, at.Add(w.expiresIn), w.pad),
			At:   at,
		})
	}
}
