package collectors

import (
	"fmt"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// storedChart is the chart the run used to compute and keep in each report:
// hourlyHistory over the histories as the run read them (before they are
// compacted) and the what-ifs the run evaluated (whatIfFor's run advanced
// over the open minutes), from the first minute of the what-if.
func storedChart(t *testing.T, c *Capacity, st *capacityState, tb *Table, b bounds) HourlyHistory {
	t.Helper()
	dataStart := b.h0
	if cr := creation(tb); cr.After(dataStart) {
		dataStart = cr
	}
	runFrom := whatIfStart(b.end)
	if first := ceilMinute(dataStart); first.After(runFrom) {
		runFrom = first
	}
	var reads, writes []*history
	var runs []*whatIf
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		key := historyKey{table: tb.Name, index: idx, write: false}
		read, write := st.hist[key], st.hist[historyKey{table: tb.Name, index: idx, write: true}]
		w, err := c.whatIfFor(st, key, read, write, settingsFor(tb, idx, st.scaling, c.settings.ScaleOutDelay), provisioned(tb), runFrom, b.end)
		if err != nil {
			t.Fatal(err)
		}
		reads, writes, runs = append(reads, read), append(writes, write), append(runs, w)
	}
	return hourlyHistory(b.end, runFrom, reads, writes, runs)
}

