package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// demoRig is the demo scenario run for a day past its start.
func demoRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, builtin(t, "demo"))
	r.advance(t, 24*time.Hour)
	return r
}

// dims lists every table and GSI of a scenario with its spec.
type entitySpec struct {
	table, index string
	scaling      *ScalingSpec
}

func entities(sc *Scenario) []entitySpec {
	var out []entitySpec
	for _, tb := range sc.Tables {
		out = append(out, entitySpec{tb.Name, "", tb.AutoScaling})
		for _, g := range tb.GSIs {
			out = append(out, entitySpec{tb.Name, g.Name, g.AutoScaling})
		}
	}
	return out
}

// eventCounts is what the invariant checks checked, per table (with its
// GSIs), so that a check that saw nothing cannot pass unnoticed.
type eventCounts struct {
	scaleOuts, scaleIns int // applied auto-scaling changes (whole history)
	refusedDecreases    int // decreases DynamoDB's limits refused
	decreasesChecked    int // applied decreases checked against the limits
	thresholdsChecked   int // changes checked against their alarm's datapoints
	throttleMinutes     [numCauses]int
	backPressureMinutes int // base-table write throttles caused by a GSI
	switches, refused   int // billing-mode switches applied / refused
	scheduled           int // capacity changes made by scheduled actions
}

func (c eventCounts) throttles() int {
	n := c.backPressureMinutes
	for _, x := range c.throttleMinutes {
		n += x
	}
	return n
}

// expectedEvents lists, per table of the demo, the events its scenario
// exists to produce: a check that found none of them fails.
var expectedEvents = map[string]func(c eventCounts) string{
	"tickets-spike": func(c eventCounts) string { // autoscaling-spike
		return need(c.scaleOuts > 0, "scale-outs") + need(c.throttleMinutes[causeProvisioned] > 0, "provisioned-throughput throttles")
	},
	"orders-evening-peak": func(c eventCounts) string { // recurring-evening-peak, no scheduled action
		return need(c.scaleOuts > 0, "scale-outs") + need(c.throttleMinutes[causeProvisioned] > 0, "provisioned-throughput throttles")
	},
	"orders-evening-scheduled": func(c eventCounts) string { // recurring-evening-peak, covered by scheduled actions
		return need(c.scheduled > 0, "capacity changes by scheduled actions") + need(c.throttles() == 0, "no throttle minute (the scheduled action covers the peak), but")
	},
	"carts-target90": func(c eventCounts) string { // target-too-high
		return need(c.scaleOuts > 0, "scale-outs") + need(c.throttleMinutes[causeProvisioned] > 0, "provisioned-throughput throttles")
	},
	"reports-churn": func(c eventCounts) string { // billing-switch-churn
		return need(c.refused > 0, "a refused switch") + need(c.switches > 0, "applied switches")
	},
	"profiles-hotkey": func(c eventCounts) string { // hot-partition-on-demand
		return need(c.throttleMinutes[causeKeyRange] > 0, "key-range throttles")
	},
	"catalog-healthy": func(c eventCounts) string { // healthy: scales both ways, never throttles
		return need(c.scaleOuts > 0 && c.scaleIns > 0, "scale-outs and scale-ins") + need(c.throttles() == 0, "no throttles")
	},
	"ledger-sustained": func(c eventCounts) string { // on-demand-sustained
		return need(c.switches > 0, "the switch to on-demand")
	},
}

func need(ok bool, what string) string {
	if ok {
		return ""
	}
	return " " + what + ";"
}

