package awssim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// loadItems stores n items over partitions partition keys ("p0".."pN",
// sort keys 0..) with a payload of pad bytes, and returns them.
func loadItems(t *testing.T, s *Server, n, partitions, pad int) []map[string]types.AttributeValue {
	t.Helper()
	items := make([]map[string]types.AttributeValue, n)
	for i := range n {
		items[i] = map[string]types.AttributeValue{
			"pk":      sv(fmt.Sprintf("p%d", i%partitions)),
			"sk":      nv(fmt.Sprint(i / partitions)),
			"payload": sv(strings.Repeat("x", pad)),
			"n":       nv(fmt.Sprint(i)),
		}
	}
	if err := s.PutItems("us-east-1", "events", items); err != nil {
		t.Fatal(err)
	}
	return items
}

// idOf identifies an item by its "n" attribute.
func idOf(it map[string]types.AttributeValue) string {
	return it["n"].(*types.AttributeValueMemberN).Value
}

// scanAll pages through one segment (or the table when total is 0) and
// returns every page.
func scanAll(t *testing.T, ddb *dynamodb.Client, in dynamodb.ScanInput) []*dynamodb.ScanOutput {
	t.Helper()
	var pages []*dynamodb.ScanOutput
	for {
		out, err := ddb.Scan(context.Background(), &in)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, out)
		if out.LastEvaluatedKey == nil {
			return pages
		}
		if len(pages) > 10000 {
			t.Fatal("scan does not end")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func TestScanPaginatesByLimit(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	loadItems(t, s, 25, 5, 10)
	pages := scanAll(t, c.ddb, dynamodb.ScanInput{TableName: aws.String("events"), Limit: aws.Int32(10)})
	var sizes []int32
	seen := map[string]bool{}
	for _, p := range pages {
		sizes = append(sizes, p.Count)
		if p.Count != p.ScannedCount || int(p.Count) != len(p.Items) {
			t.Fatalf("count %d scanned %d items %d", p.Count, p.ScannedCount, len(p.Items))
		}
		for _, it := range p.Items {
			seen[idOf(it)] = true
		}
	}
	if fmt.Sprint(sizes) != "[10 10 5]" || len(seen) != 25 {
		t.Fatalf("page sizes %v, %d distinct items", sizes, len(seen))
	}
	// A page that stops at the limit has a LastEvaluatedKey even when no
	// item follows; the next page is then empty.
	pages = scanAll(t, c.ddb, dynamodb.ScanInput{TableName: aws.String("events"), Limit: aws.Int32(25)})
	if len(pages) != 2 || pages[0].Count != 25 || pages[1].Count != 0 || pages[1].Items == nil {
		t.Fatalf("%d pages", len(pages))
	}
	// Within a partition, items come in sort key order.
	all, err := s.Items("us-east-1", "events")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(all); i++ {
		if all[i]["pk"].(*types.AttributeValueMemberS).Value == all[i-1]["pk"].(*types.AttributeValueMemberS).Value &&
			all[i]["sk"].(*types.AttributeValueMemberN).Value < all[i-1]["sk"].(*types.AttributeValueMemberN).Value {
			t.Fatal("sort keys out of order")
		}
	}
}

func TestScanPagesStopAtOneMegabyteAndChargeEvaluatedBytes(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	items := loadItems(t, s, 30, 30, 100_000)
	sizes := map[string]int64{}
	var total int64
	for _, it := range items {
		n, err := ItemSize(it)
		if err != nil {
			t.Fatal(err)
		}
		sizes[idOf(it)] = n
		total += n
	}
	for _, consistent := range []bool{false, true} {
		in := dynamodb.ScanInput{
			TableName: aws.String("events"), ConsistentRead: aws.Bool(consistent),
			// The projection does not change what is charged.
			ProjectionExpression:   aws.String("n"),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		}
		pages := scanAll(t, c.ddb, in)
		var got int64
		for i, p := range pages {
			var bytes, last int64
			for _, it := range p.Items {
				if len(it) != 1 {
					t.Fatalf("projection returned %d attributes", len(it))
				}
				last = sizes[idOf(it)]
				bytes += last
			}
			got += bytes
			if p.LastEvaluatedKey != nil && (bytes < scanPageBytes || bytes-last >= scanPageBytes) {
				t.Fatalf("page %d evaluated %d bytes: not stopped by the item crossing 1 MB", i, bytes)
			}
			want := float64((max(bytes, 1) + 4095) / 4096)
			if !consistent {
				want /= 2
			}
			cc := p.ConsumedCapacity
			if *cc.CapacityUnits != want || *cc.Table.CapacityUnits != want || *cc.TableName != "events" {
				t.Fatalf("page %d (%d bytes, consistent %v): consumed %v, want %v", i, bytes, consistent, *cc.CapacityUnits, want)
			}
		}
		if got != total || len(pages) != 3 {
			t.Fatalf("%d pages evaluated %d bytes, want 3 pages and %d", len(pages), got, total)
		}
	}
	// The request log charges every Scan, whether or not it asked for its
	// consumed capacity (the bench counts the TTL sampler's reads from it).
	s.ResetRequests()
	pages := scanAll(t, c.ddb, dynamodb.ScanInput{TableName: aws.String("events")})
	want := 0.0
	for _, p := range pages {
		if p.ConsumedCapacity != nil {
			t.Fatal("consumed capacity returned without ReturnConsumedCapacity")
		}
		var bytes int64
		for _, it := range p.Items {
			bytes += sizes[idOf(it)]
		}
		want += float64((max(bytes, 1)+4095)/4096) / 2
	}
	logged := 0.0
	for _, r := range s.Requests() {
		if r.Operation == "Scan" {
			logged += r.ReadUnits
		}
	}
	if logged != want || want == 0 {
		t.Fatalf("request log charged %v read units for the scan, want %v", logged, want)
	}
}

func TestParallelScanReturnsEveryItemOnceAndKeepsPartitionsTogether(t *testing.T) {
	s, _, c := dataServer(t, compositeTable)
	items := loadItems(t, s, 3000, 600, 1)
	for _, total := range []int32{1, 7, 64, 1000} {
		seen := map[string]int{}
		segOfPK := map[string]int32{}
		perSeg := make([]int, total)
		for seg := range total {
			pages := scanAll(t, c.ddb, dynamodb.ScanInput{
				TableName: aws.String("events"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(40),
			})
			for _, p := range pages {
				for _, it := range p.Items {
					seen[idOf(it)]++
					perSeg[seg]++
					pk := it["pk"].(*types.AttributeValueMemberS).Value
					if prev, ok := segOfPK[pk]; ok && prev != seg {
						t.Fatalf("N=%d: partition key in segments %d and %d", total, prev, seg)
					}
					segOfPK[pk] = seg
				}
			}
		}
		if len(seen) != len(items) {
			t.Fatalf("N=%d: %d distinct items, want %d", total, len(seen), len(items))
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("N=%d: item %s returned %d times", total, id, n)
			}
		}
		if total == 7 {
			// 600 partitions of 5 items: about 430 items per segment.
			for seg, n := range perSeg {
				if n < 300 || n > 560 {
					t.Fatalf("segment %d of 7 holds %d items: segments are not even", seg, n)
				}
			}
		}
	}

	// A starting key of another segment is refused.
	first, err := c.ddb.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("events"), Segment: aws.Int32(0), TotalSegments: aws.Int32(4), Limit: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ddb.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("events"), Segment: aws.Int32(1), TotalSegments: aws.Int32(4), ExclusiveStartKey: first.LastEvaluatedKey})
	if msg := wantAPIError(t, err, "ValidationException"); !strings.Contains(msg, "Please use ExclusiveStartKey with correct Segment") {
		t.Fatalf("message %q", msg)
	}
}

