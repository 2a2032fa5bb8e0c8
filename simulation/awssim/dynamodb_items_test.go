package awssim

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// secret is a distinctive value that must never appear in an error.
const secret = "SECRET-VALUE-123"

// Tables of the data-plane tests.
var (
	// compositeTable has a String partition key and a Number sort key.
	compositeTable = Table{
		Name:                 "events",
		KeySchema:            []KeyElement{{"pk", "HASH"}, {"sk", "RANGE"}},
		AttributeDefinitions: []AttributeDefinition{{"pk", "S"}, {"sk", "N"}},
		TTL:                  TimeToLive{Status: TTLEnabled, AttributeName: "expires_at"},
	}
	// binaryTable has a Binary partition key only.
	binaryTable = Table{
		Name:                 "blobs",
		KeySchema:            []KeyElement{{"id", "HASH"}},
		AttributeDefinitions: []AttributeDefinition{{"id", "B"}},
	}
)

// dataServer starts a server on a manual clock at t0 holding tables.
func dataServer(t *testing.T, tables ...Table) (*Server, *clock.Manual, clients) {
	t.Helper()
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	for _, tb := range tables {
		if err := s.PutTable("us-east-1", tb); err != nil {
			t.Fatal(err)
		}
	}
	return s, clk, clientsFor(s, cfg("us-east-1"))
}

func sv(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func nv(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// everyType is an item holding every DynamoDB type, numbers already in the
// normal form DynamoDB answers.
func everyType(pk string, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":    sv(pk),
		"sk":    nv(sk),
		"s":     sv("héllo"),
		"n":     nv("-12.5"),
		"b":     &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}},
		"t":     &types.AttributeValueMemberBOOL{Value: true},
		"f":     &types.AttributeValueMemberBOOL{Value: false},
		"null":  &types.AttributeValueMemberNULL{Value: true},
		"empty": sv(""),
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": sv("x"), "deep": &types.AttributeValueMemberL{Value: []types.AttributeValue{nv("1"), sv("y")}},
		}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("a"), nv("2"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "0.5"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
	}
}

func TestPutGetDeleteRoundTripEveryType(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	ctx := context.Background()
	want := everyType("user#1", "7")
	if _, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("events"), Item: want}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": sv("user#1"), "sk": nv("7")}
	got, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("events"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Item, want) {
		t.Fatalf("GetItem returned\n%#v\nwant\n%#v", got.Item, want)
	}
	viaAPI, ok, err := s.Item("us-east-1", "events", key)
	if err != nil || !ok || !reflect.DeepEqual(viaAPI, want) {
		t.Fatalf("Server.Item: ok=%v err=%v equal=%v", ok, err, reflect.DeepEqual(viaAPI, want))
	}

	// Overwrite returns the old item; the sort key "7.0" is the same key.
	next := map[string]types.AttributeValue{"pk": sv("user#1"), "sk": nv("7.0"), "v": nv("2")}
	put, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("events"), Item: next, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(put.Attributes, want) {
		t.Fatalf("ALL_OLD returned %#v", put.Attributes)
	}
	del, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("events"), Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if got := del.Attributes["sk"].(*types.AttributeValueMemberN).Value; got != "7" || len(del.Attributes) != 3 {
		t.Fatalf("deleted item %#v (numbers are answered in normal form)", del.Attributes)
	}
	got, err = c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("events"), Key: key})
	if err != nil || got.Item != nil {
		t.Fatalf("after delete: item %v, err %v", got.Item, err)
	}
}

func TestNumbersAreNormalised(t *testing.T) {
	s, _, _ := dataServer(t, compositeTable)
	in := map[string]string{"a": "001.500", "b": "1e3", "c": "-0.000", "d": "+12E-2", "e": "1.0E+2"}
	it := map[string]types.AttributeValue{"pk": sv("p"), "sk": nv("1")}
	for k, v := range in {
		it[k] = nv(v)
	}
	if err := s.PutItems("us-east-1", "events", []map[string]types.AttributeValue{it}); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Item("us-east-1", "events", map[string]types.AttributeValue{"pk": sv("p"), "sk": nv("1.000")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1.5", "b": "1000", "c": "0", "d": "0.12", "e": "100"}
	for k, w := range want {
		if v := got[k].(*types.AttributeValueMemberN).Value; v != w {
			t.Errorf("%s: got %s, want %s", k, v, w)
		}
	}
}

func TestBinaryKeyAndBatchWrite(t *testing.T) {
	s, _, c := dataServer(t, binaryTable, compositeTable)
	ctx := context.Background()
	var reqs []types.WriteRequest
	for i := range 25 {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberB{Value: []byte{byte(i), 0xff}}, "n": nv(fmt.Sprint(i)),
		}}})
	}
	out, err := c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{"blobs": reqs}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedItems) != 0 || len(out.ConsumedCapacity) != 1 || *out.ConsumedCapacity[0].CapacityUnits != 25 {
		t.Fatalf("unprocessed %v, consumed %+v", out.UnprocessedItems, out.ConsumedCapacity)
	}
	if n, _, _ := s.ItemStats("us-east-1", "blobs"); n != 25 {
		t.Fatalf("stored %d items", n)
	}

	// Deletes and puts across two tables in one call.
	mixed := map[string][]types.WriteRequest{
		"blobs": {{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberB{Value: []byte{3, 0xff}}}}}},
		"events": {{PutRequest: &types.PutRequest{Item: everyType("p", "1")}},
			{PutRequest: &types.PutRequest{Item: everyType("p", "2")}}},
	}
	if _, err := c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: mixed}); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := s.ItemStats("us-east-1", "blobs"); n != 24 {
		t.Fatalf("after delete: %d items", n)
	}
	if n, _, _ := s.ItemStats("us-east-1", "events"); n != 2 {
		t.Fatalf("events: %d items", n)
	}

	// 26 requests, over one table or over two, are refused.
	more := append(reqs[:25:25], types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberB{Value: []byte{99}}}}})
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"blobs": more}})
	wantAPIError(t, err, "ValidationException")
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"blobs": reqs, "events": mixed["events"][:1]}})
	if msg := wantAPIError(t, err, "ValidationException"); !strings.Contains(msg, "Too many items") {
		t.Fatalf("message %q", msg)
	}
	// The same key twice is refused and nothing is written.
	dup := []types.WriteRequest{{PutRequest: &types.PutRequest{Item: everyType("q", "1")}}, {DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"pk": sv("q"), "sk": nv("1.0")}}}}
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"events": dup}})
	if msg := wantAPIError(t, err, "ValidationException"); !strings.Contains(msg, "duplicates") {
		t.Fatalf("message %q", msg)
	}
	if n, _, _ := s.ItemStats("us-east-1", "events"); n != 2 {
		t.Fatalf("a refused batch wrote: %d items", n)
	}
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"nope": reqs[:1]}})
	wantAPIError(t, err, "ResourceNotFoundException")
}

