package collectors_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// hasRegion reports whether ms holds a sample of family name for region.
func hasRegion(t *testing.T, ms []prometheus.Metric, name, region string) bool {
	t.Helper()
	for _, m := range ms {
		if !strings.Contains(m.Desc().String(), `fqName: "`+name+`"`) {
			continue
		}
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		for _, l := range pb.GetLabel() {
			if l.GetName() == "region" && l.GetValue() == region {
				return true
			}
		}
	}
	return false
}

// TestSlowRegionDelaysNoOther: with every call to one region hanging (an
// injected delay), the discovery, tables, autoscaling and capacity collectors must
// publish the other region's figures on time, not after the slow region's
// calls return; the run itself still waits for the slow region.
func TestSlowRegionDelaysNoOther(t *testing.T) {
	const hang = 1500 * time.Millisecond
	regions := []string{"us-east-1", "eu-west-1"}
	sim, url := fetchAccount(t, regions, 3, 26*time.Hour)
	for _, region := range regions {
		if err := sim.PutScalableTarget(region, awssim.ScalableTarget{ResourceID: "table/t-0000", ScalableDimension: awssim.DimTableRead, MinCapacity: 5, MaxCapacity: 100}); err != nil {
			t.Fatal(err)
		}
	}
	// The slow region comes first, as a sequential reading would meet it.
	targets := []*awsclient.Target{fetchTarget(t, url, "us-east-1", 1), fetchTarget(t, url, "eu-west-1", 1)}
	inv := discovered(t, targets...)
	sim.InjectFault(awssim.Fault{Region: "us-east-1", Delay: hang})

	log := slog.New(slog.DiscardHandler)
	fresh := collectors.NewInventory()
	discovery := collectors.NewDiscovery(collectors.Deps{Targets: targets, Inventory: fresh, Logger: log}, collectors.DiscoverySettings{})
	tables := collectors.NewTables(collectors.Deps{Targets: targets, Inventory: inv, Logger: log}, collectors.TablesSettings{Concurrency: 4})
	autoscaling := collectors.NewAutoScaling(collectors.Deps{Targets: targets, Inventory: inv, Logger: log}, collectors.AutoScalingSettings{})
	capacity := collectors.NewCapacity(collectors.Deps{Targets: targets, Inventory: inv, Logger: log}, capacitySettings(collectors.FetchSettings{Concurrency: 4, RequestsPerSecond: 1000}))
	cases := []struct {
		name  string
		c     collectors.Collector
		ready func() bool
	}{
		{"discovery", discovery, func() bool { return fresh.KnowsNames("acct/eu-west-1") }},
		{"tables", tables, func() bool { return hasRegion(t, tables.Metrics(), catalogue.ExporterTables, "eu-west-1") }},
		{"autoscaling", autoscaling, func() bool {
			return hasRegion(t, autoscaling.Metrics(), catalogue.AutoScalingMinCapacityUnits, "eu-west-1")
		}},
		{"capacity", capacity, func() bool {
			return hasRegion(t, capacity.Metrics(), catalogue.CapacityReadWriteRatio, "eu-west-1")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- tc.c.Run(context.Background(), time.Now()) }()
			var (
				arrived, total time.Duration
				err            error
				ended          bool
			)
			for arrived == 0 {
				if tc.ready() {
					arrived = time.Since(start)
					break
				}
				if ended {
					t.Fatalf("run ended (err %v) after %s without eu-west-1's figures", err, total)
				}
				select {
				case err = <-done:
					ended, total = true, time.Since(start)
				case <-time.After(10 * time.Millisecond):
				}
			}
			if !ended {
				err = <-done
				total = time.Since(start)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("eu-west-1 figures after %s; run (us-east-1 hanging %s per call) ended after %s", arrived.Round(time.Millisecond), hang, total.Round(time.Millisecond))
			if total < hang {
				t.Fatalf("the run took %s: us-east-1 did not hang", total)
			}
			if arrived > hang/2 {
				t.Errorf("eu-west-1's figures appeared after %s, want before %s: the hanging us-east-1 held them back", arrived, hang/2)
			}
		})
	}
}
