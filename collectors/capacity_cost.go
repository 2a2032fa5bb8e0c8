// Cost what-if of the capacity collector: the table's real auto-scaling
// settings (Application Auto Scaling), its provisioning, and the capacity
// model's evaluation of a window of consumed history in both billing modes.
package collectors

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// CostWindows are the windows of the cost what-if, by label value.
var CostWindows = []struct {
	Label string
	D     time.Duration
}{{"7d", 7 * day}, {"30d", 30 * day}}

// scalingPolicy is what Application Auto Scaling says about one dimension.
type scalingPolicy struct {
	min, max  float64
	hasTarget bool
	hasPolicy bool
	target    float64
	in, out   time.Duration
	noScaleIn bool
}

// readScaling returns the scalable targets and target-tracking policies of
// the target's DynamoDB resources.
func readScaling(ctx context.Context, t *awsclient.Target) (map[ScalingResource]scalingPolicy, error) {
	out := map[ScalingResource]scalingPolicy{}
	tp := applicationautoscaling.NewDescribeScalableTargetsPaginator(t.AutoScaling, &applicationautoscaling.DescribeScalableTargetsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
	})
	for tp.HasMorePages() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing scalable targets in %s for the cost what-if: %w", t.Key(), err)
		}
		for _, st := range page.ScalableTargets {
			r, ok := ParseScalingResource(aws.ToString(st.ResourceId), st.ScalableDimension)
			if !ok {
				continue
			}
			p := out[r]
			p.min, p.max, p.hasTarget = float64(aws.ToInt32(st.MinCapacity)), float64(aws.ToInt32(st.MaxCapacity)), true
			out[r] = p
		}
	}
	pp := applicationautoscaling.NewDescribeScalingPoliciesPaginator(t.AutoScaling, &applicationautoscaling.DescribeScalingPoliciesInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
	})
	for pp.HasMorePages() {
		page, err := pp.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing scaling policies in %s for the cost what-if: %w", t.Key(), err)
		}
		for _, sp := range page.ScalingPolicies {
			cfg := sp.TargetTrackingScalingPolicyConfiguration
			if sp.PolicyType != aastypes.PolicyTypeTargetTrackingScaling || cfg == nil {
				continue
			}
			r, ok := ParseScalingResource(aws.ToString(sp.ResourceId), sp.ScalableDimension)
			if !ok || out[r].hasPolicy { // the first policy wins, as in the autoscaling collector
				continue
			}
			p := out[r]
			p.hasPolicy = true
			p.target = aws.ToFloat64(cfg.TargetValue) / 100
			p.in = time.Duration(aws.ToInt32(cfg.ScaleInCooldown)) * time.Second
			p.out = time.Duration(aws.ToInt32(cfg.ScaleOutCooldown)) * time.Second
			p.noScaleIn = aws.ToBool(cfg.DisableScaleIn)
			out[r] = p
		}
	}
	return out, nil
}

// provisioning returns how one dimension of a table or GSI is modelled in
// provisioned mode: its own target-tracking policy when it has one (with the
// configured scale-out delay), else its fixed provisioned capacity when the
// table is provisioned, else the default auto-scaling (zero Provisioning).
func provisioning(p scalingPolicy, havePolicy bool, provisioned bool, fixed int64, delay time.Duration) capacity.Provisioning {
	if havePolicy && p.hasPolicy && p.hasTarget {
		a := capacity.AutoScalingSettings{
			Target: p.target, Min: max(1, p.min), Max: max(1, p.min, p.max),
			ScaleInCooldown: p.in, ScaleOutCooldown: p.out, DisableScaleIn: p.noScaleIn,
			ScaleOutDelay: delay,
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
