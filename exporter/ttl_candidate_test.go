package exporter_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// misnamedTable is a table with TTL enabled on expireAt while the
// application writes the expiry under expiresAt: 2,400 items without
// expireAt (1,800 of them expired 1 hour to 10 days ago, 600 due within a
// day), 50 with it; every item also carries createdAt (a past epoch time,
// which must not be taken for the expiry) and a small Number. Keys and
// values carry secretMarker.
func misnamedTable(t *testing.T, sim *awssim.Server, now time.Time) {
	t.Helper()
	const region = "us-east-1"
	tb := onDemandTable("sessions-misnamed", now.Add(-30*day))
	tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expireAt"}
	mustPut(sim, region, tb)
	n := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	var items []map[string]types.AttributeValue
	add := func(i int, attr string, at time.Time) {
		items = append(items, map[string]types.AttributeValue{
			"pk":        &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-%05d", secretMarker, i)},
			"email":     &types.AttributeValueMemberS{Value: secretMarker + "@example.com"},
			"createdAt": n(at.Add(-24 * time.Hour).Unix()),
			"logins":    n(int64(i % 17)),
			attr:        n(at.Unix()),
		})
	}
	for i := range 1800 {
		add(i, "expiresAt", now.Add(-time.Hour-time.Duration(i)*8*time.Minute))
	}
	for i := range 600 {
		add(1800+i, "expiresAt", now.Add(time.Hour+time.Duration(i)*2*time.Minute))
	}
	for i := range 50 {
		add(2400+i, "expireAt", now.Add(time.Duration(i+1)*time.Hour))
	}
	if err := sim.PutItems(region, "sessions-misnamed", items); err != nil {
		t.Fatal(err)
	}
	if err := sim.RefreshTableStats(region, "sessions-misnamed"); err != nil {
		t.Fatal(err)
	}
}

// TestTTLCandidateAttributeOnAMisnamedTable runs the exporter against the
// simulated account through the real SDK: the sampler finds most items
// without the TTL attribute, reads whole items, and names expiresAt (not
// createdAt, which never holds a future time) with its share of the table
// and the expired backlog it implies, each within its 95% interval of the
// truth; a later sample starts whole. No key or value reaches the metrics
// or the logs.
func TestTTLCandidateAttributeOnAMisnamedTable(t *testing.T) {
	var logs bytes.Buffer
	h := newHarnessWith(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		misnamedTable(t, sim, start)
	}, harnessOptions{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	for run := range 2 {
		if run > 0 {
			h.clk.Advance(61 * time.Minute) // past table_interval: sampled again
		}
		h.cycle()
		body := h.scrape()
		l := map[string]string{"table": "sessions-misnamed", "attribute": "expiresAt"}
		ratio := mustValue(t, body, catalogue.TTLCandidateAttributeItemsRatio, l)
		est := mustValue(t, body, catalogue.TTLCandidateExpiredItemsEstimate, l)
		lo := mustValue(t, body, catalogue.TTLCandidateExpiredItemsLowerBound, l)
		hi := mustValue(t, body, catalogue.TTLCandidateExpiredItemsUpperBound, l)
		// Items expired by expiresAt at the sample: 1,800 at the first run,
		// and the 8 more due within the hour that passed before the second
		// (600 live items, one due every 2 minutes from +1h).
		want := 1800.0
		if run > 0 {
			want += 8
		}
		t.Logf("run %d: candidate expiresAt carried by %.3f of items (truth %.3f); expired %.0f [%.0f, %.0f] (truth %.0f)",
			run, ratio, 2400.0/2450, est, lo, hi, want)
		if ratio < 0.9 || ratio > 1 {
			t.Errorf("run %d: candidate ratio %v, want about 0.98", run, ratio)
		}
		if want < lo || want > hi || lo > est || est > hi {
			t.Errorf("run %d: expired estimate %v [%v, %v] does not hold the truth %v", run, est, lo, hi, want)
		}
		if n := strings.Count(body, catalogue.TTLCandidateAttributeItemsRatio+"{"); n != 1 {
			t.Errorf("run %d: %d candidate series, want 1 (expiresAt):\n%s", run, n, grep(body, catalogue.TTLCandidateAttributeItemsRatio))
		}
		if got := mustValue(t, body, catalogue.ExporterTTLSamplesTotal, map[string]string{"outcome": "complete"}); got != float64(run+1) {
			t.Errorf("run %d: complete samples %v, want %d", run, got, run+1)
		}
		if strings.Contains(body, secretMarker) || strings.Contains(logs.String(), secretMarker) || strings.Contains(body, "example.com") {
			t.Fatalf("run %d: item data in the metrics or the logs", run)
		}
	}
}

// TestTTLExpiryRateOfASteadyTable: a table TTL keeps 25 days, one item
// expiring every 15 minutes (2,400 live items): the sampler reads its
// steady expiry rate, one item per 900 seconds, from the live expiries of
// the fewest whole days ahead holding 100 sampled items (within about 10%
// when sampled, exact when read whole; 25% allowed). A table whose sample
// holds too few live items gets no figure: see TestTTLHealthOnDynamoDBLocal.
func TestTTLExpiryRateOfASteadyTable(t *testing.T) {
	h := newHarnessWith(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		const region = "us-east-1"
		tb := onDemandTable("consents-steady", start.Add(-90*day))
		tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expiresAt"}
		mustPut(sim, region, tb)
		var items []map[string]types.AttributeValue
		for i := range 2400 {
			items = append(items, map[string]types.AttributeValue{
				"pk":        &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-%05d", secretMarker, i)},
				"expiresAt": &types.AttributeValueMemberN{Value: strconv.FormatInt(start.Add(time.Duration(i+1)*15*time.Minute).Unix(), 10)},
			})
		}
		if err := sim.PutItems(region, "consents-steady", items); err != nil {
			t.Fatal(err)
		}
		if err := sim.RefreshTableStats(region, "consents-steady"); err != nil {
			t.Fatal(err)
		}
	}, harnessOptions{})
	h.cycle()
	body := h.scrape()
	got := mustValue(t, body, catalogue.TTLExpiryRateEstimate, map[string]string{"table": "consents-steady"})
	const truth = 1.0 / 900
	t.Logf("expiry rate %.6f items/s (truth %.6f)", got, truth)
	if got < 0.75*truth || got > 1.25*truth {
		t.Errorf("expiry rate = %v items/s, want %v within 25%%", got, truth)
	}
}
