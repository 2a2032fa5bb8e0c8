// Auto-scaling settings: Application Auto Scaling DescribeScalableTargets,
// DescribeScalingPolicies and DescribeScheduledActions for the DynamoDB
// service namespace, the targets read concurrently.
package collectors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// AutoScaling emits the auto-scaling bounds and target-tracking settings of
// every monitored table and index.
type AutoScaling struct {
	targets   []*awsclient.Target
	inventory *Inventory
	snap      targetSnapshot
}

// AutoScalingSettings tune the auto-scaling collector. It has none yet:
// the type keeps its constructor in the shape of the others.
type AutoScalingSettings struct{}

// NewAutoScaling returns the auto-scaling collector.
func NewAutoScaling(deps Deps, _ AutoScalingSettings) *AutoScaling {
	return &AutoScaling{targets: deps.Targets, inventory: deps.Inventory}
}

// Name implements Collector.
func (c *AutoScaling) Name() string { return "autoscaling" }

// Metrics implements Collector.
func (c *AutoScaling) Metrics() []prometheus.Metric { return c.snap.Metrics() }

// ScalingResource names the table, index and dimension of an Application
// Auto Scaling resource of the dynamodb namespace.
type ScalingResource struct {
	Table, Index, Dimension string
}

// ParseScalingResource reads a resource ID such as "table/orders" or
// "table/orders/index/by-customer" and a scalable dimension such as
// "dynamodb:index:ReadCapacityUnits".
func ParseScalingResource(resourceID string, dim aastypes.ScalableDimension) (ScalingResource, bool) {
	parts := strings.Split(resourceID, "/")
	var r ScalingResource
	switch {
	case len(parts) == 2 && parts[0] == "table":
		r.Table = parts[1]
	case len(parts) == 4 && parts[0] == "table" && parts[2] == "index":
		r.Table, r.Index = parts[1], parts[3]
	default:
		return r, false
	}
	switch {
	case strings.HasSuffix(string(dim), ":ReadCapacityUnits"):
		r.Dimension = "read"
	case strings.HasSuffix(string(dim), ":WriteCapacityUnits"):
		r.Dimension = "write"
	default:
		return r, false
	}
	return r, true
}

// Run implements Collector. A target that fails keeps its previous metrics;
// one whose scheduled actions alone could not be read publishes its targets
// and policies without dynamodb_autoscaling_scheduled_actions, and the
// error is counted. Targets are read concurrently, and each one's figures
// are published as soon as it is done: a region that hangs delays no other.
func (c *AutoScaling) Run(ctx context.Context, _ time.Time) error {
	return eachTarget(c.targets, maxTargetsInFlight, &c.snap, func(_ int, t *awsclient.Target) ([]prometheus.Metric, error) {
		ms, err := c.collectTarget(ctx, t)
		var partial *scheduledError
		if err != nil && !errors.As(err, &partial) {
			ms = c.keepMonitored(t, c.snap.previous(t))
		}
		return ms, err
	})
}

// monitored returns the names of the target's monitored tables.
func (c *AutoScaling) monitored(t *awsclient.Target) map[string]bool {
	monitored := map[string]bool{}
	for _, tb := range c.inventory.Tables(t.Key()) {
		monitored[tb.Name] = true
	}
	return monitored
}

// keepMonitored drops, from stale metrics, the tables that are no longer monitored.
func (c *AutoScaling) keepMonitored(t *awsclient.Target, ms []prometheus.Metric) []prometheus.Metric {
	monitored := c.monitored(t)
	var out []prometheus.Metric
	for _, m := range ms {
		if monitored[tableLabel(m)] {
			out = append(out, m)
		}
	}
	return out
}

func (c *AutoScaling) collectTarget(ctx context.Context, t *awsclient.Target) ([]prometheus.Metric, error) {
	monitored := c.monitored(t)
	if len(monitored) == 0 {
		return nil, nil
	}
	scaling, schedErr, err := readScaling(ctx, t)
	if err != nil {
		return nil, err
	}
	resources := slices.SortedFunc(maps.Keys(scaling), func(a, b ScalingResource) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Index, b.Index), cmp.Compare(a.Dimension, b.Dimension))
	})
	var ms []prometheus.Metric
	limits, limitsKnown := c.inventory.Limits(t.Key())
	for _, r := range resources {
		if !monitored[r.Table] {
			continue
		}
		p := scaling[r]
		lv := []string{t.Account, t.Region, r.Table, r.Index, r.Dimension}
		if p.hasTarget {
			ms = append(ms,
				catalogue.MustMetric(catalogue.AutoScalingMinCapacityUnits, p.min, lv...),
				catalogue.MustMetric(catalogue.AutoScalingMaxCapacityUnits, p.max, lv...),
			)
			// The table-level quota applies to the table and to each
			// GSI on its own ("Quotas in Amazon DynamoDB"): compare
			// each scalable target with it.
			if q := limits.tableMax(r.Dimension); limitsKnown && q > 0 && p.max > q {
				ms = append(ms, catalogue.MustMetric(catalogue.AutoScalingMaxOverTableQuota, p.max/q, lv...))
			}
		}
		if p.hasPolicy {
			disabled := 0.0
			if p.noScaleIn {
				disabled = 1
			}
			ms = append(ms,
				catalogue.MustMetric(catalogue.AutoScalingTargetUtilization, p.target, lv...),
				catalogue.MustMetric(catalogue.AutoScalingScaleInCooldown, p.in.Seconds(), lv...),
				catalogue.MustMetric(catalogue.AutoScalingScaleOutCooldown, p.out.Seconds(), lv...),
				catalogue.MustMetric(catalogue.AutoScalingScaleInDisabled, disabled, lv...),
			)
		}
		if n := len(p.scheduled); n > 0 {
			ms = append(ms, catalogue.MustMetric(catalogue.AutoScalingScheduledActions, float64(n), lv...))
		}
	}
	return ms, schedErr
}

