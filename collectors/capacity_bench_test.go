package collectors

import (
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// benchEnd is where the benchmarks' histories end on their first cycle.
var benchEnd = time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)

// benchTraffic is a consumed Sum per minute: a daily cycle between 20 and
// 180 units/s with a weekly dip, a 5x rush of 20 minutes at 14:03 UTC
// (which the simulated auto-scaling throttles) and deterministic noise,
// scaled per series.
func benchTraffic(scale float64) func(time.Time) float64 {
	return func(m time.Time) float64 {
		day := float64(m.Unix()%86400) / 86400
		rate := 100 + 80*math.Sin(2*math.Pi*day)
		if m.Weekday() == time.Sunday {
			rate *= 0.6
		}
		if s := m.Unix() % 86400; s >= 14*3600+180 && s < 14*3600+1380 {
			rate *= 5
		}
		noise := float64(uint64(m.Unix()/60)*2654435761%1000)/1000 - 0.5
		return scale * rate * (1 + 0.1*noise) * 60
	}
}

// fillWindows applies to h the datapoints of windows ws from f (the Sum of
// each period, minute by minute).
func fillWindows(h *history, ws []fetchWindow, f func(time.Time) float64) {
	for _, w := range ws {
		var ts []time.Time
		var vs []float64
		for at := w.start; at.Before(w.end); at = at.Add(w.period) {
			var s float64
			for m := at; m.Before(at.Add(w.period)); m = m.Add(time.Minute) {
				s += f(m)
			}
			ts, vs = append(ts, at), append(vs, s)
		}
		h.apply(w, pts(ts, vs))
	}
}

// benchTable is a 120-day-old on-demand table with 2 GSIs.
func benchTable(name string) *Table {
	return &Table{Name: name, Description: &types.TableDescription{
		TableName:          aws.String(name),
		CreationDateTime:   aws.Time(benchEnd.Add(-120 * day)),
		BillingModeSummary: &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			{IndexName: aws.String("gsi-a")}, {IndexName: aws.String("gsi-b")},
		},
	}}
}

// benchProvisioned makes a bench table provisioned, its table and GSIs
// auto-scaled at a 90% target on both dimensions: the diagnosis records
// the most (every dimension compared with 70%), and returns its policies.
func benchProvisioned(t *Table, target float64) map[ScalingResource]scalingPolicy {
	t.Description.BillingModeSummary = &types.BillingModeSummary{BillingMode: types.BillingModeProvisioned}
	out := map[ScalingResource]scalingPolicy{}
	for _, idx := range append([]string{""}, t.IndexNames()...) {
		for _, dim := range []string{"read", "write"} {
			out[ScalingResource{Table: t.Name, Index: idx, Dimension: dim}] = scalingPolicy{min: 5, max: 40000, hasTarget: true, hasPolicy: true, target: target}
		}
	}
	return out
}

// benchCollector returns a collector and the state of one target holding
// the 90-day history of tables (first cycle at benchEnd done).
func benchCollector(tb testing.TB, tables ...*Table) (*Capacity, *awsclient.Target, *capacityState) {
	tb.Helper()
	return benchCollectorScaled(tb, nil, tables...)
}

// benchCollectorScaled is benchCollector with the auto-scaling policies
// scaling.
func benchCollectorScaled(tb testing.TB, scaling map[ScalingResource]scalingPolicy, tables ...*Table) (*Capacity, *awsclient.Target, *capacityState) {
	tb.Helper()
	c := NewCapacity(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, CapacitySettings{History: 90 * day, ScaleOutDelay: 5 * time.Minute})
	target := &awsclient.Target{Account: "acct", Region: "us-east-1"}
	st := &capacityState{hist: map[historyKey]*history{}, warned: map[string]bool{}, scaling: scaling}
	b := boundsAt(benchEnd, 90*day)
	for i, t := range tables {
		for j, k := range historyKeys(t) {
			h := newHistory(b)
			fillWindows(h, windowsFor(nil, b, time.Time{}), benchTraffic(1+float64(i*7+j)/10))
			h.finish(b)
			st.hist[k] = h
		}
		if _, err := c.report(target, st, t, b); err != nil {
			tb.Fatal(err)
		}
		for _, k := range historyKeys(t) {
			st.hist[k].compact(b.end, c.peakK(), creation(t))
			st.hist[k].forget(c.keepFrom(b))
		}
		c.merge(st, t, b)
	}
	return c, target, st
}

