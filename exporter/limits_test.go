package exporter_test

import (
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestQuotaFamilies reads DescribeLimits through the real SDK from the
// simulator: the four quotas per account and region, read once an hour, and
// the finding of an auto-scaling maximum above the table-level quota.
func TestQuotaFamilies(t *testing.T) {
	const region = "us-east-1"
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		sim.SetLimits(region, awssim.Limits{AccountMaxReadCapacityUnits: 100000, TableMaxWriteCapacityUnits: 10000})
		mustPut(sim, region, provisioned("orders", 100, 20))
		mustPut(sim, region, provisioned("sessions", 100, 20))
		for _, st := range []awssim.ScalableTarget{
			{ResourceID: "table/orders", ScalableDimension: awssim.DimTableRead, MinCapacity: 10, MaxCapacity: 40000},
			{ResourceID: "table/orders", ScalableDimension: awssim.DimTableWrite, MinCapacity: 5, MaxCapacity: 15000},
			{ResourceID: "table/sessions", ScalableDimension: awssim.DimTableWrite, MinCapacity: 5, MaxCapacity: 100},
		} {
			if err := sim.PutScalableTarget(region, st); err != nil {
				t.Fatal(err)
			}
		}
	})
	h.cycle()
	h.cycle() // the auto-scaling collector may have run before the first DescribeLimits
	body := h.scrape()
	for _, c := range []struct {
		family, dim string
		want        float64
	}{
		{catalogue.QuotaAccountMaxCapacityUnits, "read", 100000},
		{catalogue.QuotaAccountMaxCapacityUnits, "write", 80000},
		{catalogue.QuotaTableMaxCapacityUnits, "read", 40000},
		{catalogue.QuotaTableMaxCapacityUnits, "write", 10000},
	} {
		if got := mustValue(t, body, c.family, map[string]string{"region": region, "dimension": c.dim}); got != c.want {
			t.Errorf("%s{dimension=%s} = %v, want %v", c.family, c.dim, got, c.want)
		}
	}
	// orders' write maximum (15,000) is above the 10,000 table quota; its
	// read maximum is exactly at it, and sessions is far below: absent.
	if got := mustValue(t, body, catalogue.AutoScalingMaxOverTableQuota, map[string]string{"table": "orders", "dimension": "write"}); !near(got, 1.5) {
		t.Errorf("orders write over quota = %v, want 1.5", got)
	}
	for _, c := range []struct{ table, dim string }{{"orders", "read"}, {"sessions", "write"}} {
		if _, ok := value(t, body, catalogue.AutoScalingMaxOverTableQuota, map[string]string{"table": c.table, "dimension": c.dim}); ok {
			t.Errorf("%s{table=%s,dimension=%s} present within the quota", catalogue.AutoScalingMaxOverTableQuota, c.table, c.dim)
		}
	}
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeLimits"); n != 1 {
		t.Fatalf("DescribeLimits calls = %d, want 1 (once per account and region)", n)
	}
	h.clk.Advance(30 * time.Minute)
	h.cycle()
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeLimits"); n != 1 {
		t.Errorf("DescribeLimits calls = %d after 30 minutes, want still 1", n)
	}
	h.clk.Advance(30 * time.Minute)
	h.cycle()
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeLimits"); n != 2 {
		t.Errorf("DescribeLimits calls = %d after an hour, want 2", n)
	}
}

// TestMissingLimitsPermissionIsCountedNotFatal: dynamodb:DescribeLimits
// denied leaves the quota families and the over-quota finding absent (never
// a guessed default quota), counts the error, keeps the tables monitored,
// and is not asked again within the hour.
func TestMissingLimitsPermissionIsCountedNotFatal(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
		if err := sim.PutScalableTarget("us-east-1", awssim.ScalableTarget{ResourceID: "table/orders", ScalableDimension: awssim.DimTableRead, MinCapacity: 5, MaxCapacity: 90000}); err != nil {
			t.Fatal(err)
		}
		sim.Deny("dynamodb:DescribeLimits")
	})
	h.cycle()
	h.cycle()
	body := h.scrape()
	if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"table": "orders"}); !ok {
		t.Error("the tables must stay monitored without DescribeLimits")
	}
	for _, f := range []string{catalogue.QuotaAccountMaxCapacityUnits, catalogue.QuotaTableMaxCapacityUnits, catalogue.AutoScalingMaxOverTableQuota} {
		if _, ok := value(t, body, f, nil); ok {
			t.Errorf("%s emitted without a DescribeLimits answer", f)
		}
	}
	if got := mustValue(t, body, catalogue.ExporterAWSRequestErrorsTotal, map[string]string{"operation": "DescribeLimits", "error_code": "AccessDeniedException"}); got != 1 {
		t.Errorf("AccessDenied count = %v, want 1", got)
	}
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeLimits"); n != 1 {
		t.Errorf("DescribeLimits calls = %d, want 1: a denied call waits an hour", n)
	}
}
