package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

const secretMarker = "S3CR3T-CUSTOMER-4417"

// loadTTLTable creates, on a real DynamoDB implementation, a table with TTL
// enabled holding items whose keys and values carry a distinctive marker:
// 10 live, 6 expired 2 to 7 hours ago, 5 String, 4 millisecond values, 3
// without the attribute.
func loadTTLTable(t *testing.T, endpoint, name string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	// DynamoDB Local keeps one database per access key: use the harness's.
	cfg := testtools.AWSConfig(endpoint)
	cfg.Credentials = credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", "")
	c := dynamodb.NewFromConfig(cfg)
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("customer"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		t.Fatal(err)
	}
	n := 0
	put := func(ttlValue types.AttributeValue) {
		n++
		item := map[string]types.AttributeValue{
			"customer": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-%03d", secretMarker, n)},
			"email":    &types.AttributeValueMemberS{Value: secretMarker + "@example.com"},
		}
		if ttlValue != nil {
			item["expires_at"] = ttlValue
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	nv := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	for i := range 10 {
		put(nv(now.Add(time.Duration(i+1) * 24 * time.Hour).Unix()))
	}
	for i := range 6 {
		put(nv(now.Add(-time.Duration(i+2) * time.Hour).Unix()))
	}
	for range 5 {
		put(&types.AttributeValueMemberS{Value: secretMarker + "-1790812800"})
	}
	for range 4 {
		put(nv(now.Add(-time.Hour).UnixMilli()))
	}
	for range 3 {
		put(nil)
	}
}

// TestTTLHealthOnDynamoDBLocal runs the whole exporter with DynamoDB calls
// going to AWS's DynamoDB Local (TTL disabled there, so nothing is deleted
// during the test; the exporter samples it through a configured attribute)
// and checks every TTL family, and that no key or value leaks into metrics
// or logs.
func TestTTLHealthOnDynamoDBLocal(t *testing.T) {
	endpoint := testtools.StartDynamoDBLocal(t)
	now := time.Now().UTC().Truncate(time.Second)
	loadTTLTable(t, endpoint, "customers", now)
	var logs bytes.Buffer
	h := newHarnessWith(t, `
accounts: [{regions: [us-east-1]}]
collectors:
  ttl:
    attributes: {customers: expires_at}
`, nil, harnessOptions{dynamoDB: endpoint, start: now, logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	h.cycle()
	body := h.scrape()
	tl := map[string]string{"table": "customers"}
	wantClass := map[string]float64{"live": 10, "expired": 6, "wrong_type": 5, "milliseconds": 4, "missing": 3, "too_old": 0, "nanoseconds": 0}
	for class, want := range wantClass {
		if got := mustValue(t, body, catalogue.TTLSampledItems, map[string]string{"table": "customers", "class": class}); got != want {
			t.Errorf("sampled %s = %v, want %v", class, got, want)
		}
	}
	exact := []struct {
		family string
		want   float64
	}{
		{catalogue.TTLExpiredItemsEstimate, 6}, {catalogue.TTLExpiredItemsLowerBound, 6}, {catalogue.TTLExpiredItemsUpperBound, 6},
		{catalogue.TTLNeverExpiringItemsEstimate, 9}, {catalogue.TTLNeverExpiringItemsLowerBound, 9}, {catalogue.TTLNeverExpiringItemsUpperBound, 9},
		{catalogue.TTLOldestExpiredItemTimestamp, float64(now.Add(-7 * time.Hour).Unix())},
		{catalogue.TTLLastSampleTimestamp, float64(now.Unix())},
		{catalogue.TTLLatestLiveExpiryTimestamp, float64(now.Add(10 * 24 * time.Hour).Unix())},
	}
	for _, e := range exact {
		if got := mustValue(t, body, e.family, tl); got != e.want {
			t.Errorf("%s = %v, want %v (a small table is read whole: exact)", e.family, got, e.want)
		}
	}
	if got := mustValue(t, body, catalogue.TTLSamplerConsumedReadUnitsTotal, tl); got <= 0 {
		t.Errorf("sampler consumed %v read units, want > 0", got)
	}
	if got := mustValue(t, body, catalogue.ExporterTTLSamplesTotal, map[string]string{"outcome": "complete"}); got != 1 {
		t.Errorf("complete samples = %v, want 1", got)
	}
	// Remaining lifetime: 10 live items, 1 to 10 days ahead.
	if !strings.Contains(body, `dynamodb_ttl_live_item_remaining_lifetime_seconds_count{account="default",region="us-east-1",table="customers"} 10`) ||
		!strings.Contains(body, `dynamodb_ttl_live_item_remaining_lifetime_seconds_bucket{account="default",region="us-east-1",table="customers",le="86400"} 1`) ||
		!strings.Contains(body, `dynamodb_ttl_live_item_remaining_lifetime_seconds_bucket{account="default",region="us-east-1",table="customers",le="604800"} 7`) {
		t.Errorf("lifetime histogram wrong:\n%s", grep(body, "dynamodb_ttl_live_item_remaining_lifetime_seconds"))
	}

	// Live items 1 to 10 days ahead, one a day: the latest expires in 10
	// days; within 1h of it only itself, within 1d (latest - 1d excluded)
	// also only itself.
	for within, want := range map[string]float64{"1h": 1, "1d": 1} {
		if got := mustValue(t, body, catalogue.TTLLiveItemsNearLatestExpiry, map[string]string{"table": "customers", "within": within}); got != want {
			t.Errorf("live items within %s of the latest expiry = %v, want %v", within, got, want)
		}
	}

	// 10 live items: under the 30 the steady expiry rate needs.
	if v, ok := value(t, body, catalogue.TTLExpiryRateEstimate, tl); ok {
		t.Errorf("expiry rate %v from 10 sampled live items, want no figure", v)
	}

	// A second cycle within table_interval does not read the table again.
	h.clk.Advance(5 * time.Minute)
	h.cycle()
	body = h.scrape()
	if got := mustValue(t, body, catalogue.ExporterTTLSamplesTotal, map[string]string{"outcome": "complete"}); got != 1 {
		t.Errorf("complete samples after a second run = %v, want still 1 (table_interval is 1h)", got)
	}
	for _, where := range []struct{ name, text string }{{"metrics", body}, {"logs", logs.String()}} {
		if strings.Contains(where.text, secretMarker) || strings.Contains(where.text, "example.com") {
			t.Errorf("%s contain item data", where.name)
		}
	}
	if logs.Len() == 0 {
		t.Error("no logs captured; the privacy check would be vacuous")
	}
}

// TestTTLSkipsATableWhoseSizeIsNotPublishedYet: a table with TTL enabled
// was just loaded with 3,000 items, and DynamoDB still reports ItemCount 0
// (its figures are refreshed about every six hours). The sampler must not
// scan it whole: it counts outcome="skipped_unknown_size", reads about one
// sample's worth, and publishes no estimate.
func TestTTLSkipsATableWhoseSizeIsNotPublishedYet(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {capacity: {enabled: false}}\n", func(sim *awssim.Server) {
		tb := awssim.Table{Name: "fresh", BillingMode: awssim.BillingPayPerRequest,
			KeySchema:            []awssim.KeyElement{{AttributeName: "customer", KeyType: "HASH"}},
			AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "customer", AttributeType: "S"}},
			TTL:                  awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expires_at"}}
		mustPut(sim, "us-east-1", tb)
		if err := sim.RefreshTableStats("us-east-1", "fresh"); err != nil { // figures computed while empty
			t.Fatal(err)
		}
		var items []map[string]types.AttributeValue
		for i := range 3000 {
			items = append(items, map[string]types.AttributeValue{
				"customer":   &types.AttributeValueMemberS{Value: fmt.Sprintf("c-%05d", i)},
				"expires_at": &types.AttributeValueMemberN{Value: strconv.FormatInt(start.Add(time.Duration(i-1000)*time.Hour).Unix(), 10)},
			})
		}
		if err := sim.PutItems("us-east-1", "fresh", items); err != nil {
			t.Fatal(err)
		}
	})
	h.cycle()
	body := h.scrape()
	if got := mustValue(t, body, catalogue.ExporterTTLSamplesTotal, map[string]string{"outcome": "skipped_unknown_size"}); got != 1 {
		t.Errorf("skipped_unknown_size samples = %v, want 1", got)
	}
	for _, o := range []string{"complete", "partial", "error"} {
		if got := mustValue(t, body, catalogue.ExporterTTLSamplesTotal, map[string]string{"outcome": o}); got != 0 {
			t.Errorf("%s samples = %v, want 0", o, got)
		}
	}
	if _, ok := value(t, body, catalogue.TTLExpiredItemsEstimate, map[string]string{"table": "fresh"}); ok {
		t.Error("an estimate was published for a table that was not sampled")
	}
	// About 1,500 small items read from the start, not the 3,000 of a full scan.
	if got := mustValue(t, body, catalogue.TTLSamplerConsumedReadUnitsTotal, map[string]string{"table": "fresh"}); got <= 0 || got > 15 {
		t.Errorf("sampler consumed %v read units; want one sample's worth from the start (about 8)", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, map[string]string{"collector": "ttl"}); got != 1 {
		t.Errorf("ttl collector success = %v, want 1: a skip is not an error", got)
	}
}
