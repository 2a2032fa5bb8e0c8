package awssim

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestRewriteItemsAt rewrites in the past: an item whose deletion fell due
// before the rewrite is gone, an expired item not yet deleted is rewritten
// (and kept), an item written after the rewrite time is left alone: the
// writes in the past settled the table only up to the earliest of them.
func TestRewriteItemsAt(t *testing.T) {
	s, _, _ := dataServer(t, Table{Name: "rewritten", TTL: TimeToLive{Status: TTLEnabled, AttributeName: "ttl", LastModified: t0.Add(-10 * 24 * time.Hour)},
		TTLDeletionDelay: time.Hour})
	day := 24 * time.Hour
	item := func(pk string, expiry time.Time) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": sv(pk), "ttl": nv(strconv.FormatInt(expiry.Unix(), 10))}
	}
	rewriteAt := t0.Add(-2 * day)
	// gone: due at -2d-1h; kept: expired at -2d-30m, due at -2d+30m;
	// later: written at -1d.
	if err := s.WriteItemsAt("us-east-1", "rewritten", []ItemWrite{
		{Item: item("gone", t0.Add(-2*day-2*time.Hour)), At: t0.Add(-3 * day)},
		{Item: item("kept", t0.Add(-2*day-30*time.Minute)), At: t0.Add(-3 * day)},
		{Item: item("later", t0.Add(day)), At: t0.Add(-day)},
	}); err != nil {
		t.Fatal(err)
	}
	newExpiry := t0.Add(30 * day)
	n, err := s.RewriteItemsAt("us-east-1", "rewritten", rewriteAt, func(it map[string]types.AttributeValue) (map[string]types.AttributeValue, bool) {
		it["ttl"] = nv(strconv.FormatInt(newExpiry.Unix(), 10))
		return it, true
	})
	if err != nil || n != 1 {
		t.Fatalf("rewrote %d items (%v), want 1 (kept)", n, err)
	}
	items, err := s.Items("us-east-1", "rewritten")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range items {
		got[it["pk"].(*types.AttributeValueMemberS).Value] = it["ttl"].(*types.AttributeValueMemberN).Value
	}
	want := map[string]string{"kept": strconv.FormatInt(newExpiry.Unix(), 10), "later": strconv.FormatInt(t0.Add(day).Unix(), 10)}
	if len(got) != len(want) || got["kept"] != want["kept"] || got["later"] != want["later"] {
		t.Errorf("items after the rewrite %v, want %v", got, want)
	}
	_, err = s.RewriteItemsAt("us-east-1", "rewritten", t0, func(it map[string]types.AttributeValue) (map[string]types.AttributeValue, bool) {
		it["pk"] = sv("other")
		return it, true
	})
	if err == nil || !strings.Contains(err.Error(), "changed the primary key") {
		t.Errorf("a rewrite changing the key: %v, want an error", err)
	}
}
