package awssim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestUpdateTimeToLiveRules(t *testing.T) {
	_, clk, c := dataServer(t, Table{Name: "plain"}, Table{Name: "slow", TTLTransition: 10 * time.Minute})
	ctx := context.Background()
	update := func(table string, enabled bool, attr string) error {
		_, err := c.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(enabled), AttributeName: aws.String(attr)},
		})
		return err
	}
	status := func(table string) (types.TimeToLiveStatus, string) {
		t.Helper()
		out, err := c.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		return out.TimeToLiveDescription.TimeToLiveStatus, aws.ToString(out.TimeToLiveDescription.AttributeName)
	}
	wantMsg := func(err error, want string) {
		t.Helper()
		if msg := wantAPIError(t, err, "ValidationException"); msg != want {
			t.Fatalf("message %q, want %q", msg, want)
		}
	}

	wantMsg(update("plain", false, "ttl"), "TimeToLive is already disabled")
	if err := update("plain", true, "ttl"); err != nil {
		t.Fatal(err)
	}
	if st, attr := status("plain"); st != types.TimeToLiveStatusEnabled || attr != "ttl" {
		t.Fatalf("after enabling: %s %s", st, attr)
	}
	wantMsg(update("plain", true, "ttl"), "TimeToLive is already enabled")
	wantMsg(update("plain", false, "ttl"), "Time to live has been modified multiple times within a fixed interval")
	clk.Advance(59 * time.Minute)
	wantMsg(update("plain", false, "ttl"), "Time to live has been modified multiple times within a fixed interval")
	clk.Advance(time.Minute)
	if err := update("plain", false, "ttl"); err != nil {
		t.Fatal(err)
	}
	if st, _ := status("plain"); st != types.TimeToLiveStatusDisabled {
		t.Fatalf("after disabling: %s", st)
	}
	_, err := c.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("missing"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("ttl")}})
	wantAPIError(t, err, "ResourceNotFoundException")

	// A table with a transition passes through ENABLING.
	if err := update("slow", true, "exp"); err != nil {
		t.Fatal(err)
	}
	if st, attr := status("slow"); st != types.TimeToLiveStatusEnabling || attr != "exp" {
		t.Fatalf("during the transition: %s %s", st, attr)
	}
	clk.Advance(10 * time.Minute)
	if st, _ := status("slow"); st != types.TimeToLiveStatusEnabled {
		t.Fatalf("after the transition: %s", st)
	}
}

func TestTTLDeletesLateAndOnlyValidSeconds(t *testing.T) {
	s, clk, c := dataServer(t, compositeTable)
	ctx := context.Background()
	now := t0.Unix()
	sec := func(v int64) types.AttributeValue { return nv(fmt.Sprint(v)) }
	items := map[string]types.AttributeValue{
		"expired":      sec(now - 3600),
		"expired-4y":   sec(t0.AddDate(-4, 0, 0).Unix()),
		"fractional":   nv(fmt.Sprintf("%d.75", now-60)),
		"future":       sec(now + 10*3600),
		"string":       sv(fmt.Sprint(now - 3600)),
		"milliseconds": sec((now - 3600) * 1000),
		"too-old":      sec(t0.AddDate(-6, 0, 0).Unix()),
		"nested": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"expires_at": sec(now - 3600),
		}},
		"zero": sec(0),
	}
	var load []map[string]types.AttributeValue
	for name, v := range items {
		it := map[string]types.AttributeValue{"pk": sv(name), "sk": nv("1")}
		if name == "nested" {
			it["meta"] = v
		} else {
			it["expires_at"] = v
		}
		load = append(load, it)
	}
	if err := s.PutItems("us-east-1", "events", load); err != nil {
		t.Fatal(err)
	}
	present := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, p := range scanAll(t, c.ddb, dynamodb.ScanInput{TableName: aws.String("events")}) {
			for _, it := range p.Items {
				out[it["pk"].(*types.AttributeValueMemberS).Value] = true
			}
		}
		return out
	}
	never := []string{"string", "milliseconds", "too-old", "nested", "zero"}

	clk.Set(t0.Add(DefaultTTLDeletionDelay - time.Second))
	if got := present(); len(got) != len(items) {
		t.Fatalf("before the deletion delay only %d of %d items remain", len(got), len(items))
	}
	// Deletion is due the delay after the item became eligible: here when
	// it was written, since every value had passed by then.
	clk.Set(t0.Add(DefaultTTLDeletionDelay))
	got := present()
	for _, gone := range []string{"expired", "expired-4y", "fractional"} {
		if got[gone] {
			t.Errorf("%s still present after the delay", gone)
		}
	}
	if !got["future"] {
		t.Error("future item deleted early")
	}
	clk.Set(t0.Add(10*time.Hour + DefaultTTLDeletionDelay))
	if present()["future"] {
		t.Error("future item not deleted the delay after its TTL")
	}
	clk.Set(t0.AddDate(10, 0, 0))
	got = present()
	for _, keep := range never {
		if !got[keep] {
			t.Errorf("%s was deleted; TTL never deletes it", keep)
		}
	}
	if len(got) != len(never) {
		t.Fatalf("remaining %v", got)
	}

	// CloudWatch sees each deletion at the minute it happened.
	out, err := c.cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(72 * time.Hour)),
		ScanBy: cwtypes.ScanByTimestampAscending,
		MetricDataQueries: []cwtypes.MetricDataQuery{query("d", Metric{Namespace: NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount",
			Dimensions: []Dimension{{"TableName", "events"}}}, 60, "Sum")},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := out.MetricDataResults[0]
	want := fmt.Sprint([]time.Time{t0.Add(DefaultTTLDeletionDelay), t0.Add(10*time.Hour + DefaultTTLDeletionDelay)}, []float64{3, 1})
	if fmt.Sprint(r.Timestamps, r.Values) != want {
		t.Fatalf("TimeToLiveDeletedItemCount %v %v, want %s", r.Timestamps, r.Values, want)
	}
}

