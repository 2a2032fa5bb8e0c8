package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBuiltinsRun loads every shipped scenario and runs it for a few
// simulated hours through a real server.
func TestBuiltinsRun(t *testing.T) {
	names := BuiltinNames()
	if len(names) < 12 {
		t.Fatalf("built-in scenarios %v: want the 10 failure modes and control, the faults and the demo", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc := builtin(t, name)
			if sc.Name != name {
				t.Errorf("scenario name %q, want %q", sc.Name, name)
			}
			r := newRig(t, sc)
			r.advance(t, 3*time.Hour)
			for _, table := range r.eng.Tables() {
				ddb := r.ddb
				if region, tb, ok := strings.Cut(table, "/"); ok {
					// An account of several regions names region/table.
					ddb, table = r.ddbIn(region), tb
				}
				if _, err := ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err != nil && name != "exporter-faults" {
					t.Errorf("DescribeTable %s: %v", table, err)
				}
			}
		})
	}
}

func TestDemoHoldsEveryFailureMode(t *testing.T) {
	demo := builtin(t, "demo")
	var want []string
	for _, name := range BuiltinNames() {
		if name == "demo" || name == "exporter-faults" {
			continue
		}
		for _, tb := range builtin(t, name).Tables {
			want = append(want, tb.Name)
		}
	}
	var got []string
	for _, tb := range demo.Tables {
		got = append(got, tb.Name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("demo tables %v, want %v", got, want)
	}
}

func TestAutoscalingSpike(t *testing.T) {
	r := newRig(t, builtin(t, "autoscaling-spike"))
	start := r.eng.Start()
	r.advance(t, 2*time.Hour+20*time.Minute)
	const table = "tickets-spike"
	if n := r.sum(t, table, "ReadThrottleEvents", start.Add(-time.Hour), start.Add(2*time.Hour), 60); n != 0 {
		t.Errorf("throttle events before the spike: %v, want none", n)
	}
	during := r.sum(t, table, "ReadProvisionedThroughputThrottleEvents", start.Add(2*time.Hour), start.Add(2*time.Hour+20*time.Minute), 60)
	if during == 0 {
		t.Errorf("no provisioned-throughput throttles during the 10x spike")
	}
	d := r.describe(t, table)
	pt := d.Table.ProvisionedThroughput
	if got := aws.ToInt64(pt.ReadCapacityUnits); got != 1000 {
		t.Errorf("read capacity during the spike %d, want the auto-scaling max 1000", got)
	}
	if pt.LastIncreaseDateTime == nil || pt.LastIncreaseDateTime.Before(start.Add(2*time.Hour)) {
		t.Errorf("LastIncreaseDateTime %v, want during the spike", pt.LastIncreaseDateTime)
	}
	// Scale-out waits for 2 minutes above target and the 5-minute delay.
	for _, ev := range r.eng.ScalingEvents(table) {
		if ev.Index == "" && ev.Read && ev.To > ev.From && ev.Effective.After(start.Add(2*time.Hour)) {
			if lag := ev.Effective.Sub(start.Add(2 * time.Hour)); lag < 7*time.Minute {
				t.Errorf("first scale-out effective %v after the spike began, want at least 2m + 5m", lag)
			}
			break
		}
	}
}

func TestBillingSwitchChurn(t *testing.T) {
	r := newRig(t, builtin(t, "billing-switch-churn"))
	const table = "reports-churn"
	start := r.eng.Start()
	// Four switches to on-demand in the last 24 hours: a fifth by the API
	// is refused now.
	ctx := context.Background()
	_, err := r.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), BillingMode: ddbtypes.BillingModePayPerRequest})
	if code := apiCode(err); code != "LimitExceededException" {
		t.Fatalf("fifth switch by the API: error %v, want LimitExceededException", err)
	}
	r.advance(t, 2*time.Hour)
	var refused *SwitchResult
	for _, s := range r.eng.SwitchResults(table) {
		if s.At.Equal(start.Add(time.Hour)) {
			refused = &s
		}
	}
	if refused == nil || refused.ErrorCode != "LimitExceededException" {
		t.Fatalf("scheduled switch at +1h: %+v, want refused with LimitExceededException", refused)
	}
	d := r.describe(t, table)
	if m := d.Table.BillingModeSummary.BillingMode; m != ddbtypes.BillingModeProvisioned {
		t.Fatalf("billing mode after the refused switch %s, want PROVISIONED", m)
	}
	if last := d.Table.BillingModeSummary.LastUpdateToPayPerRequestDateTime; last == nil || !last.Equal(start.Add(-4*time.Hour)) {
		t.Errorf("LastUpdateToPayPerRequestDateTime %v, want the -4h switch", last)
	}
	r.advance(t, 90*time.Minute) // +3h30m: the -22h switch has aged out
	if m := r.describe(t, table).Table.BillingModeSummary.BillingMode; m != ddbtypes.BillingModePayPerRequest {
		t.Fatalf("billing mode after the +3h switch %s, want PAY_PER_REQUEST", m)
	}
	// No ProvisionedCapacityUnits while on-demand.
	_, vals := r.series(t, "ProvisionedReadCapacityUnits", map[string]string{"TableName": table}, "Average", start.Add(3*time.Hour), start.Add(3*time.Hour+30*time.Minute), 300)
	if len(vals) != 0 {
		t.Errorf("ProvisionedReadCapacityUnits while on-demand: %v", vals)
	}
}