func TestScanSelectAndValidation(t *testing.T) {
	s, _, c := dataServer(t, compositeTable, Table{Name: "empty", GSIs: []GlobalSecondaryIndex{{IndexName: "by-x"}}})
	loadItems(t, s, 12, 3, 1)
	ctx := context.Background()
	out, err := c.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("events"), Select: types.SelectCount, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if out.Items != nil || out.Count != 12 || out.ScannedCount != 12 || out.ConsumedCapacity.Table != nil {
		t.Fatalf("COUNT: items %v count %d scanned %d", out.Items, out.Count, out.ScannedCount)
	}
	out, err = c.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("events"), Select: types.SelectSpecificAttributes,
		ProjectionExpression: aws.String("#k, n, absent"), ExpressionAttributeNames: map[string]string{"#k": "pk"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if len(it) != 2 || it["pk"] == nil || it["n"] == nil {
			t.Fatalf("projected item %v", it)
		}
	}
	// An empty table still charges the minimum.
	out, err = c.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("empty"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || out.Count != 0 || *out.ConsumedCapacity.CapacityUnits != 0.5 {
		t.Fatalf("empty table: %v %+v", err, out)
	}

	tbl := aws.String("events")
	for _, tc := range []struct {
		in   dynamodb.ScanInput
		want string
	}{
		{dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(0)}, "TotalSegments parameter is required"},
		{dynamodb.ScanInput{TableName: tbl, TotalSegments: aws.Int32(2)}, "Segment parameter is required"},
		{dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(0), TotalSegments: aws.Int32(0)}, "Member must have value greater than or equal to 1"},
		{dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(0), TotalSegments: aws.Int32(1_000_001)}, "less than or equal to 1000000"},
		{dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(4), TotalSegments: aws.Int32(4)}, "Segment: 4 is not less than TotalSegments: 4"},
		{dynamodb.ScanInput{TableName: tbl, Limit: aws.Int32(0)}, "at 'limit'"},
		{dynamodb.ScanInput{TableName: tbl, FilterExpression: aws.String("n > :v")}, "not simulated"},
		{dynamodb.ScanInput{TableName: tbl, Select: types.SelectCount, ProjectionExpression: aws.String("n")}, "only the Count"},
		{dynamodb.ScanInput{TableName: tbl, Select: types.SelectAllProjectedAttributes}, "ALL_PROJECTED_ATTRIBUTES"},
		{dynamodb.ScanInput{TableName: aws.String("empty"), IndexName: aws.String("by-x")}, "Scan of an index is not simulated"},
		{dynamodb.ScanInput{TableName: aws.String("empty"), IndexName: aws.String("nope")}, "does not have the specified index"},
	} {
		_, err := c.ddb.Scan(ctx, &tc.in)
		if msg := wantAPIError(t, err, "ValidationException"); !strings.Contains(msg, tc.want) {
			t.Errorf("message %q, want %q", msg, tc.want)
		}
	}
	_, err = c.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("missing")})
	wantAPIError(t, err, "ResourceNotFoundException")
}

