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

var sixClasses = []ttl.Class{ttl.Live, ttl.Expired, ttl.WrongType, ttl.Milliseconds, ttl.TooOld, ttl.Missing}

func noPace(context.Context, time.Duration) error { return nil }

// TestSampleTableCountsEveryClassExactly reads a small table whole on real
// DynamoDB implementations: every item must land in its class.
func TestSampleTableCountsEveryClassExactly(t *testing.T) {
	for _, start := range []func(*testing.T) backend{dynamoDBLocal, dynalite, simulated} {
		b := start(t)
		t.Run(b.name, func(t *testing.T) {
			now := time.Now()
			pop := population{keys: 90, maxPerKey: 4, classOf: func(k int) ttl.Class { return sixClasses[k%6] }}
			items, tr := pop.items(now, "SECRET")
			b.load(t, "exact", items)
			desc := describe(t, b.client, "exact")
			res, err := collectors.SampleTable(context.Background(), b.client, desc, collectors.SampleOptions{
				Attribute: "expires_at", SampleItems: 1500, Budget: 1000, Now: now,
				Rand: rand.New(rand.NewPCG(1, 2)), MaxReadRate: 1000, Pace: noPace,
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete {
				t.Fatal("sample incomplete within a generous budget")
			}
			counts := res.Counts()
			for _, c := range ttl.Classes() {
				if int(counts[c]) != tr[c] {
					t.Errorf("%s: sampled %d, table holds %d", c, counts[c], tr[c])
				}
			}
			for _, set := range []ttl.ClassSet{ttl.SetOf(ttl.Expired), ttl.NeverExpiring} {
				est, err := res.Sample.Estimate(set)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				for _, c := range ttl.Classes() {
					if set.Has(c) {
						want += tr[c]
					}
				}
				if !est.Exact || est.Items != float64(want) || est.ItemsLower != est.ItemsUpper {
					t.Errorf("%v: estimate %+v, want exactly %d", set, est, want)
				}
			}
			if res.ConsumedReadUnits <= 0 {
				t.Errorf("consumed read units = %v; the Scan calls reported no capacity", res.ConsumedReadUnits)
			}
			if b.itemCount != (aws.ToInt64(desc.ItemCount) > 0) {
				t.Errorf("ItemCount = %d; expected reported=%v for %s", aws.ToInt64(desc.ItemCount), b.itemCount, b.name)
			}
		})
	}
}

// TestSampleTableEstimatesAClusteredTable samples part of a larger table on
// DynamoDB Local: the interval must contain the true count, and the sample
// must respect its budget.
func TestSampleTableEstimatesAClusteredTable(t *testing.T) {
	b := dynamoDBLocal(t)
	now := time.Now()
	// 20% of partition keys hold expired items, 10% never-expiring ones.
	pop := population{keys: 1500, maxPerKey: 5, classOf: func(k int) ttl.Class {
		switch h := (k * 2654435761) % 100; {
		case h < 20:
			return ttl.Expired
		case h < 25:
			return ttl.Milliseconds
		case h < 30:
			return ttl.WrongType
		default:
			return ttl.Live
		}
	}}
	items, tr := pop.items(now, "SECRET")
	createTable(t, b.client, "clustered", items)
	desc := describe(t, b.client, "clustered")
	res, err := collectors.SampleTable(context.Background(), b.client, desc, collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 800, Budget: 1000, Now: now,
		Rand: rand.New(rand.NewPCG(7, 11)), MaxReadRate: 1000, Pace: noPace,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sample.TotalSegments < 2 || len(res.Sample.Segments) >= res.Sample.TotalSegments {
		t.Fatalf("expected a partial sample of segments, got %d of %d", len(res.Sample.Segments), res.Sample.TotalSegments)
	}
	for _, c := range []struct {
		set  ttl.ClassSet
		true int
	}{{ttl.SetOf(ttl.Expired), tr[ttl.Expired]}, {ttl.NeverExpiring, tr[ttl.Milliseconds] + tr[ttl.WrongType]}} {
		est, err := res.Sample.Estimate(c.set)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: true %d, estimate %.0f [%.0f, %.0f] from %d items in %d/%d segments, design effect %.1f",
			c.set, c.true, est.Items, est.ItemsLower, est.ItemsUpper, est.SampleItems, est.SegmentsRead, est.TotalSegments, est.DesignEffect)
		if float64(c.true) < est.ItemsLower || float64(c.true) > est.ItemsUpper {
			t.Errorf("%v: true count %d outside the 95%% interval [%.0f, %.0f]", c.set, c.true, est.ItemsLower, est.ItemsUpper)
		}
	}
	// A tight budget stops the sample and says so.
	small, err := collectors.SampleTable(context.Background(), b.client, desc, collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 800, Budget: 3, Now: now,
		Rand: rand.New(rand.NewPCG(7, 11)), Pace: noPace,
	})
	if err != nil {
		t.Fatal(err)
	}
	if small.Complete || len(small.Sample.Segments) >= small.Planned {
		t.Errorf("a 3-unit budget did not cut the sample short: %d of %d segments", len(small.Sample.Segments), small.Planned)
	}
	if small.ConsumedReadUnits > 3+12.5 {
		t.Errorf("consumed %.1f units on a 3-unit budget (one page of overshoot allowed)", small.ConsumedReadUnits)
	}
}

// TestTTLDeletesExactlyWhatTheClassifierSaysExpires enables TTL on DynamoDB
// Local, which really deletes expired items, and checks that what it leaves
// behind is exactly the live, missing and never-expiring classes.
func TestTTLDeletesExactlyWhatTheClassifierSaysExpires(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for DynamoDB Local's TTL sweep")
	}
	b := dynamoDBLocal(t)
	ctx := context.Background()
	now := time.Now()
	// Few expired items: DynamoDB Local deletes a handful every ten seconds.
	pop := population{keys: 24, maxPerKey: 3, classOf: func(k int) ttl.Class {
		if k < 2 {
			return ttl.Expired
		}
		return sixClasses[k%6]
	}}
	items, tr := pop.items(now, "SECRET")
	createTable(t, b.client, "swept", items)
	if _, err := b.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String("swept"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires_at")},
	}); err != nil {
		t.Fatal(err)
	}
	total := len(items)
	want := total - tr[ttl.Expired]
	count := func() int {
		out, err := b.client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("swept"), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		return int(out.Count)
	}
	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(90 * time.Second); !done(); time.Sleep(250 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("DynamoDB Local's TTL sweep did not %s within 90 s (table holds %d items)", what, count())
			}
		}
	}
	waitFor("delete the expired items", func() bool { return count() <= want })
	// A later sweep must delete nothing else. Instead of sleeping for a sweep
	// period, write one more expired item (a sentinel) and wait until a
	// sweep has deleted it: that sweep also saw every other item.
	sentinel := map[string]types.AttributeValue{
		"pk":         &types.AttributeValueMemberS{Value: "sentinel"},
		"sk":         num(0),
		"expires_at": num(now.Add(-time.Hour).Unix()),
	}
	writeItems(t, b.client, "swept", []map[string]types.AttributeValue{sentinel})
	waitFor("delete the sentinel item", func() bool {
		out, err := b.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("swept"),
			Key: map[string]types.AttributeValue{"pk": sentinel["pk"], "sk": sentinel["sk"]}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item == nil
	})
	if got := count(); got != want {
		t.Fatalf("after the TTL sweeps the table holds %d items, want %d (%d minus %d expired)", got, want, total, tr[ttl.Expired])
	}
	res, err := collectors.SampleTable(ctx, b.client, describe(t, b.client, "swept"), collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 1500, Budget: 1000, Now: time.Now(), Pace: noPace,
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := res.Counts()
	for _, c := range ttl.Classes() {
		want := tr[c]
		if c == ttl.Expired {
			want = 0
		}
		if int(counts[c]) != want {
			t.Errorf("%s after the sweep: %d items, want %d", c, counts[c], want)
		}
	}
}