// scalingPolicy is what Application Auto Scaling says about one dimension.
type scalingPolicy struct {
	min, max  float64
	hasTarget bool
	hasPolicy bool
	target    float64
	in, out   time.Duration
	noScaleIn bool
	// scheduled are the scalable target's scheduled actions, in the order
	// Application Auto Scaling lists them.
	scheduled []capacity.ScheduledAction
}

// scheduledError is a failure of DescribeScheduledActions alone: the
// scalable targets and policies read with it stand, the scheduled actions
// are unknown.
type scheduledError struct{ err error }

func (e *scheduledError) Error() string { return e.err.Error() }
func (e *scheduledError) Unwrap() error { return e.err }

// readScaling returns the scalable targets, target-tracking policies and
// scheduled actions of the target's DynamoDB resources. It serves the
// autoscaling collector and the capacity collector's cost what-if. err is
// a failure to read the targets or policies (nothing is returned); schedErr
// (a *scheduledError) a failure of DescribeScheduledActions alone: the
// targets and policies are returned, without scheduled actions.
func readScaling(ctx context.Context, t *awsclient.Target) (scaling map[ScalingResource]scalingPolicy, schedErr, err error) {
	out := map[ScalingResource]scalingPolicy{}
	tp := applicationautoscaling.NewDescribeScalableTargetsPaginator(t.AutoScaling, &applicationautoscaling.DescribeScalableTargetsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
	})
	for tp.HasMorePages() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("describing scalable targets in %s: %w", t.Key(), err)
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
			return nil, nil, fmt.Errorf("describing scaling policies in %s: %w", t.Key(), err)
		}
		for _, sp := range page.ScalingPolicies {
			cfg := sp.TargetTrackingScalingPolicyConfiguration
			if sp.PolicyType != aastypes.PolicyTypeTargetTrackingScaling || cfg == nil {
				continue
			}
			r, ok := ParseScalingResource(aws.ToString(sp.ResourceId), sp.ScalableDimension)
			if !ok || out[r].hasPolicy { // AWS allows several policies on one dimension; the first wins
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
	actions, err := readScheduled(ctx, t)
	if err != nil {
		return out, &scheduledError{fmt.Errorf("describing scheduled actions in %s: %w", t.Key(), err)}, nil
	}
	for r, as := range actions {
		p := out[r]
		p.scheduled = as
		out[r] = p
	}
	return out, nil, nil
}

// readScheduled returns the scheduled actions of the target's DynamoDB
// scalable targets by resource and dimension, in the order Application
// Auto Scaling lists them. A bound the action leaves unset is 0.
func readScheduled(ctx context.Context, t *awsclient.Target) (map[ScalingResource][]capacity.ScheduledAction, error) {
	out := map[ScalingResource][]capacity.ScheduledAction{}
	sp := applicationautoscaling.NewDescribeScheduledActionsPaginator(t.AutoScaling, &applicationautoscaling.DescribeScheduledActionsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
	})
	for sp.HasMorePages() {
		page, err := sp.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range page.ScheduledActions {
			r, ok := ParseScalingResource(aws.ToString(a.ResourceId), a.ScalableDimension)
			if !ok {
				continue
			}
			sa := capacity.ScheduledAction{
				Name: aws.ToString(a.ScheduledActionName), Schedule: aws.ToString(a.Schedule), Timezone: aws.ToString(a.Timezone),
				Start: aws.ToTime(a.StartTime), End: aws.ToTime(a.EndTime),
			}
			if ta := a.ScalableTargetAction; ta != nil {
				sa.Min, sa.Max = float64(aws.ToInt32(ta.MinCapacity)), float64(aws.ToInt32(ta.MaxCapacity))
			}
			out[r] = append(out[r], sa)
		}
	}
	return out, nil
}
