package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

func tableWithSaving(name string, saving float64) collectors.TableReport {
	e := capacity.Evaluation{MonthlySaving: saving, Recommendation: capacity.Recommendation{Action: "keep", Code: "cheaper", Reason: "because"}}
	return collectors.TableReport{Account: "a", Region: "r", Table: name, Mode: "PROVISIONED",
		Costs: []collectors.WindowCost{{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: e}}}
}

// TestLandingOrdersBySaving: the tables that waste most come first, tables
// without a what-if last; the page says when there are no figures yet.
func TestLandingOrdersBySaving(t *testing.T) {
	var b bytes.Buffer
	err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: []collectors.TableReport{
		tableWithSaving("small", 3), {Account: "a", Region: "r", Table: "young", Mode: "PROVISIONED"}, tableWithSaving("big", 120), tableWithSaving("negative", -8),
	}})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	order := []int{strings.Index(page, "<td>big</td>"), strings.Index(page, "<td>small</td>"), strings.Index(page, "<td>negative</td>"), strings.Index(page, "<td>young</td>")}
	for i := 1; i < len(order); i++ {
		if order[i-1] < 0 || order[i] < order[i-1] {
			t.Fatalf("rows not in saving order big, small, negative, young: %v\n%s", order, page)
		}
	}
	if !strings.Contains(page, `<td class="n neg">-$8.00</td>`) || !strings.Contains(page, "no cost what-if yet") {
		t.Errorf("negative saving or missing what-if not shown:\n%s", page)
	}
	b.Reset()
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No capacity figures yet") || !strings.Contains(b.String(), `<a href="/metrics">Metrics</a>`) {
		t.Errorf("empty landing page:\n%s", b.String())
	}
}