func TestHotPartitionOnDemand(t *testing.T) {
	r := newRig(t, builtin(t, "hot-partition-on-demand"))
	start := r.eng.Start()
	r.advance(t, 2*time.Hour)
	const table = "profiles-hotkey"
	op := map[string]string{"TableName": table, "Operation": "GetItem"}
	_, before := r.series(t, "SuccessfulRequestLatency", op, "p99", start.Add(-5*time.Hour), start.Add(-4*time.Hour), 3600)
	_, during := r.series(t, "SuccessfulRequestLatency", op, "p99", start.Add(time.Hour), start.Add(2*time.Hour), 3600)
	if len(before) != 1 || len(during) != 1 || before[0] > 8 || during[0] < 40 {
		t.Errorf("GetItem p99 before %v ms, during the hot-key episode %v ms: want about 5 then about 50", before, during)
	}
	if n := r.sum(t, table, "ReadKeyRangeThroughputThrottleEvents", start.Add(time.Hour), start.Add(2*time.Hour), 60); n == 0 {
		t.Error("no key-range throttles during the hot-key episode")
	}
	for _, m := range []string{"ReadProvisionedThroughputThrottleEvents", "ReadMaxOnDemandThroughputThrottleEvents", "ReadAccountLimitThrottleEvents"} {
		if n := r.sum(t, table, m, start.Add(-24*time.Hour), start.Add(2*time.Hour), 3600); n != 0 {
			t.Errorf("%s = %v on an on-demand table, want none", m, n)
		}
	}
}

func TestTargetTooHigh(t *testing.T) {
	r := newRig(t, builtin(t, "target-too-high"))
	start := r.eng.Start()
	r.advance(t, time.Hour)
	// The daily rush recurs at the start: throttles on scale-out.
	if n := r.sum(t, "carts-target90", "ReadProvisionedThroughputThrottleEvents", start, start.Add(time.Hour), 60); n == 0 {
		t.Error("no throttles during the rush with a 90% target")
	}
}

func TestSurgeNeverReevaluated(t *testing.T) {
	r := newRig(t, builtin(t, "surge-never-reevaluated"))
	start := r.eng.Start()
	const table = "feeds-surge"
	day := func(at time.Duration) float64 {
		return r.sum(t, table, "ConsumedReadCapacityUnits", start.Add(at), start.Add(at+7*24*time.Hour), 3600)
	}
	before, surge, now := day(-10*7*24*time.Hour), day(-6*7*24*time.Hour+6*time.Hour), day(-7*24*time.Hour)
	if ratio := now / surge; ratio < 0.7 {
		t.Errorf("retention now/surge week = %.2f, want >= 0.7", ratio)
	}
	if shift := now / before; shift < 15 {
		t.Errorf("baseline shift %.1fx, want a permanent shift (>15x)", shift)
	}
	d := r.describe(t, table)
	if d.Table.BillingModeSummary.BillingMode != ddbtypes.BillingModePayPerRequest {
		t.Errorf("billing mode %s, want PAY_PER_REQUEST", d.Table.BillingModeSummary.BillingMode)
	}
}