func TestInvariants(t *testing.T) {
	r := demoRig(t)
	now := r.clk.Now()
	from := now.Add(-15 * 24 * time.Hour)
	counts := map[string]*eventCounts{}
	for _, tb := range r.eng.Scenario().Tables {
		counts[tb.Name] = &eventCounts{}
	}
	for _, es := range entities(r.eng.Scenario()) {
		minutes, err := r.eng.Truth("", es.table, es.index, from, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(minutes) < 14*1440 {
			t.Fatalf("%s/%s: %d minutes of truth, want 15 days", es.table, es.index, len(minutes))
		}
		name := es.table + "/" + es.index
		t.Run(name, func(t *testing.T) {
			checkBurst(t, minutes)
			checkCapacityBounds(t, minutes, es.scaling)
		})
		c := counts[es.table]
		for _, m := range minutes {
			for k := range numCauses {
				if m.ReadEvents[k] > 0 || m.WriteEvents[k] > 0 {
					c.throttleMinutes[k]++
				}
			}
			if m.BackPressureEvents > 0 {
				c.backPressureMinutes++
			}
		}
	}
	for _, tb := range r.eng.Scenario().Tables {
		c := counts[tb.Name]
		t.Run(tb.Name+"/scaling", func(t *testing.T) {
			checkScalingEvents(t, r, tb, c)
		})
		for _, s := range r.eng.SwitchResults(tb.Name) {
			if s.ErrorCode != "" {
				c.refused++
			} else {
				c.switches++
			}
		}
		t.Logf("%-22s scale-outs %5d scale-ins %4d refused decreases %4d | checked: decreases %4d thresholds %5d | throttle minutes (15d) key-range %5d provisioned %5d max-on-demand %d account %d back-pressure %d | switches %d refused %d | scheduled %d",
			tb.Name, c.scaleOuts, c.scaleIns, c.refusedDecreases, c.decreasesChecked, c.thresholdsChecked,
			c.throttleMinutes[causeKeyRange], c.throttleMinutes[causeProvisioned], c.throttleMinutes[causeMaxOnDemand], c.throttleMinutes[causeAccountLimit], c.backPressureMinutes,
			c.switches, c.refused, c.scheduled)
		if want := expectedEvents[tb.Name]; want != nil {
			if missing := want(*c); missing != "" {
				t.Errorf("%s: the scenario should produce%s the checks found none", tb.Name, missing)
			}
		}
	}
	var total eventCounts
	for _, c := range counts {
		total.scaleOuts += c.scaleOuts
		total.scaleIns += c.scaleIns
		total.decreasesChecked += c.decreasesChecked
		total.thresholdsChecked += c.thresholdsChecked
	}
	if total.decreasesChecked == 0 || total.thresholdsChecked == 0 {
		t.Errorf("checked %d decreases and %d thresholds on the demo: the checks saw nothing", total.decreasesChecked, total.thresholdsChecked)
	}
}

// checkBurst: on a provisioned table, consumed never exceeds the capacity
// plus the burst still available (at most 300 s of unused capacity).
func checkBurst(t *testing.T, minutes []Minute) {
	t.Helper()
	for d, name := range []string{"read", "write"} {
		stored := math.Inf(1)
		for _, m := range minutes {
			if m.OnDemand {
				stored = math.Inf(1)
				continue
			}
			c, used := m.ReadCapacity, m.ReadConsumed
			if d == 1 {
				c, used = m.WriteCapacity, m.WriteConsumed
			}
			stored = math.Min(stored, 300*c)
			if used > 60*c+stored+1e-6 {
				t.Fatalf("%s at %v: consumed %v > capacity %v×60 + burst %v", name, m.Time, used, c, stored)
			}
			stored = math.Min(300*c, stored+60*c-used)
		}
	}
}

// checkCapacityBounds: auto-scaled capacity stays within [min, max].
func checkCapacityBounds(t *testing.T, minutes []Minute, s *ScalingSpec) {
	t.Helper()
	if s == nil {
		return
	}
	for _, m := range minutes {
		if m.OnDemand {
			continue
		}
		for _, x := range []struct {
			p *PolicySpec
			c float64
		}{{s.Read, m.ReadCapacity}, {s.Write, m.WriteCapacity}} {
			if x.p != nil && (x.c < x.p.Min || x.c > x.p.Max) {
				t.Fatalf("capacity %v at %v outside [%v, %v]", x.c, m.Time, x.p.Min, x.p.Max)
			}
		}
	}
}

// checkScalingEvents: a scale-out follows 2 minutes above target and
// serves after the policy's delay; a scale-in follows 15 minutes below
// target − 20 points and sets the highest of them ÷ target; decreases
// respect DynamoDB's daily limits, per table or GSI.
func checkScalingEvents(t *testing.T, r *rig, tb TableSpec, c *eventCounts) {
	t.Helper()
	now := r.clk.Now()
	from := now.Add(-15 * 24 * time.Hour)
	truth := map[string][]Minute{}
	type budget struct {
		day  time.Time
		n    int
		last time.Time
	}
	budgets := map[string]*budget{}
	// The runs of scheduled actions, by dimension and minute: a capacity
	// change at a run's minute is the run's (to its new minimum or
	// maximum), not target tracking's.
	type runKey struct {
		index string
		read  bool
		at    time.Time
	}
	runs := map[runKey]ScheduledRun{}
	for _, run := range r.eng.ScheduledRuns(tb.Name) {
		if run.Refused == "" {
			runs[runKey{run.Index, run.Read, run.At}] = run
		}
	}
	for _, ev := range r.eng.ScalingEvents(tb.Name) {
		if run, ok := runs[runKey{ev.Index, ev.Read, ev.Effective}]; ok && ev.Refused == "" {
			if !(ev.To > ev.From && ev.To == run.Min) && !(ev.To < ev.From && ev.To == run.Max) {
				t.Fatalf("capacity %v → %v at the run of scheduled action %s (bounds %v-%v): want the new minimum or maximum", ev.From, ev.To, run.Action, run.Min, run.Max)
			}
			c.scheduled++
			continue
		}
		if ev.Refused != "" {
			if ev.To < ev.From {
				c.refusedDecreases++
			}
			continue
		}
		if ev.To > ev.From {
			c.scaleOuts++
		} else {
			c.scaleIns++
			// Decrease limits, per table or index (both dimensions
			// share them; read and write lowered together count once).
			b := budgets[ev.Index]
			if b == nil {
				b = &budget{}
				budgets[ev.Index] = b
			}
			day := ev.Effective.Truncate(24 * time.Hour)
			if !day.Equal(b.day) {
				b.day, b.n = day, 0
			}
			if b.n >= freeDecreasesPerDay && ev.Effective.Sub(b.last) < decreaseInterval && !ev.Effective.Equal(b.last) {
				t.Fatalf("decrease %d of %v at %v, %v after the previous one", b.n+1, day, ev.Effective, ev.Effective.Sub(b.last))
			}
			if !ev.Effective.Equal(b.last) {
				b.n++
			}
			b.last = ev.Effective
			c.decreasesChecked++
		}
		if ev.Decided.Before(from.Add(time.Hour)) {
			continue
		}
		ms, ok := truth[ev.Index]
		if !ok {
			var err error
			if ms, err = r.eng.Truth("", tb.Name, ev.Index, from, now); err != nil {
				t.Fatal(err)
			}
			truth[ev.Index] = ms
		}
		p := policyOf(tb, ev.Index, ev.Read)
		at := func(tm time.Time) Minute { return ms[int(tm.Sub(ms[0].Time)/time.Minute)] }
		use := func(m Minute) (u, c float64) {
			if ev.Read {
				return m.ReadConsumed / 60, m.ReadCapacity
			}
			return m.WriteConsumed / 60, m.WriteCapacity
		}
		c.thresholdsChecked++
		if ev.To > ev.From {
			if lag := ev.Effective.Sub(ev.Decided); lag != p.Delay.D() {
				t.Fatalf("scale-out decided at %v effective %v: lag %v, want the delay %v", ev.Decided, ev.Effective, lag, p.Delay.D())
			}
			for k := 1; k <= 2; k++ {
				m := at(ev.Decided.Add(-time.Duration(k) * time.Minute))
				if u, c := use(m); u <= p.Target/100*c {
					t.Fatalf("scale-out decided at %v but minute %v was at %.1f%% of %v", ev.Decided, m.Time, 100*u/c, c)
				}
			}
			continue
		}
		var top float64
		for k := 1; k <= 15; k++ {
			m := at(ev.Decided.Add(-time.Duration(k) * time.Minute))
			u, c := use(m)
			if 100*u >= (p.Target-20)*c {
				t.Fatalf("scale-in decided at %v but minute %v was at %.1f%% of %v, not below %v%%", ev.Decided, m.Time, 100*u/c, c, p.Target-20)
			}
			top = math.Max(top, u)
		}
		if want := math.Max(p.Min, math.Ceil(top/(p.Target/100)-1e-9)); ev.To != want {
			t.Fatalf("scale-in decided at %v to %v, want the highest of 15 minutes %v ÷ %v%% = %v", ev.Decided, ev.To, top, p.Target, want)
		}
	}
}

func policyOf(tb TableSpec, index string, read bool) *PolicySpec {
	s := tb.AutoScaling
	for _, g := range tb.GSIs {
		if g.Name == index {
			s = g.AutoScaling
		}
	}
	if read {
		return s.Read
	}
	return s.Write
}

// Event metrics have a datapoint exactly in the minutes with events.
func TestEventMetricsOnlyWhenNonZero(t *testing.T) {
	r := newRig(t, builtin(t, "autoscaling-spike"))
	r.advance(t, 3*time.Hour)
	start := r.eng.Start()
	from, to := start.Add(90*time.Minute), start.Add(3*time.Hour)
	minutes, err := r.eng.Truth("", "tickets-spike", "", from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]float64{}
	for _, m := range minutes {
		if n := m.ReadEvents[causeProvisioned]; n > 0 {
			want[m.Time.Unix()] = n
		}
	}
	ts, vals := r.series(t, "ReadProvisionedThroughputThrottleEvents", map[string]string{"TableName": "tickets-spike"}, "Sum", from, to, 60)
	if len(want) == 0 || len(want) >= len(minutes) {
		t.Fatalf("%d minutes with throttles out of %d: the test needs some quiet minutes and some events", len(want), len(minutes))
	}
	if len(ts) != len(want) {
		t.Fatalf("%d datapoints, want %d (one per minute with events)", len(ts), len(want))
	}
	for i, tm := range ts {
		if vals[i] <= 0 || want[tm.Unix()] != vals[i] {
			t.Fatalf("datapoint %v = %v, want %v", tm, vals[i], want[tm.Unix()])
		}
	}
	for _, m := range []string{"ReadKeyRangeThroughputThrottleEvents", "SystemErrors"} {
		if _, vals := r.series(t, m, map[string]string{"TableName": "tickets-spike"}, "Sum", from, to, 60); len(vals) != 0 {
			t.Errorf("%s has datapoints %v in minutes without events", m, vals)
		}
	}
}

// Sums over 5-minute, hourly and daily periods equal the sums of the
// minutes they hold, in every storage tier.
func TestHistorySums(t *testing.T) {
	r := newRig(t, builtin(t, "autoscaling-spike"))
	now := r.clk.Now()
	dims := map[string]string{"TableName": "tickets-spike"}
	total := func(name string, from, to time.Time, period int32) (float64, int) {
		_, vals := r.series(t, name, dims, "Sum", from, to, period)
		var s float64
		for _, v := range vals {
			s += v
		}
		return s, len(vals)
	}
	for _, c := range []struct {
		name     string
		ago      time.Duration
		span     time.Duration
		fine     int32
		coarse   int32
		wantFine int
	}{
		{"minutes", 3 * 24 * time.Hour, 2 * time.Hour, 60, 300, 120},
		{"minutes-hour", 2*24*time.Hour + 2*time.Hour, 3 * time.Hour, 60, 3600, 180},
		{"five-minute tier", 30 * 24 * time.Hour, 6 * time.Hour, 300, 3600, 72},
		{"hourly tier", 80 * 24 * time.Hour, 2 * 24 * time.Hour, 3600, 86400, 48},
		{"across tiers", 89 * 24 * time.Hour, 89 * 24 * time.Hour, 3600, 86400, 89 * 24},
	} {
		t.Run(c.name, func(t *testing.T) {
			from := now.Add(-c.ago).Truncate(24 * time.Hour)
			to := from.Add(c.span)
			for _, m := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents"} {
				fine, n := total(m, from, to, c.fine)
				coarse, _ := total(m, from, to, c.coarse)
				if fine != coarse {
					t.Errorf("%s: sum of %ds periods %v != sum of %ds periods %v", m, c.fine, fine, c.coarse, coarse)
				}
				if m == "ConsumedReadCapacityUnits" && n != c.wantFine {
					t.Errorf("%s: %d datapoints of %ds, want %d", m, n, c.fine, c.wantFine)
				}
			}
		})
	}
}

