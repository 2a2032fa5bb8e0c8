package sim

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// scanAll returns every item of table through the SDK's paginated Scan.
func (r *rig) scanAll(t testing.TB, table string) []map[string]ddbtypes.AttributeValue {
	t.Helper()
	var out []map[string]ddbtypes.AttributeValue
	p := dynamodb.NewScanPaginator(r.ddb, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("Scan %s: %v", table, err)
		}
		out = append(out, page.Items...)
	}
	return out
}

// getItem returns the item with partition key pk through the SDK's GetItem.
func (r *rig) getItem(t testing.TB, table, pk string) (map[string]ddbtypes.AttributeValue, bool) {
	t.Helper()
	out, err := r.ddb.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]ddbtypes.AttributeValue{keyAttribute: &ddbtypes.AttributeValueMemberS{Value: pk}}})
	if err != nil {
		t.Fatalf("GetItem %s %s: %v", table, pk, err)
	}
	return out.Item, out.Item != nil
}

// classes counts the items of table by the class of their attr value.
func (r *rig) classes(t testing.TB, table, attr string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, it := range r.scanAll(t, table) {
		c, _, _ := readTTL(it[attr])
		n[c]++
	}
	return n
}

// streamItem returns the first item stream si wrote at or after at (a
// stream with a share below 1 skips some minutes), and its write minute.
func (r *rig) streamItem(t testing.TB, table string, at time.Time, si int) (map[string]ddbtypes.AttributeValue, time.Time) {
	t.Helper()
	for k := range 10 {
		m := at.Add(time.Duration(k) * time.Minute)
		pk := fmt.Sprintf("w%d-0", m.Unix()/60)
		if si > 0 {
			pk = fmt.Sprintf("w%d-s%d-0", m.Unix()/60, si)
		}
		if it, ok := r.getItem(t, table, pk); ok {
			return it, m
		}
	}
	t.Fatalf("no item of stream %d written within 10 minutes from %s", si, at.Format(time.RFC3339))
	return nil, time.Time{}
}