func TestOnDemandSustained(t *testing.T) {
	r := newRig(t, builtin(t, "on-demand-sustained"))
	start := r.eng.Start()
	_, vals := r.series(t, "ConsumedReadCapacityUnits", map[string]string{"TableName": "ledger-sustained"}, "Sum", start.Add(-7*24*time.Hour), start, 60)
	var peak, total float64
	for _, v := range vals {
		peak, total = max(peak, v), total+v
	}
	if ratio := peak / (total / float64(len(vals))); ratio > 1.3 {
		t.Errorf("peak/average %.2f, want a flat workload", ratio)
	}
}

func TestHealthyControl(t *testing.T) {
	r := newRig(t, builtin(t, "healthy"))
	start := r.eng.Start()
	r.advance(t, 3*time.Hour)
	for _, m := range []string{"ReadThrottleEvents", "WriteThrottleEvents"} {
		if n := r.sum(t, "catalog-healthy", m, start.Add(-14*24*time.Hour), start.Add(3*time.Hour), 3600); n != 0 {
			t.Errorf("%s = %v on the healthy table", m, n)
		}
	}
	if n := r.sum(t, "catalog-healthy", "TimeToLiveDeletedItemCount", start.Add(-24*time.Hour), start, 3600); n < 200 || n > 400 {
		t.Errorf("TTL deletions in a day = %v, want about the 288 items written a day", n)
	}
}

// ttlValues classifies the stored TTL values of a table.
func ttlValues(t *testing.T, r *rig, table, attr string) (numbers, strs, millis, expired int) {
	t.Helper()
	items, err := r.srv.Items("us-east-1", table)
	if err != nil {
		t.Fatal(err)
	}
	now := r.clk.Now().Unix()
	for _, it := range items {
		switch v := it[attr].(type) {
		case *ddbtypes.AttributeValueMemberS:
			strs++
		case *ddbtypes.AttributeValueMemberN:
			if len(v.Value) >= 13 {
				millis++
				continue
			}
			numbers++
			var n int64
			for _, c := range v.Value {
				n = n*10 + int64(c-'0')
			}
			if n < now {
				expired++
			}
		}
	}
	return
}

func TestTTLWrongFormatNeverDeleted(t *testing.T) {
	sc := builtin(t, "ttl-wrong-format")
	r := newRig(t, sc)
	const table = "sessions-ttl-format"
	_, s0, ms0, _ := ttlValues(t, r, table, "expires_at")
	r.advance(t, 6*time.Hour)
	_, s1, ms1, _ := ttlValues(t, r, table, "expires_at")
	if s1 != s0 || s0 != 600 {
		t.Errorf("String TTL items %d then %d, want all 600 kept", s0, s1)
	}
	if ms1 < ms0 || ms0 < 1500 {
		t.Errorf("millisecond TTL items %d then %d, want none deleted", ms0, ms1)
	}
	if n := r.sum(t, table, "TimeToLiveDeletedItemCount", r.eng.HistoryStart(), r.clk.Now(), 3600); n != 0 {
		t.Errorf("TimeToLiveDeletedItemCount = %v, want 0: nothing valid has expired", n)
	}
}

func TestTTLExpiredBacklog(t *testing.T) {
	r := newRig(t, builtin(t, "ttl-expired-backlog"))
	numbers, _, _, expired := ttlValues(t, r, "coupons-ttl-backlog", "expires_at")
	if live := numbers - expired; expired < 3*live {
		t.Errorf("expired-but-stored items %d vs live %d: want a backlog", expired, live)
	}
}

func TestTTLRetentionTooShort(t *testing.T) {
	r := newRig(t, builtin(t, "ttl-retention-too-short"))
	start := r.eng.Start()
	r.advance(t, 2*time.Hour)
	n := r.sum(t, "orders-ttl-retention", "TimeToLiveDeletedItemCount", start, start.Add(2*time.Hour), 300)
	if n < 200 || n > 280 {
		t.Errorf("TTL deletions in 2h = %v, want about every item written (240)", n)
	}
	if old := r.sum(t, "orders-ttl-retention", "TimeToLiveDeletedItemCount", start.Add(-10*24*time.Hour), start.Add(-3*24*time.Hour), 3600); old != 0 {
		t.Errorf("TTL deletions before the bad release = %v, want 0", old)
	}
}

