package collectors_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// TestSampleTableWithUnknownItemCount: DynamoDB reports ItemCount 0 (and
// TableSizeBytes 0) for up to six hours after a table is created or
// imported. The simulated account does the same once it has computed a
// table's figures: they wait for the next six-hourly refresh, so the table
// is described empty (after one write and delete) before it is loaded. A table larger than one sample must not be scanned in full:
// the sampler reads about one sample's worth from the start and gives up,
// saying why. Once the size in bytes is known, it plans random segments
// from it; a table smaller than one sample is read whole, exactly.
func TestSampleTableWithUnknownItemCount(t *testing.T) {
	b := simulated(t)
	now := time.Now()
	pop := population{keys: 2000, maxPerKey: 5, classOf: func(k int) ttl.Class {
		if (k*2654435761)%100 < 20 {
			return ttl.Expired
		}
		return ttl.Live
	}}
	items, tr := pop.items(now, "SECRET")
	createEmpty(t, b, "fresh")
	writeItems(t, b.client, "fresh", items)
	desc := describe(t, b.client, "fresh")
	if aws.ToInt64(desc.ItemCount) != 0 || aws.ToInt64(desc.TableSizeBytes) != 0 {
		t.Fatalf("setup: ItemCount %d, TableSizeBytes %d right after loading; want 0 until the refresh", aws.ToInt64(desc.ItemCount), aws.ToInt64(desc.TableSizeBytes))
	}
	opts := func() collectors.SampleOptions {
		return collectors.SampleOptions{Attribute: "expires_at", SampleItems: 1500, Budget: 5000, Now: now,
			Rand: rand.New(rand.NewPCG(3, 4)), Pace: noPace}
	}

	// Full scan cost, for reference.
	full, err := collectors.SampleTable(context.Background(), b.client, withCount(desc, int64(len(items))), collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: len(items), Budget: 1e9, Now: now, Pace: noPace})
	if err != nil || !full.Complete {
		t.Fatalf("reference full read: %v complete=%v", err, full.Complete)
	}

	res, err := collectors.SampleTable(context.Background(), b.client, desc, opts())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d items, size unknown: skipped=%v after %.1f read units (a full scan costs %.1f)", len(items), res.SizeUnknown, res.ConsumedReadUnits, full.ConsumedReadUnits)
	if !res.SizeUnknown || res.Complete || len(res.Sample.Segments) != 0 {
		t.Errorf("size unknown: SizeUnknown=%v Complete=%v segments=%d; want a skip with nothing sampled", res.SizeUnknown, res.Complete, len(res.Sample.Segments))
	}
	if res.ConsumedReadUnits > full.ConsumedReadUnits/2 {
		t.Errorf("the skip consumed %.1f read units, more than half a full scan (%.1f)", res.ConsumedReadUnits, full.ConsumedReadUnits)
	}

	// The size in bytes is known (the count is not): plan from it.
	sized := withCount(desc, 0)
	sized.TableSizeBytes = aws.Int64(int64(full.ConsumedReadUnits * 8192)) // about the table's bytes, from a full read
	res, err = collectors.SampleTable(context.Background(), b.client, sized, opts())
	if err != nil {
		t.Fatal(err)
	}
	est, err := res.Sample.Estimate(ttl.SetOf(ttl.Expired))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("size known: %d of %d segments, %d items, %.1f read units; expired %.0f [%.0f, %.0f], truth %d",
		len(res.Sample.Segments), res.Sample.TotalSegments, est.SampleItems, res.ConsumedReadUnits, est.Items, est.ItemsLower, est.ItemsUpper, tr[ttl.Expired])
	if !res.Complete || res.SizeUnknown || res.Sample.TotalSegments < 2 || est.SampleItems < 500 || est.SampleItems > 3000 {
		t.Errorf("size known: complete=%v, %d segments of %d, %d items; want a random-segment sample of about 1,500 items",
			res.Complete, len(res.Sample.Segments), res.Sample.TotalSegments, est.SampleItems)
	}
	if float64(tr[ttl.Expired]) < est.ItemsLower || float64(tr[ttl.Expired]) > est.ItemsUpper {
		t.Errorf("expired truth %d outside [%.0f, %.0f]", tr[ttl.Expired], est.ItemsLower, est.ItemsUpper)
	}

	// A small table of unknown size is read whole.
	small, smallTruth := population{keys: 100, maxPerKey: 3, classOf: func(k int) ttl.Class { return sixClasses[k%6] }}.items(now, "SECRET")
	createEmpty(t, b, "small-fresh")
	writeItems(t, b.client, "small-fresh", small)
	res, err = collectors.SampleTable(context.Background(), b.client, describe(t, b.client, "small-fresh"), opts())
	if err != nil {
		t.Fatal(err)
	}
	counts := res.Counts()
	for _, c := range sixClasses {
		if int(counts[c]) != smallTruth[c] {
			t.Errorf("small table: %s sampled %d, holds %d", c, counts[c], smallTruth[c])
		}
	}
	if !res.Complete || res.Sample.TotalSegments != 1 {
		t.Errorf("small table: complete=%v, %d segments; want one whole read", res.Complete, res.Sample.TotalSegments)
	}
}

// withCount returns a copy of desc reporting n items.
func withCount(desc *types.TableDescription, n int64) *types.TableDescription {
	d := *desc
	d.ItemCount = aws.Int64(n)
	return &d
}

// createEmpty creates a table on the simulated backend and has its figures
// computed while it is empty: one item written and deleted, then
// DescribeTable, which must report 0 items.
func createEmpty(t *testing.T, b backend, name string) {
	t.Helper()
	b.create(t, name)
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k"}, "sk": &types.AttributeValueMemberN{Value: "1"}}
	ctx := context.Background()
	if _, err := b.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key}); err != nil {
		t.Fatal(err)
	}
	if d := describe(t, b.client, name); aws.ToInt64(d.ItemCount) != 0 {
		t.Fatalf("setup: an empty table reports %d items", aws.ToInt64(d.ItemCount))
	}
}
