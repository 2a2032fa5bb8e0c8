package collectors_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestSampleTableMeasuresTheExpiredBacklog: the billable size of the
// expired items, in the table and in a sparse KEYS_ONLY GSI, worked out by
// hand from the Developer Guide's item-size rules.
func TestSampleTableMeasuresTheExpiredBacklog(t *testing.T) {
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	client := dynamodb.NewFromConfig(testtools.AWSConfig(srv.URL))
	if err := sim.PutTable("us-east-1", awssim.Table{
		Name: "archive", BillingMode: awssim.BillingPayPerRequest,
		KeySchema: []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		AttributeDefinitions: []awssim.AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}, {AttributeName: "day", AttributeType: "S"},
		},
		GSIs: []awssim.GlobalSecondaryIndex{{IndexName: "by-day", KeySchema: []awssim.KeyElement{{AttributeName: "day", KeyType: "HASH"}}, ProjectionType: "KEYS_ONLY"}},
	}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	var items []map[string]types.AttributeValue
	for i := range 20 {
		expiry := "1790000000" // 2026-09: expired
		if i >= 10 {
			expiry = fmt.Sprint(now.Add(30 * 24 * time.Hour).Unix()) // live
		}
		it := map[string]types.AttributeValue{
			"pk":         &types.AttributeValueMemberS{Value: fmt.Sprintf("p%02d", i)},   // 2 + 3
			"sk":         &types.AttributeValueMemberN{Value: fmt.Sprint(i%9 + 1)},       // 2 + 2
			"expires_at": &types.AttributeValueMemberN{Value: expiry},                    // 10 + 3 (digits 179: ⌈3/2⌉+1)
			"payload":    &types.AttributeValueMemberS{Value: strings.Repeat("x", 1000)}, // 7 + 1000
		}
		if i%2 == 0 {
			it["day"] = &types.AttributeValueMemberS{Value: "2026-09-01"} // 3 + 10
		}
		items = append(items, it)
	}
	for _, it := range items {
		if _, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("archive"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("archive")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := collectors.SampleTable(context.Background(), client, out.Table, collectors.SampleOptions{
		Attribute: "expires_at", SampleItems: 1500, Budget: 1000, Now: now, WholeItems: true,
		Rand: rand.New(rand.NewPCG(1, 2)), MaxReadRate: 1000, Pace: func(context.Context, time.Duration) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	// 10 expired items of 1029 bytes, 5 of them with day (13 more), each
	// plus 100 bytes of overhead; in by-day, the 5 with day hold
	// pk + sk + day = 22 bytes plus 100.
	if res.ExpiredSized != 10 || res.ExpiredBytes != 10*1129+5*13 || len(res.Indexes) != 1 || res.Indexes[0] != "by-day" || res.IndexExpiredBytes[0] != 5*122 {
		t.Fatalf("sized %d bytes %v, indexes %v %v; want 10, 11355, [by-day] [610]", res.ExpiredSized, res.ExpiredBytes, res.Indexes, res.IndexExpiredBytes)
	}
	// An estimate of 1,000 expired items holds 100 times the sample's.
	b, ok := res.BacklogBytes(1000)
	if !ok || math.Abs(b[0]-1135500) > 1e-6 || math.Abs(b[1]-61000) > 1e-6 {
		t.Errorf("backlog %v %v, want [1135500 61000]", b, ok)
	}
	if b, ok := res.BacklogBytes(0); !ok || b[0] != 0 || b[1] != 0 {
		t.Errorf("no expired items: %v %v, want zeros", b, ok)
	}
	res.ExpiredSized = 0
	if _, ok := res.BacklogBytes(5); ok {
		t.Error("expired items estimated, none read whole: a size, want none")
	}
}
