package deploy

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// TestSizingRuleFitsTheBench: the rule gives back the peaks cmd/bench
// measured (within 5%), at 100 and at 1,000 tables with 2 GSIs each.
func TestSizingRuleFitsTheBench(t *testing.T) {
	for _, m := range []struct {
		tables int
		peak   float64
	}{{100, SizingPeak100MiB}, {1000, SizingPeak1000MiB}} {
		got := MemoryMiB(m.tables, 2*m.tables)
		if math.Abs(got-m.peak) > 0.05*m.peak {
			t.Errorf("%d tables: the rule gives %.0f MiB, the bench measured %.0f", m.tables, got, m.peak)
		}
	}
}

// TestChartMemoryLimitHoldsTheSizingRule renders the chart with its
// default values: its memory limit holds the rule at SizingTables tables
// with SizingGSIsPerTable GSIs each with SizingMargin to spare, and the
// values file and docs/deployment.md state the rule's figures.
func TestChartMemoryLimitHoldsTheSizingRule(t *testing.T) {
	objs := render(t, testtools.Helm(t))
	var d appsv1.Deployment
	strict(t, objs["Deployment/"+release], &d)
	limit := d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory()
	got := float64(limit.Value()) / (1 << 20)
	need := MemoryMiB(SizingTables, SizingTables*SizingGSIsPerTable) * (1 + SizingMargin)
	if got < need {
		t.Errorf("default memory limit %s (%.0f MiB): the rule needs %.0f MiB at %d tables with %d GSIs each, %.0f%% margin included",
			limit, got, need, SizingTables, SizingGSIsPerTable, 100*SizingMargin)
	}
	rule := sizingRule()
	for _, file := range []string{chartDir + "/values.yaml", "../docs/deployment.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(strings.Fields(string(b)), " "); !strings.Contains(text, rule) {
			t.Errorf("%s does not state the sizing rule %q", file, rule)
		}
	}
}

// sizingRule is the rule as the values file and the docs state it.
func sizingRule() string {
	return fmt.Sprintf("%g MiB + %g MiB per table + %g MiB per GSI", SizingBaseMiB, SizingPerTableMiB, SizingPerGSIMiB)
}
