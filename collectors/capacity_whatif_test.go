package collectors

import (
	"math"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// TestWhatIfRunsOnLikeOneSimulation: the running what-if, advanced hour by
// hour for two days, gives the figures of one simulation of the whole
// per-minute trace from the same start (capacity.EvaluateTableWindows),
// up to the hour a window's start cuts, read spread evenly (well under 1%
// of a 7-day window here); the throttled minutes are exact.
func TestWhatIfRunsOnLikeOneSimulation(t *testing.T) {
	tb := benchTable("t")
	// The minutes as the first cycle read them (5-minute Sums spread beyond
	// 15 days), before the collector compacts them.
	_, _, staged := func() (*Capacity, int, *capacityState) {
		st := &capacityState{hist: map[historyKey]*history{}}
		b := boundsAt(benchEnd, 90*day)
		for j, k := range historyKeys(tb) {
			h := newHistory(b)
			fillWindows(h, windowsFor(nil, b, time.Time{}), benchTraffic(1+float64(j)/10))
			h.finish(b)
			st.hist[k] = h
		}
		return nil, 0, st
	}()
	c, target, st := benchCollector(t, tb)
	end := benchEnd
	for range 48 {
		end = end.Add(time.Hour)
		benchCycle(t, c, target, st, end, tb)
	}
	r, err := c.report(target, st, tb, boundsAt(end, 90*day))
	if err != nil {
		t.Fatal(err)
	}
	runFrom := whatIfStart(benchEnd)
	var workloads []capacity.Workload
	keys := historyKeys(tb)
	for i := 0; i < len(keys); i += 2 {
		tr := capacity.Trace{Start: runFrom}
		for d, dst := range []*[]float64{&tr.Read, &tr.Write} {
			f := benchTraffic(1 + float64(i+d)/10)
			*dst = staged.hist[keys[i+d]].perMinute(runFrom, settledAt(benchEnd))
			for m := settledAt(benchEnd); m.Before(end); m = m.Add(time.Minute) {
				*dst = append(*dst, float64(float32(f(m))))
			}
		}
		workloads = append(workloads, capacity.Workload{Trace: tr})
	}
	prices, err := capacity.PricesFor("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := capacity.EvaluateTableWindows(capacity.OnDemand, prices, capacity.Options{}, []time.Duration{7 * day, 30 * day}, workloads...)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Costs) != 2 {
		t.Fatalf("%d windows", len(r.Costs))
	}
	for k, wc := range r.Costs {
		got, w := wc.Evaluation, want[k]
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"on-demand cost", got.OnDemand.Total(), w.OnDemand.Total()},
			{"provisioned cost", got.Provisioned.Total(), w.Provisioned.Total()},
			{"throttled units", got.Throttled.Total(), w.Throttled.Total()},
		} {
			if d := math.Abs(c.got - c.want); d > 0.005*math.Max(c.want, 1) {
				t.Errorf("%s %s: %v, one simulation %v (%.3f%%)", wc.Window, c.name, c.got, c.want, 100*d/c.want)
			} else {
				t.Logf("%s %s: %v, one simulation %v (%.4f%%)", wc.Window, c.name, c.got, c.want, 100*d/math.Max(c.want, 1e-300))
			}
		}
		if got.Recommendation.Action != w.Recommendation.Action {
			t.Errorf("%s: recommends %s, one simulation %s", wc.Window, got.Recommendation.Action, w.Recommendation.Action)
		}
		var gm, wm int
		for i := range got.Workloads {
			gm += got.Workloads[i].Read.ThrottledMinutes + got.Workloads[i].Write.ThrottledMinutes
			wm += w.Workloads[i].Read.ThrottledMinutes + w.Workloads[i].Write.ThrottledMinutes
		}
		if gm != wm {
			t.Errorf("%s: %d throttled minutes, one simulation %d", wc.Window, gm, wm)
		}
	}
}
