package awssim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

func TestListTablesPaginatesAcrossPages(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	var want []string
	for i := range 250 {
		name := fmt.Sprintf("table-%03d", i)
		want = append(want, name)
		if err := s.PutTable("us-east-1", Table{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()

	var got []string
	pages := 0
	p := dynamodb.NewListTablesPaginator(ddb, &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.TableNames) > 100 {
			t.Fatalf("page of %d tables exceeds the maximum of 100", len(out.TableNames))
		}
		got = append(got, out.TableNames...)
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Fatalf("got %d pages, %d tables; want 3 pages and all 250 in order", pages, len(got))
	}

	out, err := ddb.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(7), ExclusiveStartTableName: aws.String("table-245")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.TableNames, want[246:]) || out.LastEvaluatedTableName != nil {
		t.Fatalf("last page: %v, last evaluated %v", out.TableNames, out.LastEvaluatedTableName)
	}
	_, err = ddb.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException")
}

func TestDescribeTableFixture(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()

	out, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	tb := out.Table
	if *tb.TableArn != "arn:aws:dynamodb:us-east-1:123456789012:table/orders" || tb.TableStatus != types.TableStatusActive {
		t.Errorf("arn/status: %s %s", *tb.TableArn, tb.TableStatus)
	}
	if !tb.CreationDateTime.Equal(fixtureTime("2023-03-14T09:26:53Z")) {
		t.Errorf("creation time %v", tb.CreationDateTime)
	}
	if *tb.ItemCount != 1254331 || *tb.TableSizeBytes != 412338120 {
		t.Errorf("counts %d %d", *tb.ItemCount, *tb.TableSizeBytes)
	}
	pt := tb.ProvisionedThroughput
	if *pt.ReadCapacityUnits != 100 || *pt.WriteCapacityUnits != 50 {
		t.Errorf("throughput %d/%d", *pt.ReadCapacityUnits, *pt.WriteCapacityUnits)
	}
	if !pt.LastIncreaseDateTime.Equal(fixtureTime("2024-11-29T13:05:00Z")) || !pt.LastDecreaseDateTime.Equal(fixtureTime("2024-12-02T03:10:00Z")) {
		t.Errorf("throughput times %v %v", pt.LastIncreaseDateTime, pt.LastDecreaseDateTime)
	}
	if *pt.NumberOfDecreasesToday != 0 {
		t.Errorf("decreases of another day must not count today: %d", *pt.NumberOfDecreasesToday)
	}
	if tb.BillingModeSummary.BillingMode != types.BillingModeProvisioned || tb.OnDemandThroughput != nil {
		t.Errorf("billing %v, on-demand %v", tb.BillingModeSummary.BillingMode, tb.OnDemandThroughput)
	}
	if len(tb.KeySchema) != 2 || *tb.KeySchema[1].AttributeName != "sk" || tb.KeySchema[1].KeyType != types.KeyTypeRange {
		t.Errorf("key schema %+v", tb.KeySchema)
	}
	if len(tb.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("want 2 GSIs, got %d", len(tb.GlobalSecondaryIndexes))
	}
	g := tb.GlobalSecondaryIndexes[1]
	if *g.IndexName != "by-status" || *g.IndexArn != *tb.TableArn+"/index/by-status" || g.IndexStatus != types.IndexStatusActive ||
		*g.ItemCount != 1198210 || *g.IndexSizeBytes != 61007312 || *g.ProvisionedThroughput.ReadCapacityUnits != 20 ||
		g.Projection.ProjectionType != types.ProjectionTypeKeysOnly {
		t.Errorf("GSI by-status: %+v", g)
	}

	out, err = ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("sessions")})
	if err != nil {
		t.Fatal(err)
	}
	tb = out.Table
	if tb.BillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
		!tb.BillingModeSummary.LastUpdateToPayPerRequestDateTime.Equal(fixtureTime("2023-01-10T08:30:00Z")) {
		t.Errorf("billing summary %+v", tb.BillingModeSummary)
	}
	if *tb.ProvisionedThroughput.ReadCapacityUnits != 0 || *tb.ProvisionedThroughput.WriteCapacityUnits != 0 {
		t.Errorf("on-demand table must report 0/0 provisioned")
	}
	if *tb.OnDemandThroughput.MaxReadRequestUnits != 1000 || *tb.OnDemandThroughput.MaxWriteRequestUnits != -1 {
		t.Errorf("on-demand throughput %d/%d", *tb.OnDemandThroughput.MaxReadRequestUnits, *tb.OnDemandThroughput.MaxWriteRequestUnits)
	}

	out, err = ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("events-archive")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Table.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Errorf("table class %v", out.Table.TableClassSummary.TableClass)
	}

	_, err = ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("missing")})
	msg := wantAPIError(t, err, "ResourceNotFoundException")
	if msg != "Requested resource not found: Table: missing not found" {
		t.Errorf("message %q", msg)
	}
}

