package capacity_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// Bounds of the model-vs-simulator comparison, per table or GSI and
// dimension over the last 14 days (the minutes the simulator keeps at
// 1-minute resolution).
//
// The simulator (simulation/sim) states DynamoDB's rules on its own and is
// fed what clients ask for; the model is fed the simulator's consumed
// capacity, the CloudWatch Sums the exporter reads, and starts from the
// simulator's capacity at the window's first minute. Both decide on the same
// consumed figures and, stated independently, follow the same rules of AWS
// (scale-out after 2 minutes above target, scale-in below target − 20
// points to the highest demand of 15 minutes ÷ target, one decrease budget
// per table or GSI), so they agree to the minute except where their states
// differ at the window's start: the burst credit and the runs of minutes
// above and below target. Measured on the built-in scenarios: at most
// 0.01% of unit-hours and one capacity change apart. Capacity a dimension
// holds without a policy is fixed in both, and agrees exactly.
const (
	// maxUnitHoursGap is the largest relative gap of provisioned
	// unit-hours (hence of provisioned cost) allowed.
	maxUnitHoursGap = 0.005
	// maxChangesGap is the largest gap of the number of capacity changes
	// (increases, decreases), relative to the larger count plus 5.
	maxChangesGap = 0.05
)

// comparison is the model and the simulator on one dimension.
type comparison struct {
	scenario, table, index, dim  string
	simUnitHours, modelUnitHours float64
	simUp, simDown               int
	modelUp, modelDown           int
}

func (c comparison) gap() float64 {
	return (c.modelUnitHours - c.simUnitHours) / c.simUnitHours
}

// changes counts the minutes whose capacity rose and fell.
func changes(capacity []float64) (up, down int) {
	for i := 1; i < len(capacity); i++ {
		switch {
		case capacity[i] > capacity[i-1]:
			up++
		case capacity[i] < capacity[i-1]:
			down++
		}
	}
	return up, down
}

// provisioning turns a scenario policy (nil: none) into the model's, with the
// capacity the simulator had at the window's start.
func provisioning(ps *sim.PolicySpec, initial float64, start time.Time) capacity.Provisioning {
	if ps == nil {
		return capacity.Provisioning{Fixed: initial}
	}
	a := capacity.AutoScalingSettings{
		Target: ps.Target / 100, Min: ps.Min, Max: ps.Max,
		ScaleOutCooldown: ps.ScaleOutCooldown.D(), ScaleInCooldown: ps.ScaleInCooldown.D(),
		DisableScaleIn: ps.DisableScaleIn, Initial: initial,
		ScaleOutDelay: capacity.DefaultScaleOutDelay,
	}
	if ps.Delay != nil {
		a.ScaleOutDelay = ps.Delay.D()
	}
	for _, sa := range ps.Scheduled {
		x := capacity.ScheduledAction{Name: sa.Name, Schedule: sa.Schedule, Timezone: sa.Timezone, Min: sa.Min, Max: sa.Max}
		if sa.Start != nil {
			x.Start = start.Add(sa.Start.D())
		}
		if sa.End != nil {
			x.End = start.Add(sa.End.D())
		}
		a.Scheduled = append(a.Scheduled, x)
	}
	return capacity.Provisioning{AutoScaling: &a}
}

