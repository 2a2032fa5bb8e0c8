// Cost what-if of the capacity collector: the table's real auto-scaling
// settings (Application Auto Scaling), its provisioning, and the capacity
// model's evaluation of a window of consumed history in both billing modes.
package collectors

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// CostWindows are the windows of the cost what-if, by label value.
var CostWindows = []struct {
	Label string
	D     time.Duration
}{{"7d", 7 * day}, {"30d", 30 * day}}

// whatIfWarmup is how much history before the longest window the what-if
// simulates only to warm its state up (capacity, burst credit, the day's
// decreases).
const whatIfWarmup = day

// whatIfStart returns where the what-if's one simulation starts for history
// ending at end: the UTC midnight at least whatIfWarmup before the longest
// window. Every window is read off that one run, so a window does not start
// cold at whatever minute it happens to begin, and the start stays put from
// one run to the next within a UTC day: two runs a few minutes apart give
// the same figures for the minutes they share. Starting at midnight also
// starts DynamoDB's daily decrease count where it starts.
func whatIfStart(end time.Time) time.Time {
	longest := CostWindows[0].D
	for _, w := range CostWindows {
		longest = max(longest, w.D)
	}
	return end.Add(-longest - whatIfWarmup).UTC().Truncate(day)
}

// provisioning returns how one dimension of a table or GSI is modelled in
// provisioned mode: its own target-tracking policy when it has one (with the
// configured scale-out delay), else its fixed provisioned capacity when the
// table is provisioned, else the default auto-scaling (zero Provisioning).
// An on-demand table keeps its policy's target and cooldowns but not its
// minimum and maximum: those were sized for the traffic before the switch
// (a table moved to on-demand after a surge would otherwise be simulated
// against its old, far too low maximum); the defaults apply instead.
func provisioning(p scalingPolicy, havePolicy bool, provisioned bool, fixed int64, delay time.Duration) capacity.Provisioning {
	if havePolicy && p.hasPolicy && p.hasTarget {
		a := capacity.AutoScalingSettings{
			Target: p.target, Min: max(1, p.min), Max: max(1, p.min, p.max),
			ScaleInCooldown: p.in, ScaleOutCooldown: p.out, DisableScaleIn: p.noScaleIn,
			ScaleOutDelay: delay,
		}
		if !provisioned {
			d := capacity.DefaultAutoScaling()
			a.Min, a.Max = d.Min, d.Max
		}
		if a.Validate() == nil {
			return capacity.Provisioning{AutoScaling: &a}
		}
	}
	if provisioned && fixed > 0 {
		return capacity.Provisioning{Fixed: float64(fixed)}
	}
	return capacity.Provisioning{}
}

// settingsFor returns the provisioning of a table (index "") or GSI.
func settingsFor(tb *Table, index string, scaling map[ScalingResource]scalingPolicy, delay time.Duration) capacity.Settings {
	provisioned := tb.BillingMode() == string(capacity.Provisioned)
	var rcu, wcu int64
	if d := tb.Description; d != nil {
		if index == "" && d.ProvisionedThroughput != nil {
			rcu, wcu = aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits)
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if index != "" && aws.ToString(g.IndexName) == index && g.ProvisionedThroughput != nil {
				rcu, wcu = aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)
			}
		}
	}
	rp, rok := scaling[ScalingResource{Table: tb.Name, Index: index, Dimension: "read"}]
	wp, wok := scaling[ScalingResource{Table: tb.Name, Index: index, Dimension: "write"}]
	return capacity.Settings{
		Read:  provisioning(rp, rok, provisioned, rcu, delay),
		Write: provisioning(wp, wok, provisioned, wcu, delay),
	}
}

// tableClass returns the table's class (STANDARD when not reported).
func tableClass(tb *Table) capacity.TableClass {
	if d := tb.Description; d != nil && d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
		return capacity.TableClass(d.TableClassSummary.TableClass)
	}
	return capacity.Standard
}

// WindowCost is the cost what-if of one table over one window.
type WindowCost struct {
	// Window is the label value: 7d or 30d.
	Window string
	// Covered is the history the trace covers (shorter than the window for a
	// young table).
	Covered time.Duration
	// Evaluation is the capacity model's verdict.
	Evaluation capacity.Evaluation
}

// minTrace is the shortest history the cost model evaluates.
const minTrace = time.Hour

// trace returns the per-minute consumed capacity of [from, to).
func trace(read, write *history, from, to time.Time) capacity.Trace {
	return capacity.Trace{Start: from, Read: read.perMinute(from, to), Write: write.perMinute(from, to)}
}
