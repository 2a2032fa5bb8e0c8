package exporter_test

import (
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestGSIBackfillFamilies reads the index-build metrics through the real
// SDK from the simulator: requested only for an index DescribeTable reports
// CREATING, gone once it is ACTIVE; an index whose build ended an hour ago
// (its OnlineIndex metrics still listed by CloudWatch) costs no query.
func TestGSIBackfillFamilies(t *testing.T) {
	const region = "us-east-1"
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}, capacity: {enabled: false}}\n", func(sim *awssim.Server) {
		// by-customer: 100 WCU, 60 units/s of the table's writes, a build
		// asking 120: 40 served and 80 throttled a second; 240,000 units
		// take 100 minutes from start-30m.
		orders := provisioned("orders", 100, 100, "by-customer")
		orders.GSIs[0].Throughput.WriteCapacityUnits = 100
		orders.GSIs[0].Backfill = &awssim.Backfill{Start: start.Add(-30 * time.Minute), Units: 240000, Pace: 120, Writes: 60}
		mustPut(sim, region, orders)
		// by-x was built from start-2h to start-1h30m: ACTIVE now.
		old := provisioned("old", 100, 100, "by-x")
		old.GSIs[0].Backfill = &awssim.Backfill{Start: start.Add(-2 * time.Hour), Units: 60000, Pace: 20, Writes: 10}
		old.GSIs[0].Throughput.WriteCapacityUnits = 100
		mustPut(sim, region, old)
	})
	h.cycle()
	h.cycle() // the CloudWatch collector may have run before the first DescribeTable
	body := h.scrape()
	idx := map[string]string{"table": "orders", "index": "by-customer"}
	if got := mustValue(t, body, catalogue.GSIBackfillProgress, idx); got < 0.25 || got > 0.4 {
		t.Errorf("build progress = %v, want about 0.25 to 0.4 (25 to 36 minutes of 100, CloudWatch's delay included)", got)
	}
	if got := mustValue(t, body, catalogue.GSIBackfillThrottleEventsTotal, idx); got <= 0 || got != 2*mustValue(t, body, catalogue.GSIBackfillConsumedWriteUnitsTotal, idx) {
		t.Errorf("build throttle events = %v, want twice the consumed units (80 against 40 a second)", got)
	}
	for _, f := range []string{catalogue.GSIBackfillProgress, catalogue.GSIBackfillThrottleEventsTotal, catalogue.GSIBackfillConsumedWriteUnitsTotal} {
		if _, ok := value(t, body, f, map[string]string{"table": "old"}); ok {
			t.Errorf("%s for old/by-x, whose build ended: its metrics must not be requested", f)
		}
	}
	queried := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "queried"})

	// Past the build's end (start+70m): ACTIVE, the families are gone and
	// the queries with them.
	h.clk.Advance(90 * time.Minute)
	h.cycle()
	h.cycle()
	body = h.scrape()
	for _, f := range []string{catalogue.GSIBackfillProgress, catalogue.GSIBackfillThrottleEventsTotal, catalogue.GSIBackfillConsumedWriteUnitsTotal} {
		if _, ok := value(t, body, f, nil); ok {
			t.Errorf("%s still present once the index is ACTIVE", f)
		}
	}
	if got := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "queried"}); got > queried-2 {
		t.Errorf("queried series %v after the build, %v during it: the build's listed metrics must leave the plan", got, queried)
	}
}