// TestChartOnDemandEqualsStored: the chart Reports computes from the
// history the collector holds equals the one the run used to compute and
// keep in the report, on the first cycle (90 days fetched) and on hourly
// cycles after it, for an old on-demand table, a provisioned one and one
// created two days ago: the provisioned capacity exactly, the consumed
// exactly but for the hours the run read minute by minute and folded into
// their hourly Sum right after (float32), which differ by at most 2^-24
// of the value, and equal what the run after charts for them. ReportFigures
// leaves the charts out.
func TestChartOnDemandEqualsStored(t *testing.T) {
	young := benchTable("young")
	young.Description.CreationDateTime = aws.Time(benchEnd.Add(-2*day - 17*time.Minute))
	prov := benchTable("prov")
	prov.Description.BillingModeSummary = &types.BillingModeSummary{BillingMode: types.BillingModeProvisioned}
	prov.Description.ProvisionedThroughput = &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(400), WriteCapacityUnits: aws.Int64(150)}
	tables := []*Table{benchTable("old"), prov, young}

	c := NewCapacity(Deps{Logger: slog.New(slog.DiscardHandler)}, CapacitySettings{History: 90 * day, ScaleOutDelay: 5 * time.Minute})
	target := &awsclient.Target{Account: "acct", Region: "us-east-1"}
	c.targets = []*awsclient.Target{target}
	st := &capacityState{hist: map[historyKey]*history{}, whatIf: map[historyKey]*whatIf{}, warned: map[string]bool{}}
	c.state[target.Key()] = st

	traffic := func(i, j int, created time.Time) func(time.Time) float64 {
		f := benchTraffic(1 + float64(i*7+j)/10)
		return func(m time.Time) float64 {
			if m.Before(created) {
				return 0
			}
			return f(m)
		}
	}
	var folded, exact, roundedDiff, next int
	// charted: by table, the consumed read charted on demand at the
	// previous cycle and the first hour it read minute by minute.
	type charted struct {
		h     HourlyHistory
		tail0 time.Time
	}
	prev := map[string]charted{}
	for cycle := range 4 {
		end := benchEnd.Add(time.Duration(cycle) * time.Hour)
		b := boundsAt(end, 90*day)
		st.reports = st.reports[:0]
		var stored []HourlyHistory
		// foldedFrom: by table, the first hour the run held minute by
		// minute (all of them on the first cycle).
		foldedFrom := map[string]time.Time{}
		for i, tb := range tables {
			own := b.since(creation(tb))
			for j, k := range historyKeys(tb) {
				h := st.hist[k]
				if h == nil {
					h = newHistory(own)
					st.hist[k] = h
				} else if !h.roll(b) {
					t.Fatal("roll refused")
				}
				fillWindows(h, windowsFor(h, b, creation(tb)), traffic(i, j, creation(tb)))
				h.finish(own)
			}
			r, err := c.report(target, st, tb, b)
			if err != nil || r == nil {
				t.Fatalf("cycle %d, %s: report %v, %v", cycle, tb.Name, r, err)
			}
			stored = append(stored, storedChart(t, c, st, tb, b))
			if h := st.hist[historyKey{table: tb.Name, index: "", write: false}]; h.staged == nil {
				foldedFrom[tb.Name] = h.tail0
			}
			// What the run does after deriving the report (runTarget).
			for _, k := range historyKeys(tb) {
				h := st.hist[k]
				h.compact(end, c.peakK(), creation(tb))
				h.forget(c.keepFrom(b))
				h.settle(end)
			}
			st.reports = append(st.reports, *r)
		}
		for _, r := range c.ReportFigures() {
			if len(r.Hourly.ConsumedRead) != 0 {
				t.Errorf("ReportFigures: %s has a chart", r.Table)
			}
		}
		for i, r := range c.Reports() {
			old, got := stored[i], r.Hourly
			if len(old.ConsumedRead) == 0 {
				t.Fatalf("cycle %d, %s: the run charted nothing: the test proves nothing", cycle, r.Table)
			}
			if !got.Start.Equal(old.Start) || len(got.ConsumedRead) != len(old.ConsumedRead) {
				t.Fatalf("cycle %d, %s: chart of %d hours from %v, the run's %d from %v", cycle, r.Table, len(got.ConsumedRead), got.Start, len(old.ConsumedRead), old.Start)
			}
			// The hours the run folded after deriving the report.
			h := st.hist[historyKey{table: r.Table, index: "", write: false}]
			from := foldedFrom[r.Table]
			// What the previous cycle charted on demand for an hour it
			// held as an hourly Sum is what this run charts for it.
			if p, ok := prev[r.Table]; ok {
				for j := range p.h.ConsumedRead {
					at := p.h.Start.Add(time.Duration(j) * time.Hour)
					if k := int(at.Sub(old.Start) / time.Hour); !at.Before(old.Start) && at.Before(p.tail0) {
						if p.h.ConsumedRead[j] != old.ConsumedRead[k] || p.h.ConsumedWrite[j] != old.ConsumedWrite[k] {
							t.Fatalf("cycle %d, %s, %v: consumed charted on demand the cycle before %v/%v, this run %v/%v", cycle, r.Table, at,
								p.h.ConsumedRead[j], p.h.ConsumedWrite[j], old.ConsumedRead[k], old.ConsumedWrite[k])
						}
						next++
					}
				}
			}
			prev[r.Table] = charted{got, h.tail0}
			for j := range old.ConsumedRead {
				at := old.Start.Add(time.Duration(j) * time.Hour)
				for d, pair := range [][2][]float64{{old.ProvisionedRead, got.ProvisionedRead}, {old.ProvisionedWrite, got.ProvisionedWrite}} {
					if pair[0][j] != pair[1][j] {
						t.Fatalf("cycle %d, %s, %v: provisioned %s %v, the run's %v", cycle, r.Table, at, dimensionLabels[d], pair[1][j], pair[0][j])
					}
				}
				for d, pair := range [][2][]float64{{old.ConsumedRead, got.ConsumedRead}, {old.ConsumedWrite, got.ConsumedWrite}} {
					want, v := pair[0][j], pair[1][j]
					switch {
					case v == want:
						exact++
					case at.Before(from) || !at.Before(h.tail0):
						t.Fatalf("cycle %d, %s, %v: consumed %s %v, the run's %v (an hour the run read as it is held)", cycle, r.Table, at, dimensionLabels[d], v, want)
					case math.Abs(v-want) > 0x1p-24*math.Abs(want):
						t.Fatalf("cycle %d, %s, %v: consumed %s %v, the run's %v: beyond float32 rounding", cycle, r.Table, at, dimensionLabels[d], v, want)
					default:
						folded++
						if math.Round(v*1000) != math.Round(want*1000) {
							roundedDiff++
						}
					}
				}
			}
		}
	}
	t.Logf("consumed hours: %d equal, %d within float32 rounding (folded after the run), %d of them differ at the report's 3 decimals; %d hours charted on demand as the next run charts them",
		exact, folded, roundedDiff, next)
	if exact == 0 || next == 0 {
		t.Error("no hour compared: the comparison proves nothing")
	}
}