// TestModelAgainstSimulator runs every built-in scenario in the simulator,
// then the capacity model on the consumed capacity the simulator published,
// and prints where and by how much their provisioned capacity (unit-hours,
// the provisioned cost) and scaling (capacity changes) disagree. go test -v
// shows the table; it is also written to $CAPACITY_COMPARISON_OUT when set.
func TestModelAgainstSimulator(t *testing.T) {
	now := time.Date(2026, 11, 18, 9, 0, 0, 0, time.UTC)
	from := now.Add(-14 * 24 * time.Hour)
	var rows []comparison
	var onDemand []onDemandRow
	for _, name := range sim.BuiltinNames() {
		if name == "demo" {
			continue // the union of the other scenarios (TestDemoHoldsEveryFailureMode)
		}
		sc, err := sim.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.NewManual(now)
		eng, err := sim.New(sc, awssim.New(awssim.WithClock(clk)), clk)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ts := range sc.Tables {
			type part struct {
				index   string
				scaling *sim.ScalingSpec
			}
			parts := []part{{"", ts.AutoScaling}}
			for _, g := range ts.GSIs {
				parts = append(parts, part{g.Name, g.AutoScaling})
			}
			for _, p := range parts {
				truth, err := eng.Truth(ts.Region, ts.Name, p.index, from, now)
				if err != nil {
					t.Fatalf("%s %s %q: %v", name, ts.Name, p.index, err)
				}
				// On-demand minutes: the model prices them per request and
				// does not model on-demand throttling; report the
				// simulator's, which the model's on-demand cost ignores.
				var od onDemandRow
				for _, m := range truth {
					if m.OnDemand {
						od.minutes++
						od.demand += (m.ReadDemand + m.WriteDemand) * 60
						od.throttled += m.ReadThrottled + m.WriteThrottled
					}
				}
				if od.minutes > 0 {
					od.name = fmt.Sprintf("%s/%s%s", name, ts.Name, suffix(p.index))
					onDemand = append(onDemand, od)
				}
				truth = longestProvisioned(truth)
				if len(truth) < 60 {
					continue
				}
				tr := capacity.Trace{Start: truth[0].Time}
				var simCap [2][]float64
				for _, m := range truth {
					tr.Read = append(tr.Read, m.ReadConsumed)
					tr.Write = append(tr.Write, m.WriteConsumed)
					simCap[0] = append(simCap[0], m.ReadCapacity)
					simCap[1] = append(simCap[1], m.WriteCapacity)
				}
				var rp, wp *sim.PolicySpec
				if p.scaling != nil {
					rp, wp = p.scaling.Read, p.scaling.Write
				}
				settings := capacity.Settings{Read: provisioning(rp, simCap[0][0], eng.Start()), Write: provisioning(wp, simCap[1][0], eng.Start())}
				run, err := capacity.SimulateTable(tr, settings, capacity.DefaultAutoScaling())
				if err != nil {
					t.Fatalf("%s %s %q: %v", name, ts.Name, p.index, err)
				}
				for d, model := range []capacity.Simulation{run.Read, run.Write} {
					c := comparison{scenario: name, table: ts.Name, index: p.index, dim: capacity.Dimension(d).String(), modelUnitHours: model.UnitHours}
					for _, v := range simCap[d] {
						c.simUnitHours += v / 60
					}
					c.simUp, c.simDown = changes(simCap[d])
					c.modelUp, c.modelDown = changes(model.Capacity)
					rows = append(rows, c)
				}
			}
		}
	}
	var out strings.Builder
	w := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "SCENARIO\tTABLE\tDIM\tSIM UNIT-H\tMODEL UNIT-H\tGAP\tSIM UP/DOWN\tMODEL UP/DOWN\t")
	var worst comparison
	for _, c := range rows {
		fmt.Fprintf(w, "%s\t%s%s\t%s\t%.0f\t%.0f\t%+.2f%%\t%d/%d\t%d/%d\t\n", c.scenario, c.table, suffix(c.index), c.dim,
			c.simUnitHours, c.modelUnitHours, 100*c.gap(), c.simUp, c.simDown, c.modelUp, c.modelDown)
		if math.Abs(c.gap()) > math.Abs(worst.gap()) || worst.simUnitHours == 0 {
			worst = c
		}
	}
	_ = w.Flush()
	t.Logf("model vs simulator, provisioned capacity over %s to %s:\n%s", from.Format(time.DateOnly), now.Format(time.DateOnly), out.String())
	var od strings.Builder
	w = tabwriter.NewWriter(&od, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "TABLE\tON-DEMAND MINUTES\tSIM THROTTLED UNITS\tSHARE OF DEMAND\tMODEL\t")
	for _, r := range onDemand {
		fmt.Fprintf(w, "%s\t%d\t%.0f\t%.3f%%\tnot modelled\t\n", r.name, r.minutes, r.throttled, 100*r.throttled/math.Max(r.demand, 1))
	}
	_ = w.Flush()
	t.Logf("on-demand minutes (the model assumes on-demand serves everything):\n%s", od.String())
	out.WriteString("\n" + od.String())
	if p := os.Getenv("CAPACITY_COMPARISON_OUT"); p != "" {
		if err := os.WriteFile(filepath.Clean(p), []byte(out.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(rows) < 10 {
		t.Fatalf("compared %d dimensions, want the provisioned tables of every scenario", len(rows))
	}
	for _, c := range rows {
		if math.Abs(c.gap()) > maxUnitHoursGap {
			t.Errorf("%s %s%s %s: model %.0f unit-hours, simulator %.0f (%+.1f%%, bound ±%.0f%%)", c.scenario, c.table, suffix(c.index), c.dim,
				c.modelUnitHours, c.simUnitHours, 100*c.gap(), 100*maxUnitHoursGap)
		}
		for _, pair := range [][2]int{{c.simUp, c.modelUp}, {c.simDown, c.modelDown}} {
			if d := math.Abs(float64(pair[0] - pair[1])); d > maxChangesGap*(float64(max(pair[0], pair[1]))+5) {
				t.Errorf("%s %s%s %s: capacity changes up/down simulator %d/%d, model %d/%d", c.scenario, c.table, suffix(c.index), c.dim,
					c.simUp, c.simDown, c.modelUp, c.modelDown)
			}
		}
	}
	t.Logf("largest unit-hours gap: %s %s%s %s %+.2f%%", worst.scenario, worst.table, suffix(worst.index), worst.dim, 100*worst.gap())
}

// onDemandRow is the simulator's on-demand throttling of one table or GSI.
type onDemandRow struct {
	name              string
	minutes           int
	demand, throttled float64
}

// longestProvisioned returns the longest run of provisioned minutes (a table
// that switches billing mode is compared where it stays provisioned).
func longestProvisioned(truth []sim.Minute) []sim.Minute {
	var best []sim.Minute
	start := -1
	for i := 0; i <= len(truth); i++ {
		if i < len(truth) && !truth[i].OnDemand {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = truth[start:i]
		}
		start = -1
	}
	return best
}

func suffix(index string) string {
	if index == "" {
		return ""
	}
	return "/" + index
}