func TestTTLDeletionDelayJitterAndEnabling(t *testing.T) {
	tb := compositeTable
	tb.Name = "jittery"
	tb.TTL = TimeToLive{Status: TTLDisabled}
	tb.TTLDeletionDelay = time.Hour
	tb.TTLDeletionJitter = time.Hour
	s, clk, c := dataServer(t, tb)
	var load []map[string]types.AttributeValue
	for i := range 200 {
		load = append(load, map[string]types.AttributeValue{"pk": sv(fmt.Sprint("k", i)), "sk": nv("1"), "expires_at": nv(fmt.Sprint(t0.Unix() - 60))})
	}
	if err := s.PutItems("us-east-1", "jittery", load); err != nil {
		t.Fatal(err)
	}
	// TTL disabled: nothing is ever deleted.
	clk.Advance(24 * time.Hour)
	if n := s.SweepTTL("us-east-1"); n != 0 {
		t.Fatalf("deleted %d items with TTL disabled", n)
	}
	enabledAt := clk.Now()
	if _, err := c.ddb.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("jittery"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires_at")}}); err != nil {
		t.Fatal(err)
	}
	// Deletions spread over [enabledAt+1h, enabledAt+2h).
	clk.Set(enabledAt.Add(time.Hour - time.Second))
	if n := s.SweepTTL("us-east-1"); n != 0 {
		t.Fatalf("%d deletions before the delay", n)
	}
	clk.Set(enabledAt.Add(90 * time.Minute))
	first := s.SweepTTL("us-east-1")
	clk.Set(enabledAt.Add(2 * time.Hour))
	rest := s.SweepTTL("us-east-1")
	if first < 50 || first > 150 || first+rest != 200 {
		t.Fatalf("jittered deletions: %d in the first half hour, %d after", first, rest)
	}
	var sum float64
	for _, dp := range s.Metrics().Datapoints("us-east-1", Metric{Namespace: NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount", Dimensions: []Dimension{{"TableName", "jittery"}}}, enabledAt, clk.Now()) {
		if dp.Time.Before(enabledAt.Add(time.Hour)) || !dp.Time.Before(enabledAt.Add(2*time.Hour)) {
			t.Fatalf("deletion counted at %v", dp.Time)
		}
		sum += dp.Sum
	}
	if sum != 200 {
		t.Fatalf("metric counts %v deletions", sum)
	}
	if tbl, _ := s.Table("us-east-1", "jittery"); !strings.EqualFold(tbl.TTL.Status, TTLEnabled) || !tbl.TTL.LastModified.Equal(enabledAt) {
		t.Fatalf("table TTL %+v", tbl.TTL)
	}
}

// TestSweepTTLUntil: the deletions of one table due by a time are applied
// and counted at their due minutes, none later than the server clock, and
// a table the region does not hold is ignored.
func TestSweepTTLUntil(t *testing.T) {
	tb := compositeTable
	tb.Name = "swept"
	tb.TTL = TimeToLive{Status: TTLEnabled, AttributeName: "expires_at"}
	tb.TTLDeletionDelay = -1 // deleted as soon as expired
	s, clk, _ := dataServer(t, tb)
	var load []map[string]types.AttributeValue
	for i := range 4 {
		// Expiring at t0+10m, +20m, +30m and +40m.
		load = append(load, map[string]types.AttributeValue{"pk": sv(fmt.Sprint("k", i)), "sk": nv("1"), "expires_at": nv(fmt.Sprint(t0.Add(time.Duration(i+1) * 10 * time.Minute).Unix()))})
	}
	if err := s.PutItems("us-east-1", "swept", load); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(35 * time.Minute))
	// The deletions counted so far (reading the items would settle the
	// table up to the clock).
	counted := func() []time.Time {
		var at []time.Time
		for _, dp := range s.Metrics().Datapoints("us-east-1", Metric{Namespace: NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount", Dimensions: []Dimension{{"TableName", "swept"}}}, t0, t0.Add(time.Hour)) {
			for range int(dp.Sum) {
				at = append(at, dp.Time)
			}
		}
		slices.SortFunc(at, time.Time.Compare)
		return at
	}
	s.SweepTTLUntil("us-east-1", "swept", t0.Add(25*time.Minute))
	s.SweepTTLUntil("us-east-1", "absent", t0.Add(25*time.Minute))
	s.SweepTTLUntil("ap-south-1", "swept", t0.Add(25*time.Minute))
	if got, want := counted(), []time.Time{t0.Add(10 * time.Minute), t0.Add(20 * time.Minute)}; !slices.Equal(got, want) {
		t.Fatalf("sweeping to +25m deleted at %v, want %v", got, want)
	}
	// Beyond the server clock (+35m): only the third falls due.
	s.SweepTTLUntil("us-east-1", "swept", t0.Add(time.Hour))
	if got, want := counted(), []time.Time{t0.Add(10 * time.Minute), t0.Add(20 * time.Minute), t0.Add(30 * time.Minute)}; !slices.Equal(got, want) {
		t.Fatalf("sweeping past the clock deleted at %v, want %v", got, want)
	}
	if items, err := s.Items("us-east-1", "swept"); err != nil || len(items) != 1 {
		t.Fatalf("%d items left (%v), want 1", len(items), err)
	}
}
