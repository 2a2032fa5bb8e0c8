package collectors

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// replicaReport is the report of a replica in region with one 7d window.
func replicaReport(t *testing.T, region string, mode capacity.Mode, reads, writes float64, replicas ...string) TableReport {
	t.Helper()
	p, err := capacity.PricesFor(region)
	if err != nil {
		t.Fatal(err)
	}
	res := capacity.WorkloadResult{Hours: 168,
		Read:  capacity.Simulation{Demand: reads, UnitHours: 50 * 168},
		Write: capacity.Simulation{Demand: writes, UnitHours: 20 * 168}}
	e, err := capacity.EvaluateResults(mode, p, capacity.Options{}, []capacity.WorkloadResult{res})
	if err != nil {
		t.Fatal(err)
	}
	return TableReport{Account: "a", Region: region, Table: "orders", Mode: mode, Replicas: replicas,
		Costs: []WindowCost{{Window: "7d", Covered: 168 * time.Hour, Evaluation: e}}}
}

// TestGlobalDecisionSumsTheReplicas: the replicas of a global table share
// one decision, on the costs summed over them; a replica this exporter has
// no report of (a region it does not read, another shard's) leaves the
// decision undone and named; tables of one region get none.
func TestGlobalDecisionSumsTheReplicas(t *testing.T) {
	reports := []TableReport{
		replicaReport(t, "us-east-1", capacity.OnDemand, 4e8, 1e8, "eu-west-1"),
		replicaReport(t, "eu-west-1", capacity.OnDemand, 1e8, 1e8, "us-east-1"),
		{Account: "a", Region: "us-east-1", Table: "local"},
	}
	globalDecisions(reports, capacity.Options{})
	g := reports[0].Global
	if g == nil || reports[1].Global != g || reports[2].Global != nil {
		t.Fatalf("Global: %v, %v, %v; want one decision shared by the two replicas", reports[0].Global, reports[1].Global, reports[2].Global)
	}
	if !slices.Equal(g.Regions, []string{"eu-west-1", "us-east-1"}) || len(g.Missing) != 0 || g.Err != nil || len(g.Costs) != 1 {
		t.Fatalf("decision %+v", g)
	}
	e, e0, e1 := g.Costs[0].Evaluation, reports[0].Costs[0].Evaluation, reports[1].Costs[0].Evaluation
	if math.Abs(e.MonthlySaving-(e0.MonthlySaving+e1.MonthlySaving)) > 1e-9 || math.Abs(e.MonthlyOnDemand-(e0.MonthlyOnDemand+e1.MonthlyOnDemand)) > 1e-9 {
		t.Errorf("global saving %v, on-demand %v; want the sums %v, %v", e.MonthlySaving, e.MonthlyOnDemand, e0.MonthlySaving+e1.MonthlySaving, e0.MonthlyOnDemand+e1.MonthlyOnDemand)
	}

	// A third replica in a region this exporter does not read (or another
	// shard's): no decision, the region named.
	reports = []TableReport{
		replicaReport(t, "us-east-1", capacity.OnDemand, 4e8, 1e8, "eu-west-1", "ap-south-1"),
		replicaReport(t, "eu-west-1", capacity.OnDemand, 1e8, 1e8, "us-east-1", "ap-south-1"),
	}
	globalDecisions(reports, capacity.Options{})
	if g := reports[0].Global; g == nil || !slices.Equal(g.Missing, []string{"ap-south-1"}) || len(g.Costs) != 0 {
		t.Errorf("with a replica missing: %+v, want no costs and ap-south-1 missing", g)
	}

	// Replicas in different modes (a switch in progress): an error, no
	// decision.
	reports = []TableReport{
		replicaReport(t, "us-east-1", capacity.OnDemand, 4e8, 1e8, "eu-west-1"),
		replicaReport(t, "eu-west-1", capacity.Provisioned, 1e8, 1e8, "us-east-1"),
	}
	globalDecisions(reports, capacity.Options{})
	if g := reports[0].Global; g == nil || g.Err == nil || len(g.Costs) != 0 {
		t.Errorf("replicas in different modes: %+v, want an error and no costs", g)
	}
}