// benchCycle is one hourly cycle of the collector for the tables after end:
// the history refreshed with the new minutes, the report derived, the
// hours no figure reads dropped, the settled minutes folded, the hours only
// the baselines read merged.
func benchCycle(tb testing.TB, c *Capacity, target *awsclient.Target, st *capacityState, end time.Time, tables ...*Table) {
	nb := boundsAt(end, 90*day)
	for i, t := range tables {
		for j, k := range historyKeys(t) {
			h := st.hist[k]
			if !h.roll(nb) {
				tb.Fatal("roll refused")
			}
			fillWindows(h, windowsFor(h, nb, time.Time{}), benchTraffic(1+float64(i*7+j)/10))
			h.finish(nb)
		}
		if _, err := c.report(target, st, t, nb); err != nil {
			tb.Fatal(err)
		}
		for _, k := range historyKeys(t) {
			st.hist[k].forget(c.keepFrom(nb))
			st.hist[k].settle(nb.end)
		}
		c.merge(st, t, nb)
	}
}

// BenchmarkHistoryUpdate is one hourly refresh of one series of a 90-day
// old table: roll, apply the 65 minutes fetched, fold the settled ones.
func BenchmarkHistoryUpdate(b *testing.B) {
	_, _, st := benchCollector(b, benchTable("t"))
	h := st.hist[historyKey{table: "t", index: "", write: false}]
	f := benchTraffic(1)
	end := benchEnd
	b.ReportAllocs()
	for b.Loop() {
		end = end.Add(time.Hour)
		nb := boundsAt(end, 90*day)
		if !h.roll(nb) {
			b.Fatal("roll refused")
		}
		fillWindows(h, windowsFor(h, nb, time.Time{}), f)
		h.finish(nb)
		h.settle(nb.end)
	}
}

// BenchmarkCapacityReport is one hourly cycle of one table with 2 GSIs,
// 90 days old: its 6 series refreshed, the traffic figures, the what-if
// over 7 and 30 days in both billing modes (auto-scaling simulated) and
// the report kept.
func BenchmarkCapacityReport(b *testing.B) {
	tb := benchTable("t")
	c, target, st := benchCollector(b, tb)
	end := benchEnd
	b.ReportAllocs()
	for b.Loop() {
		end = end.Add(time.Hour)
		benchCycle(b, c, target, st, end, tb)
	}
}

// BenchmarkCapacityChart is the chart Reports computes for one table with
// 2 GSIs, 90 days old, after an hourly cycle: 30 days hour by hour from the
// history and the what-ifs held.
func BenchmarkCapacityChart(b *testing.B) {
	tb := benchTable("t")
	c, target, st := benchCollector(b, tb)
	st.whatIf = map[historyKey]*whatIf{}
	end := benchEnd.Add(time.Hour)
	nb := boundsAt(end, 90*day)
	for j, k := range historyKeys(tb) {
		h := st.hist[k]
		if !h.roll(nb) {
			b.Fatal("roll refused")
		}
		fillWindows(h, windowsFor(h, nb, time.Time{}), benchTraffic(1+float64(j)/10))
		h.finish(nb)
	}
	r, err := c.report(target, st, tb, nb)
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range historyKeys(tb) {
		st.hist[k].settle(nb.end)
	}
	b.ReportAllocs()
	for b.Loop() {
		if h := st.chart(r); len(h.ConsumedRead) != chartHours {
			b.Fatalf("%d hours charted", len(h.ConsumedRead))
		}
	}
}