// A minute answered from the minute tier and, once rolled up, from the
// 5-minute and hourly tiers keeps its sums.
func TestRollupKeepsSums(t *testing.T) {
	sc := builtin(t, "autoscaling-spike")
	clk := clock.NewManual(t0)
	srv := awssim.New(awssim.WithClock(clk))
	eng, err := New(sc, srv, clk)
	if err != nil {
		t.Fatal(err)
	}
	m := awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ConsumedReadCapacityUnits", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "tickets-spike"}}}
	from := t0.Add(-14 * 24 * time.Hour)
	hourly := func() []float64 {
		out := make([]float64, 24)
		for _, dp := range eng.Datapoints("us-east-1", m, from, from.Add(24*time.Hour)) {
			out[dp.Time.Sub(from)/time.Hour] += dp.Sum
		}
		return out
	}
	before := hourly()
	for _, d := range []time.Duration{10 * 24 * time.Hour, 60 * 24 * time.Hour} {
		clk.Advance(d)
		after := hourly()
		for h := range before {
			if before[h] != after[h] || before[h] == 0 {
				t.Fatalf("after %v, hour %d sums %v, was %v in minutes", d, h, after[h], before[h])
			}
		}
	}
	if n := len(eng.Datapoints("us-east-1", m, from, from.Add(24*time.Hour))); n != 24 {
		t.Errorf("%d datapoints for a day 84 days ago, want 24 hourly ones", n)
	}
}

