package awssim

import (
	"fmt"
	"slices"
	"time"
)

// Global tables (version 2019.11.21), as the simulated account keeps them.
//
// A global table is a table of the same name in several regions, each a
// replica of the others; Table.Replicas lists, in each region, the other
// regions holding one. The rules the simulator states, with their sources:
//
//   - DescribeTable in a region answers GlobalTableVersion "2019.11.21" and
//     Replicas, one ReplicaDescription per OTHER region (the region asked
//     is not listed): AWS, "DynamoDB global tables versions" (Determining
//     the version: describe-table in us-east-2 answers GlobalTableVersion
//     "2019.11.21" and Replicas [{RegionName us-west-2, ReplicaStatus
//     ACTIVE}]), and the DynamoDB API reference, ReplicaDescription
//     (RegionName, ReplicaStatus, GlobalSecondaryIndexes,
//     ReplicaTableClassSummary). MultiRegionConsistency (EVENTUAL, STRONG)
//     is answered only when the table sets it (TableDescription
//     MultiRegionConsistency; older answers have no such field).
//   - "Switching from one table capacity mode to the other capacity mode in
//     any Region switches the mode for all replicas" (AWS, "Best practices
//     and requirements for managing global tables", Requirements for
//     managing capacity): an UpdateTable changing BillingMode in one region
//     changes every replica's BillingModeSummary, or none (a replica that
//     would refuse it, e.g. its fifth switch to on-demand in 24 hours,
//     refuses the whole update).
//   - Writes applied in one region are replicated writes in every other
//     replica, billed there as replicated write request units (on-demand)
//     or replicated write capacity units (provisioned) ("Best practices and
//     requirements for managing global tables"); the simulation (package
//     sim) counts them in the receiving region's ConsumedWriteCapacityUnits,
//     since they consume its write capacity ("Throughput capacity planning
//     for DynamoDB global tables": replica tables "get a replicated write"
//     of each write, TTL deletes included, and "incur replicated write unit
//     costs").
//   - A TTL deletion is free in the region where the item expired (no
//     write units there: "The delete operation is performed without
//     consuming write units on the source table", same page) and is a
//     replicated write in every other replica: the server counts it in
//     TimeToLiveDeletedItemCount of its own region only (ttl_sweep.go) and
//     package sim charges the replicas.
//   - ReplicationLatency is published in the region a write was made, per
//     (TableName, ReceivingRegion), in milliseconds, for every source and
//     destination pair (AWS, "Monitoring global tables"; DynamoDB Metrics
//     and dimensions): package sim publishes it.

// GlobalTableVersion2019 is the version of global tables the simulator
// answers for a table with replicas.
const GlobalTableVersion2019 = "2019.11.21"

// Replica is another region holding a replica of a table.
type Replica struct {
	RegionName string
	// Status is the ReplicaStatus: ACTIVE (default), CREATING, UPDATING,
	// DELETING, REGION_DISABLED, ...
	Status string
}

// Wire shape of a ReplicaDescription.
type (
	ddbReplicaGSI struct {
		IndexName string
	}
	ddbReplicaDescription struct {
		RegionName               string
		ReplicaStatus            string
		GlobalSecondaryIndexes   []ddbReplicaGSI       `json:",omitempty"`
		ReplicaTableClassSummary *ddbTableClassSummary `json:",omitempty"`
	}
)

// validReplicas checks t's replica list (PutTable).
func validReplicas(region string, t *Table) error {
	seen := map[string]bool{region: true}
	for i := range t.Replicas {
		r := &t.Replicas[i]
		if !regionRE.MatchString(r.RegionName) || seen[r.RegionName] {
			return fmt.Errorf("awssim: put table %s: invalid or duplicate replica region %q", t.Name, r.RegionName)
		}
		seen[r.RegionName] = true
		if r.Status == "" {
			r.Status = StatusActive
		}
	}
	if len(t.Replicas) > 0 && t.GlobalTableVersion == "" {
		t.GlobalTableVersion = GlobalTableVersion2019
	}
	return nil
}

// replicaDescs renders t's replicas as DescribeTable in region answers
// them: each replica's GSIs are the table's (a global table's replicas have
// the same indexes) and its class is the class of the replica's own table
// where the account holds it. s.mu must be held.
func (s *Server) replicaDescs(t *Table) []ddbReplicaDescription {
	var out []ddbReplicaDescription
	for _, r := range t.Replicas {
		d := ddbReplicaDescription{RegionName: r.RegionName, ReplicaStatus: r.Status}
		for _, g := range t.GSIs {
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, ddbReplicaGSI{IndexName: g.IndexName})
		}
		class := t.TableClass
		if rs := s.regions[r.RegionName]; rs != nil {
			if other := rs.tables[t.Name]; other != nil {
				class = other.TableClass
			}
		}
		d.ReplicaTableClassSummary = &ddbTableClassSummary{TableClass: class}
		out = append(out, d)
	}
	return out
}

// pendingUpdate is a table of the account and the copy an update makes of
// it.
type pendingUpdate struct {
	region string
	cur    *Table
	next   Table
}

// replicaUpdates are the updates of the other replicas of cur (in region)
// that in implies: a billing-mode switch is applied to every replica the
// account holds (with the same capacities when switching to provisioned).
// Nothing when in does not switch the mode. s.mu must be held.
func (s *Server) replicaUpdates(region string, cur *Table, in ddbUpdateTableInput, now time.Time, checkLimits bool) ([]pendingUpdate, error) {
	if in.BillingMode == "" || in.BillingMode == cur.BillingMode || len(cur.Replicas) == 0 {
		return nil, nil
	}
	ri := ddbUpdateTableInput{TableName: in.TableName, BillingMode: in.BillingMode, ProvisionedThroughput: in.ProvisionedThroughput,
		GlobalSecondaryIndexUpdates: in.GlobalSecondaryIndexUpdates}
	var out []pendingUpdate
	for _, r := range slices.Clone(cur.Replicas) {
		rs := s.regions[r.RegionName]
		if rs == nil || rs.tables[cur.Name] == nil {
			continue // a replica in a region the account does not hold
		}
		other := rs.tables[cur.Name]
		if other.BillingMode == in.BillingMode {
			continue
		}
		next := cloneTable(*other)
		if err := applyTableUpdate(&next, ri, now); err != nil {
			return nil, err
		}
		if checkLimits {
			if err := s.checkLimits(r.RegionName, &next); err != nil {
				return nil, err
			}
		}
		out = append(out, pendingUpdate{region: r.RegionName, cur: other, next: next})
	}
	return out, nil
}
