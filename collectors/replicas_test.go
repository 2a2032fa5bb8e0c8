package collectors

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// describeMetrics renders ms as "family{label=value,...}" strings.
func describeMetrics(t *testing.T, ms []prometheus.Metric) []string {
	t.Helper()
	var out []string
	for _, m := range ms {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		name := m.Desc().String()
		name = name[strings.Index(name, `"`)+1:]
		name = name[:strings.Index(name, `"`)]
		var ls []string
		for _, l := range pb.Label {
			if l.GetName() == "account" || l.GetName() == "region" || l.GetName() == "table" {
				continue
			}
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		out = append(out, name+"{"+strings.Join(ls, ",")+"}")
	}
	return out
}

// TestReplicaMetrics: the global-table families of a described table, and
// their stated behaviour on partial answers.
func TestReplicaMetrics(t *testing.T) {
	rep := func(region string, st types.ReplicaStatus) types.ReplicaDescription {
		return types.ReplicaDescription{RegionName: aws.String(region), ReplicaStatus: st}
	}
	for _, c := range []struct {
		name string
		d    types.TableDescription
		want []string
	}{
		{"a table of one region", types.TableDescription{}, nil},
		{"a global table", types.TableDescription{GlobalTableVersion: aws.String("2019.11.21"), MultiRegionConsistency: types.MultiRegionConsistencyEventual,
			Replicas: []types.ReplicaDescription{rep("eu-west-1", types.ReplicaStatusActive), rep("ap-south-1", types.ReplicaStatusCreating)}},
			[]string{"dynamodb_table_global_info{consistency=EVENTUAL,version=2019.11.21}",
				"dynamodb_table_replica_info{replica_region=eu-west-1,status=ACTIVE}",
				"dynamodb_table_replica_info{replica_region=ap-south-1,status=CREATING}"}},
		{"a legacy global table: no replicas listed", types.TableDescription{GlobalTableVersion: aws.String("2017.11.29")},
			[]string{"dynamodb_table_global_info{consistency=,version=2017.11.29}"}},
		{"replicas without a version, a status or a region, and twice", types.TableDescription{
			Replicas: []types.ReplicaDescription{rep("eu-west-1", ""), rep("", types.ReplicaStatusActive), rep("eu-west-1", types.ReplicaStatusActive)}},
			[]string{"dynamodb_table_global_info{consistency=,version=unknown}", "dynamodb_table_replica_info{replica_region=eu-west-1,status=unknown}"}},
	} {
		got := describeMetrics(t, replicaMetrics("a", "us-east-1", "orders", &c.d))
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
}

// TestPlanAsksForReplicationLatencyPerReplica: ReplicationLatency is a
// candidate for each replica region DescribeTable lists, queried only when
// CloudWatch lists it; a table of one region and a table not described yet
// get none.
func TestPlanAsksForReplicationLatencyPerReplica(t *testing.T) {
	tables := []*Table{
		{Name: "orders", Description: &types.TableDescription{Replicas: []types.ReplicaDescription{
			{RegionName: aws.String("eu-west-1")}, {RegionName: aws.String("ap-south-1")}}}},
		{Name: "local", Description: &types.TableDescription{}},
		{Name: "undescribed"},
	}
	listed := map[listKey]struct{}{
		listKeyOf("ReplicationLatency", toDims([]cwDim{{"TableName", "orders"}, {"ReceivingRegion", "eu-west-1"}})): {},
		// A listed dimension set with an Operation too matches nothing.
		listKeyOf("ReplicationLatency", toDims([]cwDim{{"TableName", "orders"}, {"ReceivingRegion", "ap-south-1"}, {"Operation", "PutItem"}})): {},
	}
	p := plan(tables, false, listed, currentMode)
	var queried, zero []string
	for _, k := range p.Queried {
		if specs[k.spec].shape == perReceivingRegion {
			queried = append(queried, k.table+"/"+k.operation)
			dims := k.dimensions()
			if len(dims) != 2 || aws.ToString(dims[1].Name) != "ReceivingRegion" || aws.ToString(dims[1].Value) != k.operation {
				t.Errorf("dimensions %+v", dims)
			}
		}
	}
	for _, k := range p.ProvenZero {
		if specs[k.spec].shape == perReceivingRegion {
			zero = append(zero, k.table+"/"+k.operation)
		}
	}
	if strings.Join(queried, " ") != "orders/eu-west-1" || strings.Join(zero, " ") != "orders/ap-south-1" {
		t.Errorf("queried %v, proven zero %v; want orders/eu-west-1 queried, orders/ap-south-1 proven zero", queried, zero)
	}
	if got := specs[specIndex(t, "ReplicationLatency")].tier; got != SlowTier {
		t.Errorf("ReplicationLatency on the %s tier, want slow", got)
	}
}

func specIndex(t *testing.T, metric string) int {
	t.Helper()
	for i, s := range specs {
		if s.metric == metric {
			return i
		}
	}
	t.Fatalf("no spec reads %s", metric)
	return -1
}