// numberAttr returns the Number value of attr in it, or fails.
func numberAttr(t testing.TB, it map[string]ddbtypes.AttributeValue, attr string) int64 {
	t.Helper()
	n, ok := it[attr].(*ddbtypes.AttributeValueMemberN)
	if !ok {
		t.Fatalf("attribute %s is %T, want a Number", attr, it[attr])
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTTLFormatDeploy runs ttl-format-deploy: milliseconds are written from
// +2h only (older items keep their seconds), the wrong-attribute stream
// never carries ttl, the +6h backfill converts the milliseconds to the
// same expiry in seconds, and the +8h copy of expiresAt into ttl makes TTL
// delete the expired mobile sessions in a burst.
func TestTTLFormatDeploy(t *testing.T) {
	r := newRig(t, builtin(t, "ttl-format-deploy"))
	const table = "sessions-ttl-deploy"
	start := r.eng.Start()

	r.advance(t, 110*time.Minute)
	if n := r.classes(t, table, "ttl")[ClassMilliseconds]; n != 0 {
		t.Errorf("%d millisecond items before the +2h deploy, want none", n)
	}
	mobile := 0
	for _, it := range r.scanAll(t, table) {
		if _, ok := it["expiresAt"]; ok {
			mobile++
			if _, ok := it["ttl"]; ok {
				t.Fatalf("item %v of the wrong-attribute stream carries ttl", it[keyAttribute])
			}
		}
	}
	// A fifth of 1 item a minute for 14 days and 110 minutes; TTL never
	// deletes them.
	if want := int(0.2 * (14*1440 + 110)); mobile < want-1 || mobile > want+1 {
		t.Errorf("%d items with expiresAt, want about %d (none deleted)", mobile, want)
	}

	r.advance(t, 4*time.Hour) // +5h50m
	c := r.classes(t, table, "ttl")
	// 0.8 a minute from +2h: 3h50m = 184 items, none deleted.
	if n := c[ClassMilliseconds]; n < 183 || n > 185 {
		t.Errorf("%d millisecond items at +5h50m, want 184 (0.8 a minute since +2h)", n)
	}
	old, at := r.streamItem(t, table, start.Add(-time.Hour), 0)
	if got, want := numberAttr(t, old, "ttl"), at.Add(24*time.Hour).Unix(); got != want {
		t.Errorf("item written at %s: ttl %d, want its seconds %d (older items keep their values)", at, got, want)
	}
	bad, badAt := r.streamItem(t, table, start.Add(3*time.Hour), 1)
	deployExpiry := badAt.Add(24 * time.Hour)
	if got := numberAttr(t, bad, "ttl"); got != deployExpiry.UnixMilli() {
		t.Errorf("item written at %s: ttl %d, want milliseconds %d", badAt, got, deployExpiry.UnixMilli())
	}

	r.advance(t, 80*time.Minute) // +7h10m: after the conversion
	if n := r.classes(t, table, "ttl")[ClassMilliseconds]; n != 0 {
		t.Errorf("%d millisecond items after the +6h backfill, want none", n)
	}
	bad, _ = r.streamItem(t, table, badAt, 1)
	if got := numberAttr(t, bad, "ttl"); got != deployExpiry.Unix() {
		t.Errorf("item written at +3h after the backfill: ttl %d, want the same expiry in seconds %d", got, deployExpiry.Unix())
	}

	r.advance(t, 5*time.Hour) // +12h10m
	before := r.sum(t, table, "TimeToLiveDeletedItemCount", start.Add(4*time.Hour), start.Add(8*time.Hour), 60)
	burst := r.sum(t, table, "TimeToLiveDeletedItemCount", start.Add(8*time.Hour), start.Add(12*time.Hour), 60)
	// The copy gives ttl to 13d8h of mobile sessions already expired by
	// more than the deletion delay: about 0.2 × 19,200 = 3,840 deletions.
	if burst < 3500 || burst > 4500 || before > 300 {
		t.Errorf("TTL deletions +4h..+8h %v, +8h..+12h %v: want a burst of about 3,840 after the +8h backfill", before, burst)
	}
	// Mobile items written before +8h carry their expiry in ttl too, and
	// none expired more than the deletion delay and jitter (3h) ago is
	// left; later ones still lack ttl (the writer was not fixed).
	copied := 0
	for _, it := range r.scanAll(t, table) {
		if _, ok := it["expiresAt"]; !ok {
			continue
		}
		expiresAt := time.Unix(numberAttr(t, it, "expiresAt"), 0)
		_, ttl, ok := readTTL(it["ttl"])
		switch written := expiresAt.Add(-24 * time.Hour); {
		case written.Before(start.Add(8 * time.Hour)):
			copied++
			if !ok || !ttl.Equal(expiresAt) || ttl.Add(3*time.Hour).Before(r.clk.Now()) {
				t.Fatalf("mobile item %v written %s: ttl %v, want expiresAt's %s and deleted 3h after", it[keyAttribute], written, it["ttl"], expiresAt)
			}
		case ok:
			t.Fatalf("mobile item %v written %s after the backfill carries ttl", it[keyAttribute], written)
		}
	}
	if copied < 200 {
		t.Errorf("%d mobile items with a copied ttl left, want the last day's (about 0.2 × 1,440)", copied)
	}
}

// TestTTLRetentionCollapse runs ttl-retention-collapse: no TTL deletions
// while every item keeps 30 days, a jump to the write rate once the +1h
// release writes 30-minute values, none after the +5h rollback and
// backfill, and items written before the release untouched until then.
func TestTTLRetentionCollapse(t *testing.T) {
	r := newRig(t, builtin(t, "ttl-retention-collapse"))
	const table = "orders-ttl-collapse"
	start := r.eng.Start()
	r.advance(t, 8*time.Hour)
	del := func(from, to time.Duration) float64 {
		return r.sum(t, table, "TimeToLiveDeletedItemCount", start.Add(from), start.Add(to), 60)
	}
	if n := del(-10*24*time.Hour, time.Hour+30*time.Minute); n != 0 {
		t.Errorf("%v TTL deletions before the collapse, want none (30-day retention on a 10-day-old table)", n)
	}
	// 2 items a minute expire 30 minutes after being written and are
	// deleted 10 to 30 minutes later: the deletions reach the write rate.
	if n := del(2*time.Hour, 5*time.Hour); n < 330 || n > 370 {
		t.Errorf("%v TTL deletions from +2h to +5h, want about 360 (the write rate)", n)
	}
	if n := del(5*time.Hour, 8*time.Hour); n != 0 {
		t.Errorf("%v TTL deletions after the +5h rollback and backfill, want none", n)
	}
	if _, ok := r.getItem(t, table, fmt.Sprintf("w%d-s1-0", start.Add(2*time.Hour).Unix()/60)); ok {
		t.Error("the order written at +2h (30-minute retention) still exists")
	}
	// An order of the release written at +4h50m was to expire at +5h20m;
	// the backfill at +5h gave it, as every order, 30 days from +5h.
	for _, c := range []struct {
		at time.Duration
		si int
	}{{-24 * time.Hour, 0}, {4*time.Hour + 50*time.Minute, 1}} {
		it, at := r.streamItem(t, table, start.Add(c.at), c.si)
		if got, want := numberAttr(t, it, "ttl"), start.Add(5*time.Hour+30*24*time.Hour).Unix(); got != want {
			t.Errorf("order written at %s: ttl %d, want %d (+5h + 30 days)", at, got, want)
		}
	}
}

// TestTTLRewriteInHistory rewrites items in the simulated past. Items are
// written 4 a minute from -3d2h to -2d (more than one batch of writes),
// each to expire a day later and be deleted an hour after that; at -2d a
// backfill gives every existing item 30 days. The 241 items due by -2d are
// deleted; the others, including those already expired but not yet
// deleted, are kept. It fails when the server applies deletions up to its
// clock before the simulation reaches the rewrite (all 6,240 would go).
func TestTTLRewriteInHistory(t *testing.T) {
	sc, err := LoadScenario([]byte(`name: rewrite-history
history: 5d
tables:
  - name: rewritten
    ttl:
      attribute: ttl
      deletion_delay: 1h
      writes: {per_minute: 4, expires_in: 1d, from: -3d2h, until: -2d}
      rewrites:
        - {at: -2d, expires_in: 30d}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	start := r.eng.Start()
	if n := r.sum(t, "rewritten", "TimeToLiveDeletedItemCount", start.Add(-5*24*time.Hour), start, 3600); n != 241 {
		t.Errorf("%v TTL deletions, want the 241 due by -2d", n)
	}
	items := r.scanAll(t, "rewritten")
	if len(items) != 6240-241 {
		t.Fatalf("%d items, want 5,999 (6,240 written, 241 deleted before the backfill)", len(items))
	}
	for _, it := range items {
		if got, want := numberAttr(t, it, "ttl"), start.Add(28*24*time.Hour).Unix(); got != want {
			t.Fatalf("item %v: ttl %d, want the backfill's %d", it[keyAttribute], got, want)
		}
	}
}

// TestBillingSwitchSchedule runs billing-switch-schedule: switches to
// on-demand every 4 hours, of which DynamoDB accepts 4 in a rolling 24
// hours; the 5th and 6th of each day are refused and the table stays
// provisioned through that batch window.
func TestBillingSwitchSchedule(t *testing.T) {
	r := newRig(t, builtin(t, "billing-switch-schedule"))
	const table = "reports-schedule"
	start := r.eng.Start()
	r.advance(t, 12*time.Hour+5*time.Minute)
	d := r.describe(t, table).Table.BillingModeSummary
	if d.BillingMode != ddbtypes.BillingModePayPerRequest || !aws.ToTime(d.LastUpdateToPayPerRequestDateTime).Equal(start.Add(12*time.Hour)) {
		t.Errorf("at +12h05m: %s since %v, want PAY_PER_REQUEST since +12h", d.BillingMode, d.LastUpdateToPayPerRequestDateTime)
	}
	r.advance(t, 4*time.Hour) // +16h05m
	d = r.describe(t, table).Table.BillingModeSummary
	if d.BillingMode != ddbtypes.BillingModeProvisioned || !aws.ToTime(d.LastUpdateToPayPerRequestDateTime).Equal(start.Add(12*time.Hour)) {
		t.Errorf("at +16h05m: %s, last switch %v; want PROVISIONED, the +16h switch refused", d.BillingMode, d.LastUpdateToPayPerRequestDateTime)
	}
	_, err := r.ddb.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table), BillingMode: ddbtypes.BillingModePayPerRequest})
	if code := apiCode(err); code != "LimitExceededException" {
		t.Errorf("switch by the API at +16h05m: %v, want LimitExceededException", err)
	}
	var refused, accepted []string
	var acceptedAt []time.Time
	for _, s := range r.eng.SwitchResults(table) {
		if s.Mode != modeOnDemand {
			continue
		}
		if s.ErrorCode == "LimitExceededException" {
			refused = append(refused, formatOffset(s.At.Sub(start)))
		} else if s.ErrorCode == "" {
			accepted = append(accepted, formatOffset(s.At.Sub(start)))
			acceptedAt = append(acceptedAt, s.At)
		}
	}
	// From -3d every 4h: the 5th and 6th of every rolling day are refused.
	want := "[-56h0m0s -52h0m0s -32h0m0s -28h0m0s -8h0m0s -4h0m0s 16h0m0s]"
	if got := fmt.Sprint(refused); got != want {
		t.Errorf("refused switches to on-demand at %s, want %s", got, want)
	}
	if len(accepted) != 16 {
		t.Errorf("accepted switches to on-demand at %v, want 16 (4 a day from -3d to +12h)", accepted)
	}
	for i := 4; i < len(acceptedAt); i++ {
		if acceptedAt[i].Sub(acceptedAt[i-4]) < 24*time.Hour {
			t.Errorf("5 switches to on-demand accepted within 24 hours: %v", acceptedAt[i-4:i+1])
		}
	}
}
