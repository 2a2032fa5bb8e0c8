package exporter_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	simharness "github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestCollectorHealthPerRegion puts two regions behind one endpoint and
// makes every call signed for eu-west-1 fail, as an unreachable regional
// endpoint would: each collector's success must read 0 for eu-west-1 and 1
// for us-east-1, and only us-east-1's last-success time may move.
func TestCollectorHealthPerRegion(t *testing.T) {
	clk := clock.NewManual(start)
	sim := awssim.New(awssim.WithClock(clk))
	mustPut(sim, "us-east-1", provisioned("orders", 10, 5, "by-customer"))
	mustPut(sim, "eu-west-1", provisioned("orders-eu", 10, 5))
	var euDown atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// SigV4's credential scope names the region: .../20261120/eu-west-1/dynamodb/aws4_request.
		if euDown.Load() && strings.Contains(r.Header.Get("Authorization"), "/eu-west-1/") {
			http.Error(w, "regional endpoint unavailable", http.StatusServiceUnavailable)
			return
		}
		sim.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	app, _ := harnesstest.Exporter(t, sim, clk, "accounts: [{name: prod, regions: [us-east-1, eu-west-1]}]\ncollectors: {capacity: {enabled: false}}\n",
		simharness.RunOptions{Adjust: func(o *exporter.Options) {
			o.AWS.Endpoints.DynamoDB, o.AWS.Endpoints.CloudWatch = proxy.URL, proxy.URL
			o.AWS.Endpoints.ApplicationAutoScaling, o.AWS.Endpoints.STS = proxy.URL, proxy.URL
		}})
	h := &harness{t: t, sim: sim, clk: clk, app: app}

	h.cycle()
	first := float64(clk.Now().Unix())
	body := h.scrape()
	collectorNames := []string{"discovery", "tables", "autoscaling", "cloudwatch"}
	for _, c := range collectorNames {
		for _, region := range []string{"us-east-1", "eu-west-1"} {
			l := map[string]string{"collector": c, "account": "prod", "region": region}
			if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, l); got != 1 {
				t.Errorf("healthy cycle: %s success in %s = %v, want 1", c, region, got)
			}
		}
	}

	euDown.Store(true)
	clk.Advance(5 * time.Minute)
	h.cycle()
	body = h.scrape()
	for _, c := range collectorNames {
		us := map[string]string{"collector": c, "account": "prod", "region": "us-east-1"}
		eu := map[string]string{"collector": c, "account": "prod", "region": "eu-west-1"}
		if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, eu); got != 0 {
			t.Errorf("%s success in the failing region = %v, want 0", c, got)
		}
		if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, us); got != 1 {
			t.Errorf("%s success in the healthy region = %v, want 1", c, got)
		}
		if got := mustValue(t, body, catalogue.ExporterCollectorLastSuccess, eu); got != first {
			t.Errorf("%s last success in the failing region = %v, want the first cycle's %v", c, got, first)
		}
		if got := mustValue(t, body, catalogue.ExporterCollectorLastSuccess, us); got != float64(clk.Now().Unix()) {
			t.Errorf("%s last success in the healthy region = %v, want now %v", c, got, float64(clk.Now().Unix()))
		}
	}
	// The failing region keeps serving what it knew.
	if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"region": "eu-west-1", "table": "orders-eu"}); !ok {
		t.Error("eu-west-1's table facts vanished while its endpoint failed")
	}
}
