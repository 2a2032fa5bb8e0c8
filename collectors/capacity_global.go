package collectors

import (
	"fmt"
	"slices"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// Global tables: one capacity decision for the whole global table.
//
// "Switching from one table capacity mode to the other capacity mode in any
// Region switches the mode for all replicas" (AWS, "Best practices and
// requirements for managing global tables"): a recommendation to switch one
// replica is not an action anyone can take. Each replica's cost what-if is
// computed where its region is read, from its own consumption (its own
// reads and every write, its own and those replicated to it, which
// CloudWatch counts in its ConsumedWriteCapacityUnits and AWS bills as
// replicated write units priced like single-Region ones); the global
// table's costs and saving are the sums over the replicas
// (capacity.CombineEvaluations) and its recommendation is made once on
// them.
//
// Sharding and several exporters: a table's shard is chosen by account,
// region and table name (config.ShardOf), so the replicas of a global
// table may be polled by different shards, or by exporters of different
// regions. The per-replica figures do not depend on who polls them, so the
// global figures are exact as sums across every exporter:
//
//	sum by (account, table, window) (
//	  dynamodb_capacity_monthly_provisioned_saving_dollars
//	  and on (account, region, table) dynamodb_table_global_info)
//
// An exporter (its capacity report and landing page) shows the global
// decision only when it holds a cost window of every replica; otherwise it
// names the replicas it lacks and decides nothing (never a partial sum as
// the global table's saving).

// GlobalDecision is the capacity decision of a global table as one
// exporter sees it.
type GlobalDecision struct {
	// Account and Table name the global table (its replicas share the
	// table name).
	Account, Table string
	// Regions are the regions holding a replica, sorted: the regions read
	// and the replicas their DescribeTable lists.
	Regions []string
	// Missing are the regions of replicas without a report here (a region
	// the exporter does not read, another shard's, or a replica without a
	// cost window yet): with any, Costs is empty.
	Missing []string
	// Costs holds, per window every replica has, the combined evaluation:
	// costs and saving summed over the replicas, one recommendation for
	// all.
	Costs []WindowCost
	// Err says why the replicas could not be combined (different billing
	// modes: a switch in progress), or nil.
	Err error
}

// globalDecisions sets Global on the reports of the replicas of each global
// table: one GlobalDecision per account and table name, shared.
func globalDecisions(reports []TableReport, o capacity.Options) {
	type key struct{ account, table string }
	groups := map[key][]int{}
	for i := range reports {
		if len(reports[i].Replicas) > 0 {
			k := key{reports[i].Account, reports[i].Table}
			groups[k] = append(groups[k], i)
		}
	}
	for k, idx := range groups {
		g := &GlobalDecision{Account: k.account, Table: k.table}
		have := map[string]*TableReport{}
		for _, i := range idx {
			r := &reports[i]
			have[r.Region] = r
			g.Regions = append(g.Regions, r.Region)
			g.Regions = append(g.Regions, r.Replicas...)
		}
		slices.Sort(g.Regions)
		g.Regions = slices.Compact(g.Regions)
		for _, rg := range g.Regions {
			if r := have[rg]; r == nil || !priced(r.Costs) {
				g.Missing = append(g.Missing, rg)
			}
		}
		if len(g.Missing) == 0 {
			g.Costs, g.Err = combineWindows(g.Regions, have, o)
		}
		for _, i := range idx {
			reports[i].Global = g
		}
	}
}

// combineWindows combines, for each window of the first replica that every
// replica has, the replicas' evaluations.
func combineWindows(regions []string, have map[string]*TableReport, o capacity.Options) ([]WindowCost, error) {
	var out []WindowCost
	for _, w := range have[regions[0]].Costs {
		evals := make([]capacity.Evaluation, 0, len(regions))
		covered := w.Covered
		for _, rg := range regions {
			i := slices.IndexFunc(have[rg].Costs, func(c WindowCost) bool { return c.Window == w.Window && !c.Unpriced })
			if i < 0 {
				break
			}
			c := have[rg].Costs[i]
			evals = append(evals, c.Evaluation)
			covered = min(covered, c.Covered)
		}
		if len(evals) < len(regions) {
			continue
		}
		e, err := capacity.CombineEvaluations(o, evals...)
		if err != nil {
			return nil, fmt.Errorf("global table: %w", err)
		}
		out = append(out, WindowCost{Window: w.Window, Covered: covered, Evaluation: e})
	}
	return out, nil
}

// priced reports whether some window of costs has cost figures (a region
// without prices has the simulation's windows only: WindowCost.Unpriced).
func priced(costs []WindowCost) bool {
	return slices.ContainsFunc(costs, func(c WindowCost) bool { return !c.Unpriced })
}