// TestForgottenHoursAreNotRead: a collector that drops the hourly Sums
// before keepFrom derives the same figures and charts, run after run, as
// one that keeps all its history, for 90 and 60 days of history and for 84
// (whole weeks: the baselines' weeks then depend on whether the history
// ends on the hour, and nothing is forgotten), on traffic with a surge six
// weeks back (which the surge detection reads).
func TestForgottenHoursAreNotRead(t *testing.T) {
	surge := benchEnd.Add(-6 * week)
	for _, span := range []time.Duration{90 * day, 84 * day, 60 * day} {
		tb := benchTable("t")
		type run struct {
			c  *Capacity
			st *capacityState
		}
		target := &awsclient.Target{Account: "acct", Region: "us-east-1"}
		var runs [2]run
		for i := range runs {
			c := NewCapacity(Deps{Targets: []*awsclient.Target{target}, Logger: slog.New(slog.DiscardHandler)}, CapacitySettings{History: span, ScaleOutDelay: 5 * time.Minute})
			st := &capacityState{hist: map[historyKey]*history{}, whatIf: map[historyKey]*whatIf{}, warned: map[string]bool{}}
			c.state[target.Key()] = st
			runs[i] = run{c, st}
		}
		var dropped int
		for cycle, end := range []time.Time{benchEnd, benchEnd.Add(time.Hour), benchEnd.Add(2*time.Hour + 3*time.Minute), benchEnd.Add(3*time.Hour + 3*time.Minute), benchEnd.Add(3*time.Hour + 40*time.Minute)} {
			b := boundsAt(end, span)
			var got [2]string
			for i, r := range runs {
				for j, k := range historyKeys(tb) {
					f := benchTraffic(1 + float64(j)/10)
					traffic := func(m time.Time) float64 {
						if !m.Before(surge) && m.Before(surge.Add(week)) {
							return 4 * f(m)
						}
						return f(m)
					}
					h := r.st.hist[k]
					ws := windowsFor(h, b, time.Time{})
					if h == nil {
						// The first fetch: every tier, back to the
						// surge and beyond.
						h, ws = newHistory(b), windowsForTiers(nil, b, time.Time{})
						r.st.hist[k] = h
					} else if !h.roll(b) {
						t.Fatal("roll refused")
					}
					fillWindows(h, ws, traffic)
					h.finish(b)
				}
				rep, err := r.c.report(target, r.st, tb, b)
				if err != nil || rep == nil {
					t.Fatalf("report %v, %v", rep, err)
				}
				for _, k := range historyKeys(tb) {
					h := r.st.hist[k]
					h.compact(end, r.c.peakK(), creation(tb))
					if i == 1 {
						n := h.hours.Len()
						h.forget(r.c.keepFrom(b))
						dropped += n - h.hours.Len()
					}
					h.settle(end)
				}
				r.st.reports = []TableReport{*rep}
				rep.Hourly = r.st.chart(rep)
				var surges []Surge
				for j, f := range rep.Traffic {
					if f.Surge != nil {
						surges = append(surges, *f.Surge)
						rep.Traffic[j].Surge = nil
					}
				}
				class, proj, peaks := rep.Class, rep.Projection, rep.Peaks // printed by value, not by address
				rep.Class, rep.Projection, rep.Peaks = nil, nil, nil
				var peakValues []string
				for _, p := range peaks {
					for k, pk := range p.Peaks {
						proposal := pk.Proposal
						pk.Proposal = nil
						peakValues = append(peakValues, fmt.Sprintf("%s %d %+v %+v", p.Index, k, pk, p.Peaks[k].Advice()))
						if proposal != nil {
							peakValues = append(peakValues, fmt.Sprintf("proposal %+v", *proposal))
						}
					}
				}
				got[i] = fmt.Sprintf("%+v\nsurges %+v\nclass %+v\nprojection %+v\npeaks %v", *rep, surges, class, proj, peakValues)
				if len(surges) == 0 {
					t.Fatalf("history %v, run %d: no surge found: the test proves nothing", span, cycle)
				}
			}
			if got[0] != got[1] {
				a, b := got[1], got[0]
				for k := range min(len(a), len(b)) {
					if a[k] != b[k] {
						a, b = a[max(0, k-200):min(len(a), k+200)], b[max(0, k-200):min(len(b), k+200)]
						break
					}
				}
				t.Fatalf("history %v, run %d: forgetting the old hours changed the figures:\n…%s…\nkeeping them:\n…%s…", span, cycle, a, b)
			}
		}
		if whole := span%week == 0; whole != (dropped == 0) {
			t.Errorf("history %v: %d hours forgotten: want some unless the history is whole weeks", span, dropped)
		}
	}
}
