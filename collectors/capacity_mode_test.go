package collectors

import (
	"math"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// modeFixture builds a mode history over w from a function giving, for each
// hour, the provisioned read and write capacity (ok false: on-demand), as
// two fetches, read then write.
func modeFixture(w fetchWindow, at func(h time.Time) (read, write float64, ok bool)) *modeHistory {
	m := &modeHistory{start: w.start}
	for _, write := range []bool{false, true} {
		var ts []time.Time
		var vs []float64
		for h := w.start; h.Before(w.end); h = h.Add(time.Hour) {
			r, wr, ok := at(h)
			if !ok {
				continue
			}
			ts = append(ts, h)
			if write {
				vs = append(vs, wr)
			} else {
				vs = append(vs, r)
			}
		}
		m.apply(write, w, pts(ts, vs))
	}
	return m
}

// flatConsumed returns hourly consumed units of rate units per second.
func flatConsumed(rate float64) func(from, to time.Time) []float64 {
	return func(from, to time.Time) []float64 {
		out := make([]float64, int(to.Sub(from)/time.Hour))
		for i := range out {
			out[i] = rate * 3600
		}
		return out
	}
}

func usEast1(t *testing.T) capacity.Prices {
	t.Helper()
	p, err := capacity.PricesForClass("us-east-1", capacity.Standard)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestModeSwitchToFixedCapacityRegressed: an on-demand table of 700 RRU and
// 180 WRU per second switched 5 days ago to a fixed 4,000 RCU / 1,500 WCU.
// The history shows one switch to provisioned, dated at its hour; before it
// the table paid the on-demand price of its units (17.28 USD a day at
// us-east-1's prices), since it the capacity (35.88 USD a day): 108% more for
// the same traffic.
func TestModeSwitchToFixedCapacityRegressed(t *testing.T) {
	end := time.Date(2026, 11, 12, 9, 57, 0, 0, time.UTC)
	switchAt := end.Truncate(time.Hour).Add(-5 * day)
	w, ok := (*modeHistory)(nil).window(end, modeKeepFrom(end, time.Time{}))
	if !ok || w.end.Sub(w.start) != modeKeep || w.period != time.Hour {
		t.Fatalf("first window %+v (%v), want %s of hours", w, ok, modeKeep)
	}
	m := modeFixture(w, func(h time.Time) (float64, float64, bool) {
		return 4000, 1500, !h.Before(switchAt)
	})
	f := m.figures(usEast1(t), flatConsumed(700), flatConsumed(180))
	sw := m.switches()
	if len(sw) != 1 || !sw[0].At.Equal(switchAt) || sw[0].ToOnDemand {
		t.Fatalf("switches %+v, want one to provisioned at %s", sw, switchAt)
	}
	// Windows 1d, 3d, 7d, 14d: the switch is 5 days old.
	if got, want := f.ToProvisioned, []int{0, 0, 1, 1}; !equalInts(got, want) {
		t.Errorf("switches to provisioned by window %v, want %v", got, want)
	}
	if got, want := f.ToOnDemand, []int{0, 0, 0, 0}; !equalInts(got, want) {
		t.Errorf("switches to on-demand by window %v, want %v", got, want)
	}
	j := f.Judged
	if j == nil {
		t.Fatal("no judgement of a 5-day-old switch")
	}
	before := 700*86400*0.125/1e6 + 180*86400*0.625/1e6
	since := (4000*0.00013 + 1500*0.00065) * 24
	if math.Abs(j.BeforePerDay-before) > 1e-6 || math.Abs(j.SincePerDay-since) > 1e-6 {
		t.Errorf("per day before %.4f, since %.4f; want %.4f, %.4f", j.BeforePerDay, j.SincePerDay, before, since)
	}
	if want := since/before - 1; math.Abs(j.CostChange-want) > 1e-9 || j.CostChange < 1 {
		t.Errorf("cost change %.4f, want %.4f (more than doubled)", j.CostChange, want)
	}
}

// TestModeSwitchJudgedPerUnitOfTraffic: an on-demand table provisioned for
// one day (10 to 9 days ago, at a cheap 100 RCU / 100 WCU), whose traffic
// doubled when it went back to on-demand. Only the latest switch (to
// on-demand, 9 days ago) is judged; it pays twice as much a day since, but
// per unit of traffic only the cheap provisioned day of the week before
// counts: the doubling cancels out.
func TestModeSwitchJudgedPerUnitOfTraffic(t *testing.T) {
	end := time.Date(2026, 11, 12, 9, 57, 0, 0, time.UTC)
	back := end.Truncate(time.Hour).Add(-9 * day)
	w, _ := (*modeHistory)(nil).window(end, modeKeepFrom(end, time.Time{}))
	m := modeFixture(w, func(h time.Time) (float64, float64, bool) {
		return 100, 100, !h.Before(back.Add(-day)) && h.Before(back)
	})
	doubled := func(from, to time.Time) []float64 {
		out := flatConsumed(500)(from, to)
		for i := range out {
			if !from.Add(time.Duration(i) * time.Hour).Before(back) {
				out[i] *= 2
			}
		}
		return out
	}
	f := m.figures(usEast1(t), doubled, doubled)
	if f.Judged == nil {
		t.Fatal("the latest switch (to on-demand, 9 days old) is not judged")
	}
	if !f.Judged.Switch.ToOnDemand || !f.Judged.Switch.At.Equal(back) {
		t.Errorf("judged %+v, want the switch to on-demand at %s", f.Judged.Switch, back)
	}
	if f.Judged.SincePerDay < 1.5*f.Judged.BeforePerDay {
		t.Errorf("since %.2f a day against %.2f before: the traffic doubled, the cost a day should nearly double", f.Judged.SincePerDay, f.Judged.BeforePerDay)
	}
	p := usEast1(t)
	od := (500*p.OnDemandReadPerMillion + 500*p.OnDemandWritePerMillion) * 3600 / 1e6
	prov := 100*p.ProvisionedRCUHour + 100*p.ProvisionedWCUHour
	want := 1/((6*24*od+24*prov)/(7*24*od)) - 1
	if math.Abs(f.Judged.CostChange-want) > 1e-9 || f.Judged.CostChange > 0.2 {
		t.Errorf("cost change %.6f, want %.6f (under 0.2): the doubling of traffic must cancel out", f.Judged.CostChange, want)
	}
}

// TestModeChurnInTheHistory: switched to on-demand at 20:00 and back at
// 07:00 every day for a week. Every switch is counted, both ways, and the
// latest (under a day old) is not judged: no period holds one mode.
func TestModeChurnInTheHistory(t *testing.T) {
	end := time.Date(2026, 11, 26, 18, 57, 0, 0, time.UTC)
	cronFrom := time.Date(2026, 11, 19, 20, 0, 0, 0, time.UTC)
	w, _ := (*modeHistory)(nil).window(end, modeKeepFrom(end, time.Time{}))
	m := modeFixture(w, func(h time.Time) (float64, float64, bool) {
		if h.Before(cronFrom) {
			return 1500, 500, true
		}
		return 1500, 500, h.Hour() >= 7 && h.Hour() < 20
	})
	f := m.figures(usEast1(t), flatConsumed(1000), flatConsumed(300))
	// End 18:00 on the 26th: to on-demand on the 19th to the 25th at 20:00
	// (7), to provisioned on the 20th to the 26th at 07:00 (7).
	if got, want := f.ToOnDemand, []int{1, 3, 7, 7}; !equalInts(got, want) {
		t.Errorf("switches to on-demand by window %v, want %v", got, want)
	}
	if got, want := f.ToProvisioned, []int{1, 3, 7, 7}; !equalInts(got, want) {
		t.Errorf("switches to provisioned by window %v, want %v", got, want)
	}
	if f.Judged != nil {
		t.Errorf("judged %+v on a table that switched 11 hours ago", f.Judged)
	}
}

// TestModeHistoryRefresh: a refresh within the same hour fetches nothing; in
// the next hour it fetches the new hour and the last one held again, whose
// value the new fetch replaces (CloudWatch had not all its samples); hours
// older than modeKeep are dropped.
func TestModeHistoryRefresh(t *testing.T) {
	end := time.Date(2026, 11, 12, 9, 57, 0, 0, time.UTC)
	kf := modeKeepFrom(end, time.Time{})
	w, _ := (*modeHistory)(nil).window(end, kf)
	m := modeFixture(w, func(h time.Time) (float64, float64, bool) { return 10, 10, h.Before(w.end.Add(-time.Hour)) })
	if _, ok := m.window(end.Add(2*time.Minute), kf); ok {
		t.Error("a refresh within the same hour fetches the history again")
	}
	next := end.Add(time.Hour)
	nkf := modeKeepFrom(next, time.Time{})
	m.forget(nkf)
	if !m.start.Equal(nkf) || m.end() != w.end {
		t.Fatalf("after forget: start %s end %s, want %s, %s", m.start, m.end(), nkf, w.end)
	}
	rw, ok := m.window(next, nkf)
	if !ok || !rw.start.Equal(w.end.Add(-time.Hour)) || !rw.end.Equal(next.Truncate(time.Hour)) {
		t.Fatalf("refresh window %+v, want [%s, %s)", rw, w.end.Add(-time.Hour), next.Truncate(time.Hour))
	}
	if len(m.switches()) != 1 {
		t.Fatalf("before the refresh: %d switches, want the last hour read as on-demand", len(m.switches()))
	}
	m.apply(false, rw, pts([]time.Time{rw.start, rw.start.Add(time.Hour)}, []float64{10, 10}))
	m.apply(true, rw, pts([]time.Time{rw.start, rw.start.Add(time.Hour)}, []float64{10, 10}))
	if n := len(m.switches()); n != 0 || m.end() != rw.end {
		t.Errorf("after the refresh: %d switches, end %s; want none, %s", n, m.end(), rw.end)
	}
	// Away for longer than modeKeep: nothing is kept, and the history
	// starts again at keepFrom, whole, not after a run of empty hours.
	later := next.Add(30 * day)
	lkf := modeKeepFrom(later, time.Time{})
	m.forget(lkf)
	lw, ok := m.window(later, lkf)
	if m.read.Len() != 0 || !m.start.Equal(lkf) || !ok || !lw.start.Equal(lkf) {
		t.Errorf("after 30 days away: start %s, %d hours, window %+v; want none held from %s", m.start, m.read.Len(), lw, lkf)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
