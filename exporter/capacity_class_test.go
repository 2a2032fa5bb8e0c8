package exporter_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestTableClassFromTheSimulatedAccount: two on-demand archive tables of
// 400 GiB with 10 reads and 1 write a second, in us-east-1. Standard
// storage costs $100 a month, Standard-IA $40; the throughput T costs
// about $4.93 a month in Standard (10×3600×730×$0.125e-6 +
// 1×3600×730×$0.625e-6) and 1.25 T in Standard-IA: Standard-IA saves
// 60 − 0.25 T, about $58.77, above the $50 minimum. The table whose class
// changed 10 days ago is not told to switch (AWS allows two class updates
// in 30 days).
func TestTableClassFromTheSimulatedAccount(t *testing.T) {
	created := start.Add(-40 * day)
	gen := newGenSource("us-east-1", created)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		for _, name := range []string{"archive", "archive-recent"} {
			tb := onDemandTable(name, created)
			tb.SizeBytes, tb.ItemCount = 400<<30, 1e8
			if name == "archive-recent" {
				tb.TableClassUpdates = []time.Time{start.Add(-10 * day)}
			}
			mustPut(sim, "us-east-1", tb)
			gen.consumed(name, "", flatSum(10*60), flatSum(1*60))
		}
		sim.AddMetricSource(gen)
	})
	h.app.Scheduler.RunOnceNamed(context.Background(), "discovery", "tables", "capacity")
	body := h.scrape()
	for _, name := range []string{"archive", "archive-recent"} {
		l := func(kv ...string) map[string]string {
			m := map[string]string{"table": name}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i]] = kv[i+1]
			}
			return m
		}
		if got := mustValue(t, body, catalogue.CapacityStorageMonthlyCost, l("index", "")); got != 100 {
			t.Errorf("%s: storage $%v a month, want $100 (400 GiB at $0.25)", name, got)
		}
		std := mustValue(t, body, catalogue.CapacityClassMonthlyCost, l("window", "30d", "table_class", "STANDARD", "component", "throughput"))
		if want := (10*0.125e-6 + 1*0.625e-6) * 3600 * 730; math.Abs(std-want) > want*0.01 {
			t.Errorf("%s: Standard throughput $%v a month, want $%v within 1%%", name, std, want)
		}
		ia := mustValue(t, body, catalogue.CapacityClassMonthlyCost, l("window", "30d", "table_class", "STANDARD_INFREQUENT_ACCESS", "component", "throughput"))
		iaStorage := mustValue(t, body, catalogue.CapacityClassMonthlyCost, l("window", "30d", "table_class", "STANDARD_INFREQUENT_ACCESS", "component", "storage"))
		if math.Abs(ia-1.25*std) > 1e-9 || math.Abs(iaStorage-40) > 1e-9 {
			t.Errorf("%s: Standard-IA throughput $%v storage $%v, want 1.25 × $%v and $40", name, ia, iaStorage, std)
		}
		if got := mustValue(t, body, catalogue.CapacityClassSwitchSaving, l("window", "30d")); math.Abs(got-(60-0.25*std)) > 1e-9 {
			t.Errorf("%s: class switch saving $%v, want 60 − 0.25 × %v", name, got, std)
		}
	}
	mustValue(t, body, catalogue.CapacityClassRecommendationInfo, map[string]string{"table": "archive", "window": "30d", "recommendation": "switch_to_standard_ia", "reason_code": "cheaper"})
	mustValue(t, body, catalogue.CapacityClassRecommendationInfo, map[string]string{"table": "archive-recent", "window": "30d", "recommendation": "keep", "reason_code": "recent_class_change"})
}

// TestStoragePriceFromConfig: collectors.capacity.prices[].storage_gb_month
// reaches the collectors' price overrides.
func TestStoragePriceFromConfig(t *testing.T) {
	cfg, err := config.Parse([]byte("collectors:\n  capacity:\n    prices:\n      - {region: eu-west-3, storage_gb_month: 0.29}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := capacity.StoragePriceFor("eu-west-3", capacity.StandardIA, exporter.CapacitySettings(cfg.Collectors.Capacity).Prices...)
	if err != nil || math.Abs(p-0.116) > 1e-12 {
		t.Errorf("Standard-IA storage in eu-west-3: %v, %v; want 0.4 × 0.29", p, err)
	}
}
