package collectors_test

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// TestSamplerCoverageOnALoadedTable loads a table with a known expired
// fraction, clustered by partition key (every item of a key has the same
// class), into the simulated account, samples it through the real Scan API
// many times at the default budget, and checks that the 95% interval holds
// its coverage and that the relative error stays within the bound docs/ttl.md states.
func TestSamplerCoverageOnALoadedTable(t *testing.T) {
	if testing.Short() {
		t.Skip("samples a 20,000-item table 200 times")
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	if err := sim.PutTable("us-east-1", awssim.Table{
		Name: "clustered", BillingMode: awssim.BillingPayPerRequest,
		KeySchema: []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		AttributeDefinitions: []awssim.AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
		},
	}); err != nil {
		t.Fatal(err)
	}
	// About 20,000 items in 4,000 partition keys of 1 to 9 items; 20% of
	// keys expired, 5% with millisecond values.
	pop := population{keys: 4000, maxPerKey: 9, classOf: func(k int) ttl.Class {
		switch h := (k * 2654435761 >> 7) % 100; {
		case h < 20:
			return ttl.Expired
		case h < 25:
			return ttl.Milliseconds
		default:
			return ttl.Live
		}
	}}
	items, tr := pop.items(now, "SECRET")
	if err := sim.PutItems("us-east-1", "clustered", items); err != nil {
		t.Fatal(err)
	}
	if err := sim.RefreshTableStats("us-east-1", "clustered"); err != nil {
		t.Fatal(err)
	}
	client := dynamodb.NewFromConfig(testtools.AWSConfig(srv.URL))
	desc := describe(t, client, "clustered")
	total := float64(len(items))
	cases := []struct {
		name  string
		set   ttl.ClassSet
		truth float64
		bound float64 // p95 relative error bound stated in docs/ttl.md
	}{
		{"expired", ttl.SetOf(ttl.Expired), float64(tr[ttl.Expired]), 0.5},
		{"never-expiring", ttl.NeverExpiring, float64(tr[ttl.Milliseconds]), 1.25},
	}
	const runs = 200
	covered := make([]int, len(cases))
	relErr := make([][]float64, len(cases))
	units := 0.0
	for run := range runs {
		res, err := collectors.SampleTable(context.Background(), client, desc, collectors.SampleOptions{
			Attribute: "expires_at", SampleItems: 1500, Budget: 500, Now: now,
			Rand: rand.New(rand.NewPCG(uint64(run), 99)), Pace: noPace,
		})
		if err != nil {
			t.Fatal(err)
		}
		units += res.ConsumedReadUnits
		for i, c := range cases {
			est, err := res.Sample.Estimate(c.set)
			if err != nil {
				t.Fatal(err)
			}
			if est.ItemsLower <= c.truth && c.truth <= est.ItemsUpper {
				covered[i]++
			}
			relErr[i] = append(relErr[i], math.Abs(est.Items-c.truth)/c.truth)
		}
	}
	for i, c := range cases {
		sort.Float64s(relErr[i])
		cover := float64(covered[i]) / runs
		p50, p95 := relErr[i][runs/2], relErr[i][runs*95/100]
		t.Logf("%s: true %.0f of %.0f items (%.1f%%); coverage %.3f; relative error median %.2f, p95 %.2f",
			c.name, c.truth, total, 100*c.truth/total, cover, p50, p95)
		if cover < 0.93 {
			t.Errorf("%s: 95%% interval covered the truth in %.1f%% of runs, want >= 93%%", c.name, 100*cover)
		}
		if p95 > c.bound {
			t.Errorf("%s: p95 relative error %.2f above the bound docs/ttl.md states %.2f", c.name, p95, c.bound)
		}
	}
	t.Logf("mean read units per sample: %.1f", units/runs)
}
