package exporter_test

import (
	"context"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

const quietConfig = "accounts: [{regions: [us-east-1]}]\ncollectors: {capacity: {enabled: false}, ttl: {enabled: false}}\n"

// TestLateListedSeriesIsFetchedBack: a throttling episode starts on a table
// whose throttle series was proven zero, and CloudWatch lists the new series
// only 15 minutes after its first datapoint. Run through the SDK every
// minute, the counter must end equal to the simulator's truth: the first
// minutes of the episode, which ListMetrics hid, are fetched back.
func TestLateListedSeriesIsFetchedBack(t *testing.T) {
	h := newHarness(t, quietConfig, func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
		sim.SetListMetricsDelay(15 * time.Minute)
	})
	h.cycle() // the series is proven zero
	episode := start.Add(-3 * time.Minute).Truncate(time.Minute)
	events := metric("WriteThrottleEvents", "TableName", "orders")
	truth := 0.0
	for i := range 20 {
		v := float64(3 + i*i%17)
		putSum(h.sim, "us-east-1", events, episode.Add(time.Duration(i)*time.Minute), v)
		truth += v
	}
	labels := map[string]string{"table": "orders", "index": "", "kind": "write"}
	listedAt := time.Time{}
	for range 40 {
		h.clk.Advance(time.Minute)
		h.app.Scheduler.RunOnceNamed(context.Background(), "cloudwatch")
		if body := h.scrape(); listedAt.IsZero() {
			if v, _ := value(t, body, catalogue.ThrottleEventsTotal, labels); v > 0 {
				listedAt = h.clk.Now()
			}
		}
	}
	if listedAt.Sub(episode) < 15*time.Minute {
		t.Errorf("setup: the series was counted from %v, before the listing delay had passed since %v", listedAt, episode)
	}
	if got := mustValue(t, h.scrape(), catalogue.ThrottleEventsTotal, labels); got != truth {
		t.Errorf("throttle counter = %v, simulator's truth = %v: the minutes before the late listing were lost", got, truth)
	}
}

// TestNewSeriesFirstFetchFailureKeepsItsWindow: a table appears with
// throttle events in its first minute and the first GetMetricData that
// asks for it fails; the next cycle must fetch that minute again.
func TestNewSeriesFirstFetchFailureKeepsItsWindow(t *testing.T) {
	h := newHarness(t, quietConfig, func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
	})
	h.cycle()
	firstMinute := start.Add(-3 * time.Minute).Truncate(time.Minute) // the next cycle's window
	mustPut(h.sim, "us-east-1", provisioned("new-table", 10, 5))
	putSum(h.sim, "us-east-1", metric("ReadThrottleEvents", "TableName", "new-table"), firstMinute, 9)
	h.sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Table: "new-table", Error: awssim.ErrInternal, Times: 1})
	h.clk.Advance(time.Minute)
	h.cycle()
	labels := map[string]string{"table": "new-table", "index": "", "kind": "read"}
	if v, _ := value(t, h.scrape(), catalogue.ThrottleEventsTotal, labels); v != 0 {
		t.Fatalf("setup: the failed fetch counted %v events", v)
	}
	h.clk.Advance(time.Minute)
	h.cycle()
	if got := mustValue(t, h.scrape(), catalogue.ThrottleEventsTotal, labels); got != 9 {
		t.Errorf("throttle counter after the retry = %v, want 9: the first window of a new series was lost", got)
	}
}

// TestConsumedCounterLosesNoSpikeAtFiveMinutes: at a 5-minute cycle, a
// one-minute spike in the middle of a cycle is in the consumed counter (the
// per-minute gauge it replaces showed only the cycle's last minute), so
// increase() over the cycle equals the sum of CloudWatch's Sums.
func TestConsumedCounterLosesNoSpikeAtFiveMinutes(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {cloudwatch: {interval: 5m, slow_interval: 5m}, capacity: {enabled: false}, ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 100, 50))
	})
	h.cycle()
	labels := map[string]string{"table": "orders", "index": ""}
	before := mustValue(t, h.scrape(), catalogue.ConsumedReadCapacityUnitsTotal, labels)
	// The next cycle's window: the five minutes after the first cycle's end.
	first := start.Add(-3 * time.Minute).Truncate(time.Minute)
	sums := []float64{600, 600, 36000, 600, 600} // a 600 units/s spike in the third minute
	want := 0.0
	for i, v := range sums {
		putSum(h.sim, "us-east-1", metric("ConsumedReadCapacityUnits", "TableName", "orders"), first.Add(time.Duration(i)*time.Minute), v)
		want += v
	}
	h.clk.Advance(5 * time.Minute)
	h.cycle()
	if got := mustValue(t, h.scrape(), catalogue.ConsumedReadCapacityUnitsTotal, labels) - before; got != want {
		t.Errorf("consumed read units over the 5-minute cycle = %v, want %v (the spike minute included)", got, want)
	}
}
