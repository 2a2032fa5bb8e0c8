package collectors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestCapacityReadsScheduledActions: the capacity collector reads the
// scalable targets' scheduled actions through DescribeScheduledActions into
// the what-if's settings (each on its own dimension, the bounds it leaves
// unset 0); with the call denied, the policies still count, the actions are
// the last known ones and the refusal is returned to be counted.
func TestCapacityReadsScheduledActions(t *testing.T) {
	a := newDiagnosisAccount(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), 40*day)
	for _, sa := range []awssim.ScheduledAction{
		{ScheduledActionName: "evening-up", ResourceID: "table/prov", ScalableDimension: awssim.DimTableWrite, Schedule: "cron(15 19 * * ? *)", MinCapacity: aws.Int32(15)},
		{ScheduledActionName: "evening-down", ResourceID: "table/prov", ScalableDimension: awssim.DimTableWrite, Schedule: "cron(45 20 * * ? *)", Timezone: "Europe/Paris", MinCapacity: aws.Int32(1), MaxCapacity: aws.Int32(20)},
	} {
		if err := a.sim.PutScheduledAction(a.region, sa); err != nil {
			t.Fatal(err)
		}
	}
	a.run(t, a.now)
	prov := func() *Table {
		for _, x := range a.c.tables(a.target) {
			if x.Name == "prov" {
				return x
			}
		}
		t.Fatal("no table prov")
		return nil
	}
	want := []capacity.ScheduledAction{
		{Name: "evening-down", Schedule: "cron(45 20 * * ? *)", Timezone: "Europe/Paris", Min: 1, Max: 20},
		{Name: "evening-up", Schedule: "cron(15 19 * * ? *)", Min: 15},
	}
	check := func(when string) {
		t.Helper()
		s := settingsFor(prov(), "", a.c.state[a.target.Key()].scaling, 5*time.Minute)
		if s.Read.AutoScaling == nil || s.Write.AutoScaling == nil || s.Read.AutoScaling.Target != 0.9 || s.Write.AutoScaling.Max != 20 {
			t.Fatalf("%s: the policies are lost: %+v %+v", when, s.Read.AutoScaling, s.Write.AutoScaling)
		}
		if len(s.Read.AutoScaling.Scheduled) != 0 {
			t.Errorf("%s: read has scheduled actions %+v, want none", when, s.Read.AutoScaling.Scheduled)
		}
		w := *s.Write.AutoScaling
		if !w.Equal(capacity.AutoScalingSettings{Target: w.Target, Min: w.Min, Max: w.Max, ScaleInCooldown: w.ScaleInCooldown,
			ScaleOutCooldown: w.ScaleOutCooldown, DisableScaleIn: w.DisableScaleIn, ScaleOutDelay: w.ScaleOutDelay, Scheduled: want}) {
			t.Errorf("%s: write scheduled actions %+v, want %+v", when, w.Scheduled, want)
		}
	}
	check("read")

	a.sim.Deny("application-autoscaling:DescribeScheduledActions")
	err := a.c.Run(context.Background(), a.now.Add(time.Minute))
	if err == nil || !strings.Contains(err.Error(), "describing scheduled actions") {
		t.Fatalf("denied DescribeScheduledActions: Run = %v, want the refusal returned to be counted", err)
	}
	check("denied after a read (the last known actions)")
}

// TestCapacityScheduledActionsDeniedFromTheStart: never read, the actions
// are none in the settings while the policies are used.
func TestCapacityScheduledActionsDeniedFromTheStart(t *testing.T) {
	a := newDiagnosisAccount(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), 40*day)
	a.sim.Deny("application-autoscaling:DescribeScheduledActions")
	if err := a.c.Run(context.Background(), a.now); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("Run = %v, want the AccessDenied returned", err)
	}
	var tb *Table
	for _, x := range a.c.tables(a.target) {
		if x.Name == "prov" {
			tb = x
		}
	}
	s := settingsFor(tb, "", a.c.state[a.target.Key()].scaling, 5*time.Minute)
	if s.Write.AutoScaling == nil || s.Write.AutoScaling.Max != 20 || s.Write.AutoScaling.Scheduled != nil {
		t.Fatalf("settings %+v, want the policy without scheduled actions", s.Write.AutoScaling)
	}
}