// The engine advances lazily when the server is asked anything, and has no
// data for the future.
func TestLazyAdvance(t *testing.T) {
	r := newRig(t, builtin(t, "healthy"))
	if got := r.eng.Now(); !got.Equal(t0) {
		t.Fatalf("engine at %v after New, want %v", got, t0)
	}
	r.clk.Advance(17*time.Minute + 30*time.Second)
	if _, err := r.ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("catalog-healthy")}); err != nil {
		t.Fatal(err)
	}
	if got, want := r.eng.Now(), t0.Add(17*time.Minute); !got.Equal(want) {
		t.Fatalf("engine at %v after a request, want %v", got, want)
	}
	m := awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ConsumedReadCapacityUnits", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "catalog-healthy"}}}
	if dps := r.eng.Datapoints("us-east-1", m, t0.Add(17*time.Minute), t0.Add(2*time.Hour)); len(dps) != 0 {
		t.Fatalf("datapoints for minutes not yet ended: %v", dps)
	}
}

// Two engines on the same scenario and clock produce the same data.
func TestDeterministic(t *testing.T) {
	a, b := newRig(t, builtin(t, "target-too-high")), newRig(t, builtin(t, "target-too-high"))
	dims := map[string]string{"TableName": "carts-target90"}
	from, to := t0.Add(-3*24*time.Hour), t0
	ta, va := a.series(t, "ReadThrottleEvents", dims, "Sum", from, to, 60)
	tb, vb := b.series(t, "ReadThrottleEvents", dims, "Sum", from, to, 60)
	if len(va) == 0 || len(ta) != len(tb) {
		t.Fatalf("%d vs %d datapoints", len(ta), len(tb))
	}
	for i := range va {
		if !ta[i].Equal(tb[i]) || va[i] != vb[i] {
			t.Fatalf("datapoint %d differs: %v=%v vs %v=%v", i, ta[i], va[i], tb[i], vb[i])
		}
	}
}
