package collectors_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// candidateItems: missing items lack expires_at and carry expiry (expired of
// them in the past, the rest ahead); carrying items hold expires_at. Every
// item carries created (a past epoch time) and a marker in its key and value.
func candidateItems(now time.Time, missing, expired, carrying int) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	for i := range missing + carrying {
		at := now.Add(time.Duration(1+i%40) * time.Hour)
		if i < expired {
			at = now.Add(-time.Duration(1+i%90) * time.Hour)
		}
		attr := "expiry"
		if i >= missing {
			attr = "expires_at"
		}
		out = append(out, map[string]types.AttributeValue{
			"pk":      &types.AttributeValueMemberS{Value: fmt.Sprintf("SECRET-%04d", i)},
			"sk":      num(int64(i)),
			"payload": &types.AttributeValueMemberS{Value: "SECRET-payload"},
			"created": num(now.Add(-48 * time.Hour).Unix()),
			attr:      num(at.Unix()),
		})
	}
	return out
}

// TestSamplerReadsWholeItemsWhenMostLackTheTTLAttribute samples, through
// the SDK on the simulated account, a table whose TTL attribute (expires_at)
// is missing from 500 of 600 items, which carry their expiry under expiry:
// the sampler must switch to whole items after its first page, name expiry
// (not created, a past time on every item) with exact counts (the table is
// read whole), and spend no more than that first page again: a whole-item
// Scan costs what a projected one costs.
func TestSamplerReadsWholeItemsWhenMostLackTheTTLAttribute(t *testing.T) {
	b := simulated(t)
	now := time.Now()
	b.load(t, "misnamed", candidateItems(now, 500, 300, 100))
	desc := describe(t, b.client, "misnamed")
	sample := func(attr string, whole bool) collectors.SampleResult {
		t.Helper()
		res, err := collectors.SampleTable(context.Background(), b.client, desc, collectors.SampleOptions{
			Attribute: attr, SampleItems: 1500, Budget: 1000, Now: now,
			Rand: rand.New(rand.NewPCG(3, 4)), Pace: noPace, WholeItems: whole,
		})
		if err != nil || !res.Complete {
			t.Fatalf("sample by %s (whole %v): complete %v, %v", attr, whole, res.Complete, err)
		}
		return res
	}
	auto := sample("expires_at", false)
	if !auto.WholeItems {
		t.Fatal("500 of 600 items lack the TTL attribute, yet the sample did not read whole items")
	}
	if c := auto.Counts(); c[ttl.Missing] != 500 || c[ttl.Live] != 100 {
		t.Errorf("classes after the switch: missing %d, live %d; want 500, 100 (the first page counted once)", c[ttl.Missing], c[ttl.Live])
	}
	cand, err := ttl.ChooseCandidate(auto.Sample.TotalSegments, auto.Sample.TableItems, auto.Candidates, now)
	if err != nil {
		t.Fatal(err)
	}
	if cand.Attribute != "expiry" || cand.Carried.Items != 500 || !cand.Carried.Exact || cand.Expired.Items != 300 || cand.Carried.Fraction != 500.0/600 {
		t.Errorf("candidate %q carried %v (exact %v, share %v), expired %v; want expiry, 500, exact, 0.833, 300",
			cand.Attribute, cand.Carried.Items, cand.Carried.Exact, cand.Carried.Fraction, cand.Expired.Items)
	}

	whole := sample("expires_at", true)
	// created is on every item: sampling by it reads keys and created only.
	projected := sample("created", false)
	if projected.WholeItems {
		t.Error("sampling by an attribute every item carries read whole items")
	}
	extra := auto.ConsumedReadUnits - whole.ConsumedReadUnits
	t.Logf("read units: projected %.1f, whole from the start %.1f, switched after the first page %.1f",
		projected.ConsumedReadUnits, whole.ConsumedReadUnits, auto.ConsumedReadUnits)
	if projected.ConsumedReadUnits != whole.ConsumedReadUnits {
		t.Errorf("a whole-item sample cost %.1f read units, the projected one %.1f: Scan charges the items read, not the attributes returned",
			whole.ConsumedReadUnits, projected.ConsumedReadUnits)
	}
	if extra <= 0 || extra > whole.ConsumedReadUnits/5 {
		t.Errorf("switching cost %.1f read units more than reading whole from the start (%.1f); want one page of 100 of the 600 items", extra, whole.ConsumedReadUnits)
	}

	// A table where most items carry the attribute stays projected.
	b.load(t, "mostly-fine", candidateItems(now, 100, 60, 500))
	fine, err := collectors.SampleTable(context.Background(), b.client, describe(t, b.client, "mostly-fine"), collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 1500, Budget: 1000, Now: now, Pace: noPace,
	})
	if err != nil {
		t.Fatal(err)
	}
	if fine.WholeItems {
		t.Error("100 of 600 items lack the TTL attribute, yet the sample read whole items")
	}
}

// TestSamplerSwitchesToWholeItemsMidSample: on a table of 4,000 items (3,600
// without expires_at, carrying expiry; 2,000 of those expired) sampled in
// random segments, the sampler decides after its first 50 items and reads
// the rest of the sample whole. The segments read before the switch stay
// in the class counts but not in the candidate search; the segments read
// after it are still a random sample, and the candidate's figures must
// hold the truth within their intervals.
func TestSamplerSwitchesToWholeItemsMidSample(t *testing.T) {
	b := simulated(t)
	now := time.Now()
	b.load(t, "misnamed-large", candidateItems(now, 3600, 2000, 400))
	desc := withCount(describe(t, b.client, "misnamed-large"), 4000)
	res, err := collectors.SampleTable(context.Background(), b.client, desc, collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 800, Budget: 1000, Now: now,
		Rand: rand.New(rand.NewPCG(5, 6)), Pace: noPace,
	})
	if err != nil || !res.Complete {
		t.Fatalf("complete %v, %v", res.Complete, err)
	}
	k, whole := len(res.Sample.Segments), len(res.Candidates)
	if !res.WholeItems || whole == 0 || whole >= k || res.Sample.TotalSegments <= k {
		t.Fatalf("whole items %v: %d of %d segments read whole, of %d in the table; want a switch after the first few", res.WholeItems, whole, k, res.Sample.TotalSegments)
	}
	cand, err := ttl.ChooseCandidate(res.Sample.TotalSegments, res.Sample.TableItems, res.Candidates, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d segments read whole (of %d): %q carried by %.3f (truth 0.900), expired %.0f [%.0f, %.0f] (truth 2000)",
		whole, k, res.Sample.TotalSegments, cand.Attribute, cand.Carried.Fraction, cand.Expired.Items, cand.Expired.ItemsLower, cand.Expired.ItemsUpper)
	if cand.Attribute != "expiry" || cand.Carried.FractionLower > 0.9 || cand.Carried.FractionUpper < 0.9 {
		t.Errorf("candidate %q share %.3f [%.3f, %.3f], want expiry around 0.9", cand.Attribute, cand.Carried.Fraction, cand.Carried.FractionLower, cand.Carried.FractionUpper)
	}
	if cand.Expired.ItemsLower > 2000 || cand.Expired.ItemsUpper < 2000 {
		t.Errorf("expired %.0f [%.0f, %.0f] does not hold the truth 2000", cand.Expired.Items, cand.Expired.ItemsLower, cand.Expired.ItemsUpper)
	}
}
