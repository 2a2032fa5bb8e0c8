package exporter_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// scheduledAccount is a provisioned table with write auto-scaling and two
// scheduled actions on it, and one without any.
func scheduledAccount(deny bool) func(sim *awssim.Server) {
	return func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 50))
		mustPut(sim, "us-east-1", provisioned("sessions", 10, 5))
		for _, tb := range []string{"orders", "sessions"} {
			id := "table/" + tb
			if err := sim.PutScalableTarget("us-east-1", awssim.ScalableTarget{ResourceID: id, ScalableDimension: awssim.DimTableWrite, MinCapacity: 5, MaxCapacity: 500}); err != nil {
				panic(err)
			}
			if err := sim.PutScalingPolicy("us-east-1", awssim.ScalingPolicy{PolicyName: "w", ResourceID: id, ScalableDimension: awssim.DimTableWrite,
				TargetValue: 70, PredefinedMetricType: awssim.MetricWriteUtilization}); err != nil {
				panic(err)
			}
		}
		for _, a := range []awssim.ScheduledAction{
			{ScheduledActionName: "evening-up", Schedule: "cron(15 19 * * ? *)", MinCapacity: aws.Int32(300)},
			{ScheduledActionName: "evening-down", Schedule: "cron(45 20 * * ? *)", MinCapacity: aws.Int32(5)},
		} {
			a.ResourceID, a.ScalableDimension = "table/orders", awssim.DimTableWrite
			if err := sim.PutScheduledAction("us-east-1", a); err != nil {
				panic(err)
			}
		}
		if deny {
			sim.Deny("application-autoscaling:DescribeScheduledActions")
		}
	}
}

// TestScheduledActionsFamily: dynamodb_autoscaling_scheduled_actions counts
// each dimension's scheduled actions, absent where there are none.
func TestScheduledActionsFamily(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", scheduledAccount(false))
	h.cycle()
	body := h.scrape()
	if got := mustValue(t, body, catalogue.AutoScalingScheduledActions, map[string]string{"table": "orders", "index": "", "dimension": "write"}); got != 2 {
		t.Errorf("orders write: %v scheduled actions, want 2", got)
	}
	for _, l := range []map[string]string{{"table": "orders", "dimension": "read"}, {"table": "sessions", "dimension": "write"}} {
		if _, ok := value(t, body, catalogue.AutoScalingScheduledActions, l); ok {
			t.Errorf("%s present for %v, which has no scheduled action", catalogue.AutoScalingScheduledActions, l)
		}
	}
}

// TestScheduledActionsDeniedKeepsThePolicies: with
// application-autoscaling:DescribeScheduledActions alone denied, the
// targets and policies are still published, the scheduled-actions family is
// absent (unknown, not zero) and the refusal is counted.
func TestScheduledActionsDeniedKeepsThePolicies(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", scheduledAccount(true))
	h.cycle()
	body := h.scrape()
	if got := mustValue(t, body, catalogue.AutoScalingTargetUtilization, map[string]string{"table": "orders", "dimension": "write"}); got != 0.7 {
		t.Errorf("target utilization %v, want 0.7: the policies must not be lost", got)
	}
	if got := mustValue(t, body, catalogue.AutoScalingMaxCapacityUnits, map[string]string{"table": "orders", "dimension": "write"}); got != 500 {
		t.Errorf("max capacity %v, want 500", got)
	}
	if _, ok := value(t, body, catalogue.AutoScalingScheduledActions, map[string]string{"table": "orders"}); ok {
		t.Errorf("%s present while DescribeScheduledActions is denied", catalogue.AutoScalingScheduledActions)
	}
	if got := mustValue(t, body, catalogue.ExporterAWSRequestErrorsTotal, map[string]string{"operation": "DescribeScheduledActions", "error_code": "AccessDeniedException"}); got < 1 {
		t.Errorf("AccessDenied count = %v, want at least 1", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorErrorsTotal, map[string]string{"collector": "autoscaling"}); got != 1 {
		t.Errorf("autoscaling errors = %v, want 1", got)
	}
}