func TestDescribeTableCountsRefreshEverySixHours(t *testing.T) {
	s, clk, c := dataServer(t, compositeTable, Table{Name: "explicit", ItemCount: 42, SizeBytes: 4200})
	ctx := context.Background()
	describe := func(name string) (int64, int64) {
		t.Helper()
		out, err := c.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return *out.Table.ItemCount, *out.Table.TableSizeBytes
	}
	if n, b := describe("explicit"); n != 42 || b != 4200 {
		t.Fatalf("a table without items answers its configured counts, got %d %d", n, b)
	}
	items := loadItems(t, s, 10, 10, 5)
	var want int64
	for _, it := range items {
		n, _ := ItemSize(it)
		want += n
	}
	if n, b := describe("events"); n != 10 || b != want {
		t.Fatalf("first refresh: %d items %d bytes, want 10 and %d", n, b, want)
	}
	if _, err := s.DeleteItems("us-east-1", "events", []map[string]types.AttributeValue{{"pk": sv("p0"), "sk": nv("0")}}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5*time.Hour + 59*time.Minute) // 17:59, same window as 12:00
	if n, _ := describe("events"); n != 10 {
		t.Fatalf("counts changed within the 6-hour window: %d", n)
	}
	clk.Advance(time.Minute) // 18:00
	if n, _ := describe("events"); n != 9 {
		t.Fatalf("counts not refreshed at the boundary: %d", n)
	}
	if live, _, _ := s.ItemStats("us-east-1", "events"); live != 9 {
		t.Fatalf("ItemStats %d", live)
	}
}
