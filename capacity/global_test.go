package capacity

import (
	"math"
	"testing"
)

// TestGlobalTableKnownAnswer pins the arithmetic of one decision for a
// global table against AWS's pricing rules ("Global tables billing";
// "Best practices and requirements for managing global tables"):
//
//   - every write to a replica table, made there or replicated to it, is a
//     replicated write unit (rWRU on demand, rWCU provisioned), priced the
//     same as a single-Region write unit: each replica's consumed writes
//     are priced at its region's write price;
//   - a TTL delete is free in the region where the item expires and a
//     replicated write in every other replica;
//   - switching the capacity mode of one replica switches all: the
//     decision is made once, on the costs summed over the replicas.
//
// us-east-1 (the writing region): 100 M read units, 20 M write units; 2 M
// items expire there (free). eu-west-1: 30 M read units, 20 M replicated
// writes + 2 M replicated TTL deletes = 22 M write units. Over 730 hours:
//
//	on-demand   us-east-1 100×0.125 + 20×0.625            = 25.0000
//	            eu-west-1  30×0.1415 + 22×0.7068          = 19.7946
//	provisioned us-east-1 80×730×0.00013 + 15×730×0.00065 = 14.7095
//	            eu-west-1 25×730×0.000147 + 15×730×0.000735 = 10.7310
//
// Each replica alone would save 10.2905 and 9.0636 a month by switching to
// provisioned, both below a 15 USD minimum: per replica, "keep". The global
// table saves 19.3541 a month, above it: switch every replica.
func TestGlobalTableKnownAnswer(t *testing.T) {
	o := Options{MinMonthlySaving: 15, MinRequestRate: 10}
	replica := func(region string, reads, writes, rcu, wcu float64) Evaluation {
		p, err := PricesFor(region)
		if err != nil {
			t.Fatal(err)
		}
		res := WorkloadResult{Hours: HoursPerMonth,
			Read:  Simulation{Demand: reads, UnitHours: rcu * HoursPerMonth},
			Write: Simulation{Demand: writes, UnitHours: wcu * HoursPerMonth}}
		e, err := EvaluateResults(OnDemand, p, o, []WorkloadResult{res})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	const expired = 2e6 // TTL deletes in us-east-1: free there, replicated writes in eu-west-1
	east := replica("us-east-1", 100e6, 20e6, 80, 15)
	west := replica("eu-west-1", 30e6, 20e6+expired, 25, 15)
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-6 }
	if !near(east.MonthlyOnDemand, 25) || !near(west.MonthlyOnDemand, 19.7946) ||
		!near(east.MonthlyProvisioned, 14.7095) || !near(west.MonthlyProvisioned, 10.731) {
		t.Fatalf("replica costs: us-east-1 %v/%v, eu-west-1 %v/%v", east.MonthlyOnDemand, east.MonthlyProvisioned, west.MonthlyOnDemand, west.MonthlyProvisioned)
	}
	if east.Recommendation.Action != Keep || west.Recommendation.Action != Keep {
		t.Fatalf("per replica: %s / %s, want keep (each saving below the minimum)", east.Recommendation.Action, west.Recommendation.Action)
	}
	g, err := CombineEvaluations(o, east, west)
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.MonthlyOnDemand, 44.7946) || !near(g.MonthlyProvisioned, 25.4405) || !near(g.MonthlySaving, 19.3541) {
		t.Errorf("global table: on-demand %v, provisioned %v, saving %v; want 44.7946, 25.4405, 19.3541", g.MonthlyOnDemand, g.MonthlyProvisioned, g.MonthlySaving)
	}
	if !near(g.MonthlySaving, east.MonthlySaving+west.MonthlySaving) {
		t.Errorf("the global saving %v is not the sum of the replicas' %v + %v", g.MonthlySaving, east.MonthlySaving, west.MonthlySaving)
	}
	if g.Recommendation.Action != SwitchToProvisioned {
		t.Errorf("global recommendation %s (%s), want %s", g.Recommendation.Action, g.Recommendation.Reason, SwitchToProvisioned)
	}

	// Replicas in different modes (a switch in progress) get no decision.
	prov := east
	prov.Current = Provisioned
	if _, err := CombineEvaluations(o, prov, west); err == nil {
		t.Error("replicas in different billing modes were combined")
	}
	if _, err := CombineEvaluations(o); err == nil {
		t.Error("no replicas were combined")
	}
}