func TestExporterFaults(t *testing.T) {
	r := newRig(t, builtin(t, "exporter-faults"))
	start := r.eng.Start()
	ctx := context.Background()
	if _, err := r.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("faults-secret")}); apiCode(err) != "AccessDeniedException" {
		t.Errorf("DescribeTable faults-secret: %v, want AccessDeniedException", err)
	}
	r.clk.Set(start.Add(35 * time.Minute))
	metric := map[string]string{"TableName": "faults-orders"}
	if _, err := r.cwGet(metric); apiCode(err) != "Throttling" && apiCode(err) != "ThrottlingException" {
		t.Errorf("GetMetricData at +35m: %v, want throttling", err)
	}
	r.clk.Set(start.Add(45 * time.Minute))
	if _, err := r.cwGet(metric); err != nil {
		t.Errorf("GetMetricData at +45m: %v", err)
	}
	r.clk.Set(start.Add(62 * time.Minute))
	if _, err := r.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("faults-orders")}); apiCode(err) != "InternalServerError" {
		t.Errorf("DescribeTable at +62m: %v, want a 5xx", err)
	}
	r.clk.Set(start.Add(2*time.Hour + time.Minute))
	if _, err := r.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("faults-temp")}); apiCode(err) != "ResourceNotFoundException" {
		t.Errorf("DescribeTable of the deleted table: %v, want ResourceNotFoundException", err)
	}
	r.clk.Set(start.Add(3 * time.Hour))
	if n := r.sum(t, "faults-temp", "ConsumedReadCapacityUnits", start.Add(2*time.Hour), start.Add(3*time.Hour), 60); n != 0 {
		t.Errorf("consumed capacity of the deleted table after deletion: %v", n)
	}
}

// TestGSIBackfillThrottled: the index being added is CREATING with
// Backfilling true, its build throttles (80 WCU serve the table's 50 units/s
// first, the build gets 30 of the 150 it asks), its progress climbs 0.36
// points a minute, and it is ACTIVE once the build ends (about +3h38m).
func TestGSIBackfillThrottled(t *testing.T) {
	r := newRig(t, builtin(t, "gsi-backfill-throttled"))
	start := r.eng.Start()
	g := r.describe(t, "orders-gsi-backfill").Table.GlobalSecondaryIndexes[0]
	if g.IndexStatus != ddbtypes.IndexStatusCreating || !aws.ToBool(g.Backfilling) {
		t.Fatalf("by-customer at the start: %s backfilling %v, want CREATING and true", g.IndexStatus, g.Backfilling)
	}
	r.advance(t, time.Hour)
	dims := map[string]string{"TableName": "orders-gsi-backfill", "GlobalSecondaryIndexName": "by-customer"}
	if _, vs := r.series(t, "OnlineIndexThrottleEvents", dims, "Sum", start, start.Add(time.Hour), 60); len(vs) != 60 || vs[0] != 7200 {
		t.Errorf("OnlineIndexThrottleEvents over the first hour: %d minutes, first %v; want 60 of 7,200 (120 units/s)", len(vs), vs)
	}
	if _, vs := r.series(t, "OnlineIndexPercentageProgress", dims, "Maximum", start, start.Add(time.Hour), 60); len(vs) != 60 || !(vs[0] > 21 && vs[59] < 44) {
		t.Errorf("OnlineIndexPercentageProgress over the first hour: %v, want 60 minutes from about 22%% to 43%%", vs)
	}
	r.advance(t, 3*time.Hour)
	g = r.describe(t, "orders-gsi-backfill").Table.GlobalSecondaryIndexes[0]
	if g.IndexStatus != ddbtypes.IndexStatusActive || g.Backfilling == nil || *g.Backfilling {
		t.Errorf("by-customer at +4h: %s backfilling %v, want ACTIVE and false", g.IndexStatus, g.Backfilling)
	}
}
