package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// TestReplayScenarioThroughRules replays the autoscaling-spike scenario (a
// 10x spike at +2h on a provisioned, auto-scaled table) through the real
// exporter and checks with promtool which alerts a rule fires, for which
// table, and when: this is how a user runs their own scenario through rules.
func TestReplayScenarioThroughRules(t *testing.T) {
	sc, err := loadScenario("autoscaling-spike")
	if err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	if err := runReplay(context.Background(), sc, start, 3*time.Hour, time.Minute, "promtool", &series, slog.New(slog.DiscardHandler), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(series.String(), "input_series:\n") {
		t.Fatalf("unexpected output:\n%.500s", series.String())
	}
	rules := `groups:
  - name: example
    rules:
      - alert: ProvisionedTableThrottling
        expr: |
          sum by (account, region, table) (increase(dynamodb_throttle_events_total[5m])) > 0
          and on (account, region, table) dynamodb_table_info{billing_mode="PROVISIONED"}
`
	var test strings.Builder
	test.WriteString("rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n")
	for _, l := range strings.Split(strings.TrimSuffix(series.String(), "\n"), "\n") {
		test.WriteString("    " + l + "\n")
	}
	test.WriteString(`    alert_rule_test:
      - eval_time: 1h55m
        alertname: ProvisionedTableThrottling
        exp_alerts: []
      - eval_time: 2h15m
        alertname: ProvisionedTableThrottling
        exp_alerts:
          - exp_labels: {account: demo, region: us-east-1, table: tickets-spike}
`)
	dir := t.TempDir()
	for name, body := range map[string]string{"rules.yml": rules, "test.yml": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := testtools.RunCommand(t, "", testtools.Promtool(t), "test", "rules", filepath.Join(dir, "test.yml"))
	if res.ExitCode != 0 {
		t.Fatalf("promtool test rules (%d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