func TestKeyValidationNeverLeaksValues(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	ctx := context.Background()
	tbl := aws.String("events")
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"missing sort key", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv(secret), "x": sv(secret)}})
			return err
		}, "One or more parameter values were invalid: Missing the key sk in the item"},
		{"sort key of the wrong type", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv("a"), "sk": sv(secret)}})
			return err
		}, "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S"},
		{"partition key of the wrong type", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberB{Value: []byte(secret)}, "sk": nv("1")}})
			return err
		}, "Type mismatch for key pk expected: S actual: B"},
		{"empty key string", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv(""), "sk": nv("1"), "x": sv(secret)}})
			return err
		}, "cannot contain an empty string value. Key: pk"},
		{"invalid number", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv("a"), "sk": nv("1"), "x": nv("12" + secret)}})
			return err
		}, msgNotANumber},
		{"too many digits", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv(secret), "sk": nv("1"), "x": nv("1234567890123456789012345678901234567890")}})
			return err
		}, msgTooManyDigits},
		{"duplicate set members", func() error {
			_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": sv("a"), "sk": nv("1"), "x": &types.AttributeValueMemberSS{Value: []string{secret, secret}}}})
			return err
		}, msgDuplicates},
		{"get with a mistyped key", func() error {
			_, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": sv(secret), "sk": sv(secret)}})
			return err
		}, msgKeySchema},
		{"delete with an extra attribute", func() error {
			_, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": sv(secret), "sk": nv("1"), "x": sv(secret)}})
			return err
		}, msgKeySchema},
		{"scan from a mistyped start key", func() error {
			_, err := c.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, ExclusiveStartKey: map[string]types.AttributeValue{"pk": nv("1"), "sk": sv(secret)}})
			return err
		}, "The provided starting key is invalid: " + msgKeySchema},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			msg := wantAPIError(t, err, "ValidationException")
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not contain %q", msg, tc.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "12SECRET") {
				t.Errorf("error leaks a value: %v", err)
			}
		})
	}
	// The Go API neither.
	err := s.PutItems("us-east-1", "events", []map[string]types.AttributeValue{{"pk": sv(secret), "sk": sv(secret)}})
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "Type mismatch for key sk") {
		t.Fatalf("PutItems error %v", err)
	}
	for _, r := range s.Requests() {
		if strings.Contains(fmt.Sprint(r), secret) {
			t.Fatalf("request log leaks a value: %+v", r)
		}
	}
}

func TestGetItemProjectionAndCapacity(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	ctx := context.Background()
	it := map[string]types.AttributeValue{"pk": sv("a"), "sk": nv("1"), "ttl": nv("1700000000"), "data": sv(strings.Repeat("x", 9000))}
	if err := s.PutItems("us-east-1", "events", []map[string]types.AttributeValue{it}); err != nil {
		t.Fatal(err)
	}
	size, err := ItemSize(it)
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": sv("a"), "sk": nv("1")}
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("events"), Key: key, ProjectionExpression: aws.String("#t, pk"),
		ExpressionAttributeNames: map[string]string{"#t": "ttl"}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Item) != 2 || out.Item["ttl"] == nil || out.Item["pk"] == nil {
		t.Fatalf("projected item %v", out.Item)
	}
	// The whole item (9 KB: 3 units of 4 KB) is charged, eventually consistent.
	if want := float64((size+4095)/4096) / 2; *out.ConsumedCapacity.CapacityUnits != want {
		t.Fatalf("consumed %v, want %v", *out.ConsumedCapacity.CapacityUnits, want)
	}
	for _, tc := range []struct {
		expr  string
		names map[string]string
		want  string
	}{
		{"ttl", nil, "reserved keyword: ttl"},
		{"pk, #x", map[string]string{"#x": "data", "#y": "other"}, "unused in expressions: keys: {#y}"},
		{"#nope", map[string]string{"#x": "data"}, "attribute name used in the document path is not defined"},
		{"m.inner", nil, "not simulated"},
		{"l[0]", nil, "not simulated"},
		{"pk, pk", nil, "overlap"},
	} {
		_, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("events"), Key: key, ProjectionExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names})
		if msg := wantAPIError(t, err, "ValidationException"); !strings.Contains(msg, tc.want) {
			t.Errorf("%q: message %q, want %q", tc.expr, msg, tc.want)
		}
	}
}