func TestTimestampsRoundTripWithMilliseconds(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	created := time.Date(2024, 2, 29, 23, 59, 58, 123e6, time.UTC)
	if err := s.PutTable("us-east-1", Table{Name: "millis", CreationDateTime: created}); err != nil {
		t.Fatal(err)
	}
	out, err := clientsFor(s, cfg("us-east-1")).ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("millis")})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Table.CreationDateTime.Equal(created) {
		t.Fatalf("creation %v, want %v", out.Table.CreationDateTime, created)
	}
}

func TestDescribeTimeToLive(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	for name, want := range map[string][2]string{
		"orders":    {"ENABLED", "expires_at"},
		"sessions":  {"ENABLED", "ttl"},
		"audit-log": {"DISABLED", ""},
	} {
		out, err := ddb.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.TimeToLiveDescription
		if string(d.TimeToLiveStatus) != want[0] || aws.ToString(d.AttributeName) != want[1] {
			t.Errorf("%s: got %s %q", name, d.TimeToLiveStatus, aws.ToString(d.AttributeName))
		}
	}
}

func TestListTagsOfResourcePaginates(t *testing.T) {
	s, _ := fixture(t, t0)
	tags := map[string]string{}
	for i := range 25 {
		tags[fmt.Sprintf("k%02d", i)] = fmt.Sprintf("v%d", i)
	}
	if err := s.PutTable("us-east-1", Table{Name: "tagged", Tags: tags}); err != nil {
		t.Fatal(err)
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	arn := "arn:aws:dynamodb:us-east-1:123456789012:table/tagged"
	got := map[string]string{}
	var token *string
	pages := 0
	for {
		out, err := ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tg := range out.Tags {
			got[*tg.Key] = *tg.Value
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if pages != 3 || len(got) != 25 || got["k24"] != "v24" {
		t.Fatalf("pages %d, tags %d", pages, len(got))
	}

	out, err := ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:123456789012:table/orders")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Tags) != 2 || *out.Tags[0].Key != "env" || *out.Tags[0].Value != "prod" || *out.Tags[1].Value != "payments" {
		t.Fatalf("orders tags %+v", out.Tags)
	}
	_, err = ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("not-an-arn")})
	wantAPIError(t, err, "ValidationException")
}

func TestRegionIsolation(t *testing.T) {
	s, _ := fixture(t, t0)
	ctx := context.Background()
	eu := clientsFor(s, cfg("eu-west-1")).ddb
	out, err := eu.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.TableNames, []string{"orders-eu"}) {
		t.Fatalf("eu-west-1 tables %v", out.TableNames)
	}
	_, err = eu.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	wantAPIError(t, err, "ResourceNotFoundException")
	d, err := eu.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-eu")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(*d.Table.TableArn, "arn:aws:dynamodb:eu-west-1:") {
		t.Fatalf("arn %s", *d.Table.TableArn)
	}
	us, err := clientsFor(s, cfg("us-east-1")).ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(us.TableNames, []string{"audit-log", "events-archive", "orders", "sessions"}) {
		t.Fatalf("us-east-1 tables %v", us.TableNames)
	}
}
