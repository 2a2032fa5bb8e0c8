package collectors_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// backend is a DynamoDB implementation the TTL tests run against.
type backend struct {
	name   string
	client *dynamodb.Client
	// ttlDeletes is true when the implementation really deletes expired items.
	ttlDeletes bool
	// itemCount is true when DescribeTable reports ItemCount.
	itemCount bool
	// create makes an empty table keyed pk (S) / sk (N); nil means CreateTable.
	create func(t *testing.T, name string)
}

// simulated returns the built-in simulated account as a backend. It keeps
// expired items for 48 hours (its default TTL deletion delay) and reports
// ItemCount as of its last six-hourly refresh.
func simulated(t *testing.T) backend {
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return backend{
		name:      "awssim",
		client:    dynamodb.NewFromConfig(testtools.AWSConfig(srv.URL)),
		itemCount: true,
		create: func(t *testing.T, name string) {
			err := sim.PutTable("us-east-1", awssim.Table{
				Name:        name,
				BillingMode: awssim.BillingPayPerRequest,
				KeySchema:   []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
				AttributeDefinitions: []awssim.AttributeDefinition{
					{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
				},
			})
			if err != nil {
				t.Fatal(err)
			}
		},
	}
}

func dynamoDBLocal(t *testing.T) backend {
	ep := testtools.StartDynamoDBLocal(t)
	return backend{name: "dynamodb-local", client: dynamodb.NewFromConfig(testtools.AWSConfig(ep)), ttlDeletes: true, itemCount: true}
}

func dynalite(t *testing.T) backend {
	ep := testtools.StartDynalite(t)
	return backend{name: "dynalite", client: dynamodb.NewFromConfig(testtools.AWSConfig(ep))}
}

// population describes a table's items: partition keys, each holding
// 1..maxPerKey items of one class (strong clustering by partition key).
type population struct {
	keys      int
	maxPerKey int
	// classOf returns the class of partition key k.
	classOf func(k int) ttl.Class
}

// truth counts items per class.
type truth map[ttl.Class]int

// items builds the population's items, with TTL values relative to now.
// Keys and string values carry a marker so privacy tests can look for it.
func (p population) items(now time.Time, marker string) ([]map[string]types.AttributeValue, truth) {
	var out []map[string]types.AttributeValue
	tr := truth{}
	for k := range p.keys {
		n := 1 + (k*7919)%p.maxPerKey
		c := p.classOf(k)
		for i := range n {
			item := map[string]types.AttributeValue{
				"pk":      &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-tenant-%05d", marker, k)},
				"sk":      &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
				"payload": &types.AttributeValueMemberS{Value: marker + "-payload-with-some-bytes-to-make-the-item-larger"},
			}
			offset := time.Duration(1+(k+i)%20) * time.Hour
			switch c {
			case ttl.Live:
				item["expires_at"] = num(now.Add(24*time.Hour + offset).Unix())
			case ttl.Expired:
				item["expires_at"] = num(now.Add(-offset).Unix())
			case ttl.WrongType:
				item["expires_at"] = &types.AttributeValueMemberS{Value: strconv.FormatInt(now.Add(-offset).Unix(), 10)}
			case ttl.Milliseconds:
				item["expires_at"] = num(now.Add(-offset).UnixMilli())
			case ttl.TooOld:
				item["expires_at"] = num(now.AddDate(-6, 0, 0).Add(-offset).Unix())
			case ttl.Missing:
			default:
				panic("population: unsupported class " + c.String())
			}
			out = append(out, item)
			tr[c]++
		}
	}
	return out, tr
}

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// load creates an on-demand table with key pk (S) / sk (N) on the backend and loads items.
func (b backend) load(t *testing.T, name string, items []map[string]types.AttributeValue) {
	t.Helper()
	if b.create == nil {
		createTable(t, b.client, name, items)
		return
	}
	b.create(t, name)
	writeItems(t, b.client, name, items)
}

// createTable creates an on-demand table with key pk (S) / sk (N) and loads items.
func createTable(t *testing.T, c *dynamodb.Client, name string, items []map[string]types.AttributeValue) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil && out.Table.TableStatus == types.TableStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s not active: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	writeItems(t, c, name, items)
}

// writeItems loads items with BatchWriteItem, retrying unprocessed ones.
func writeItems(t *testing.T, c *dynamodb.Client, name string, items []map[string]types.AttributeValue) {
	t.Helper()
	ctx := context.Background()
	for lo := 0; lo < len(items); lo += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[lo:min(lo+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		pending := map[string][]types.WriteRequest{name: reqs}
		for len(pending) > 0 {
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatalf("BatchWriteItem: %v", err)
			}
			pending = out.UnprocessedItems
		}
	}
}

func describe(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Table
}
