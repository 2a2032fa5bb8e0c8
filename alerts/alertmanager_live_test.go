package alerts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// amAlert is an alert as Alertmanager's API v2 takes and returns it.
type amAlert struct {
	Labels      map[string]string `json:"labels"`
	StartsAt    string            `json:"startsAt,omitempty"`
	EndsAt      string            `json:"endsAt,omitempty"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Status      struct {
		State       string   `json:"state"`
		InhibitedBy []string `json:"inhibitedBy"`
	} `json:"status"`
}

// TestAlertmanagerInhibitsLive loads alertmanager.yml into a real
// Alertmanager, posts alerts of the pack that carry exactly the labels each
// alert carries (inferred from its PromQL), and reads back which are
// inhibited, and by what.
func TestAlertmanagerInhibitsLive(t *testing.T) {
	endpoint := testtools.StartAlertmanager(t, "alertmanager.yml")
	carried := alertLabels(t)
	severity := map[string]string{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			severity[r.Alert] = r.Severity
		}
	}
	defaults := map[string]string{
		"account": "prod", "region": "us-east-1", "table": "orders", "index": "", "kind": "write",
		"dimension": "write", "operation": "GetItem", "window": "30d", "collector": "cloudwatch",
		"service": "DynamoDB", "error_code": "AccessDeniedException",
		"job": "dynamodb", "instance": "exporter-a:9687", "attribute": "expiresAt", "ttl_attribute": "ttl",
	}
	// alert builds an alert of the pack with its own label names; values
	// not given take the defaults above ("" leaves the label out, as
	// Prometheus does for an empty index).
	alert := func(id, name string, values map[string]string) amAlert {
		labels := map[string]string{"alertname": name, "id": id}
		for _, l := range carried[name] {
			if l == "severity" {
				labels[l] = severity[name]
				continue
			}
			v, ok := values[l]
			if !ok {
				v, ok = defaults[l]
			}
			if !ok {
				t.Fatalf("alert %s carries label %s, which the test gives no value", name, l)
			}
			if v != "" {
				labels[l] = v
			}
		}
		return amAlert{Labels: labels}
	}
	sessions := map[string]string{"table": "sessions"}
	posted := []amAlert{
		alert("hot", "DynamoDBHotPartition", nil),
		alert("od-orders", "DynamoDBOnDemandSustainedWorkload", nil),
		alert("od-carts", "DynamoDBOnDemandSustainedWorkload", map[string]string{"table": "carts"}),
		alert("lat-orders", "DynamoDBLatencyAboveBaseline", nil),
		alert("max-orders", "DynamoDBAutoScalingMaxTooLow", nil),
		alert("thr-orders", "DynamoDBProvisionedThroughputThrottling", nil),
		alert("thr-orders-gsi", "DynamoDBProvisionedThroughputThrottling", map[string]string{"index": "by-customer"}),
		alert("ttl-failing", "DynamoDBExporterCollectorFailing", map[string]string{"collector": "ttl"}),
		alert("lag-sessions", "DynamoDBTTLDeletionLagging", sessions),
		alert("lag-sessions-eu", "DynamoDBTTLDeletionLagging", map[string]string{"table": "sessions", "region": "eu-west-1"}),
		alert("live-sessions", "DynamoDBTTLDeletingLiveData", sessions),
		alert("name-sessions", "DynamoDBTTLAttributeNameMismatch", sessions),
		alert("missing-sessions", "DynamoDBTTLAttributeMissingRising", sessions),
		alert("missing-carts", "DynamoDBTTLAttributeMissingRising", map[string]string{"table": "carts"}),
		alert("growing-sessions", "DynamoDBTTLRetentionBehindWrites", sessions),
		alert("growing-carts", "DynamoDBTTLRetentionBehindWrites", map[string]string{"table": "carts"}),
		alert("thr-carts", "DynamoDBProvisionedThroughputThrottling", map[string]string{"table": "carts"}),
		alert("denied", "DynamoDBExporterAccessDenied", map[string]string{"operation": "Scan"}),
		// exporter-b is down; exporter-c is its HA twin, reading the same
		// account and tables ("events"), and still answers.
		alert("down-b", "DynamoDBExporterDown", map[string]string{"instance": "exporter-b:9687"}),
		alert("hot-b", "DynamoDBHotPartition", map[string]string{"instance": "exporter-b:9687", "table": "events"}),
		alert("churn-b", "DynamoDBBillingModeChurn", map[string]string{"instance": "exporter-b:9687", "table": "events"}),
		alert("budget-b", "DynamoDBExporterTTLSamplerOutOfBudget", map[string]string{"instance": "exporter-b:9687"}),
		alert("throttled-b", "DynamoDBExporterCloudWatchThrottled", map[string]string{"instance": "exporter-b:9687"}),
		alert("live-b", "DynamoDBTTLDeletingLiveData", map[string]string{"instance": "exporter-b:9687", "table": "events"}),
		alert("hot-c", "DynamoDBHotPartition", map[string]string{"instance": "exporter-c:9687", "table": "events"}),
		alert("churn-c", "DynamoDBBillingModeChurn", map[string]string{"instance": "exporter-c:9687", "table": "events"}),
		// The TTL collector fails on exporter-a only: exporter-c's figures
		// for sessions are current.
		alert("lag-sessions-c", "DynamoDBTTLDeletionLagging", map[string]string{"instance": "exporter-c:9687", "table": "sessions"}),
	}
	want := map[string][]string{ // id -> ids of the alerts that inhibit it
		"od-orders":    {"hot"},
		"lat-orders":   {"hot"},
		"thr-orders":   {"max-orders"},
		"lag-sessions": {"ttl-failing"},
		"ttl-failing":  {"denied"},
		// Items written under another attribute name lack the TTL one: the
		// name mismatch explains the rising share, on its own table only.
		"missing-sessions": {"name-sessions"}, "missing-carts": nil, "name-sessions": nil,
		// Deletion days behind (lag-sessions) explains the growth; a failing
		// TTL collector does not inhibit it: it reads the deletion counter
		// and the item count, not the sampler.
		"growing-sessions": {"lag-sessions"}, "growing-carts": nil,
		// Not inhibited: another table, another index, another region, another
		// collector's alerts, and the critical page.
		"od-carts": nil, "thr-orders-gsi": nil, "lag-sessions-eu": nil, "thr-carts": nil,
		"live-sessions": nil, "hot": nil, "max-orders": nil, "denied": nil,
		// The down exporter's alerts that still evaluate on its last samples;
		// not its data-loss page, not its twin's alerts, not the alerts of
		// the other exporters.
		"hot-b": {"down-b"}, "churn-b": {"down-b"}, "budget-b": {"down-b"}, "throttled-b": {"down-b"},
		"live-b": nil, "down-b": nil, "hot-c": nil, "churn-c": nil, "lag-sessions-c": nil,
	}
	now := time.Now().UTC()
	for i := range posted {
		posted[i].StartsAt = now.Add(-time.Minute).Format(time.RFC3339)
		posted[i].EndsAt = now.Add(time.Hour).Format(time.RFC3339)
	}
	body, err := json.Marshal(posted)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(endpoint+"/api/v2/alerts", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v2/alerts: HTTP %d", resp.StatusCode)
	}

	// The inhibitor learns of source alerts asynchronously: poll until the
	// state matches or a deadline passes, then report the last state.
	var got map[string][]string
	deadline := time.Now().Add(20 * time.Second)
	for {
		got = inhibitions(t, endpoint)
		if len(got) == len(posted) && equalInhibitions(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(got) != len(posted) {
		t.Errorf("Alertmanager holds %d alerts, want %d: %v", len(got), len(posted), got)
	}
	for id, w := range want {
		if g := got[id]; !slices.Equal(g, w) {
			t.Errorf("alert %s: inhibited by %v, want %v", id, g, w)
		}
	}
}

// inhibitions reads the alerts back: alert id -> sorted ids of the alerts
// that inhibit it.
func inhibitions(t *testing.T, endpoint string) map[string][]string {
	t.Helper()
	resp, err := http.Get(endpoint + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var alerts []amAlert
	if err := json.NewDecoder(resp.Body).Decode(&alerts); err != nil {
		t.Fatalf("GET /api/v2/alerts: %v", err)
	}
	byFingerprint := map[string]string{}
	for _, a := range alerts {
		byFingerprint[a.Fingerprint] = a.Labels["id"]
	}
	out := map[string][]string{}
	for _, a := range alerts {
		var ids []string
		for _, fp := range a.Status.InhibitedBy {
			id, ok := byFingerprint[fp]
			if !ok {
				id = fmt.Sprintf("unknown(%s)", fp)
			}
			ids = append(ids, id)
		}
		sort.Strings(ids)
		out[a.Labels["id"]] = ids
	}
	return out
}

func equalInhibitions(got, want map[string][]string) bool {
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			return false
		}
	}
	return true
}
