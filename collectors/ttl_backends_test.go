package collectors_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
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
}

func dynamoDBLocal(t *testing.T) backend {
	ep := testtools.StartDynamoDBLocal(t)
	return backend{"dynamodb-local", dynamodb.NewFromConfig(testtools.AWSConfig(ep)), true, true}
}

func dynalite(t *testing.T) backend {
	ep := testtools.StartDynalite(t)
	return backend{"dynalite", dynamodb.NewFromConfig(testtools.AWSConfig(ep)), false, false}
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
