package awssim

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	aas "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
)

func TestDescribeScalableTargetsFiltersAndPages(t *testing.T) {
	s, _ := fixture(t, t0)
	c := clientsFor(s, cfg("us-east-1")).aas
	ctx := context.Background()

	var all []types.ScalableTarget
	pages := 0
	p := aas.NewDescribeScalableTargetsPaginator(c, &aas.DescribeScalableTargetsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(3)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, out.ScalableTargets...)
	}
	if pages != 2 || len(all) != 4 {
		t.Fatalf("pages %d, targets %d; want 2 and 4", pages, len(all))
	}

	out, err := c.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{
		ServiceNamespace:  types.ServiceNamespaceDynamodb,
		ResourceIds:       []string{"table/orders/index/by-customer"},
		ScalableDimension: types.ScalableDimensionDynamoDBIndexReadCapacityUnits,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ScalableTargets) != 1 {
		t.Fatalf("filtered targets: %d", len(out.ScalableTargets))
	}
	tg := out.ScalableTargets[0]
	if *tg.MinCapacity != 25 || *tg.MaxCapacity != 200 || *tg.ResourceId != "table/orders/index/by-customer" || !tg.CreationTime.Equal(fixtureTime("2023-03-14T09:40:00Z")) {
		t.Fatalf("target %+v", tg)
	}

	_, err = c.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, ScalableDimension: types.ScalableDimensionDynamoDBTableReadCapacityUnits})
	wantAPIError(t, err, "ValidationException")
	_, err = c.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, NextToken: aws.String("!!")})
	wantAPIError(t, err, "InvalidNextTokenException")

	ecs, err := c.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{ServiceNamespace: types.ServiceNamespaceEcs})
	if err != nil || len(ecs.ScalableTargets) != 0 {
		t.Fatalf("other namespace: %v %v", err, ecs)
	}
}

func TestDescribeScalingPolicies(t *testing.T) {
	s, _ := fixture(t, t0)
	c := clientsFor(s, cfg("us-east-1")).aas
	ctx := context.Background()

	out, err := c.DescribeScalingPolicies(ctx, &aas.DescribeScalingPoliciesInput{
		ServiceNamespace: types.ServiceNamespaceDynamodb, ResourceId: aws.String("table/orders"),
		ScalableDimension: types.ScalableDimensionDynamoDBTableWriteCapacityUnits,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ScalingPolicies) != 1 {
		t.Fatalf("policies: %d", len(out.ScalingPolicies))
	}
	p := out.ScalingPolicies[0]
	cfg := p.TargetTrackingScalingPolicyConfiguration
	if p.PolicyType != types.PolicyTypeTargetTrackingScaling || *cfg.TargetValue != 70 ||
		cfg.PredefinedMetricSpecification.PredefinedMetricType != types.MetricTypeDynamoDBWriteCapacityUtilization ||
		*cfg.ScaleInCooldown != 60 || *cfg.DisableScaleIn {
		t.Fatalf("policy %+v", p)
	}
	if len(p.Alarms) != 2 {
		t.Fatalf("alarms %+v", p.Alarms)
	}

	first, err := c.DescribeScalingPolicies(ctx, &aas.DescribeScalingPoliciesInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.DescribeScalingPolicies(ctx, &aas.DescribeScalingPoliciesInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(3), NextToken: first.NextToken})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ScalingPolicies) != 3 || first.NextToken == nil || len(second.ScalingPolicies) != 1 || second.NextToken != nil {
		t.Fatalf("pages %d/%d", len(first.ScalingPolicies), len(second.ScalingPolicies))
	}
	_, err = c.DescribeScalingPolicies(ctx, &aas.DescribeScalingPoliciesInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(11)})
	wantAPIError(t, err, "ValidationException")
}
