package harness_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// TestReplayScenarioThroughRules replays the autoscaling-spike scenario (a
// 10x spike at +2h on a provisioned, auto-scaled table) through the real
// exporter and checks with promtool which alerts a rule fires, for which
// table, and when: this is how a user runs their own scenario through rules.
func TestReplayScenarioThroughRules(t *testing.T) {
	sc, err := harness.LoadScenario("autoscaling-spike")
	if err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: 3 * time.Hour, Step: time.Minute, Format: "promtool", Logger: slog.New(slog.DiscardHandler)}, &series); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(series.String(), "# dynamodb_exporter replay: promtool's time 0 is the first scrape, 2026-11-20T08:00:00Z") || !strings.Contains(series.String(), "\ninput_series:\n") {
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
	promtoolTestRules(t, rules, test.String())
}

// TestReplayExporterFaults replays the exporter-faults scenario: throttled
// and slow CloudWatch calls, DescribeTable 5xx, AccessDenied on one table
// and a table deleted at +2h. The exporter must keep serving what it knows,
// count every failure, and drop the deleted table's series.
func TestReplayExporterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits through the scenario's slow ListMetrics answers")
	}
	sc, err := harness.LoadScenario("exporter-faults")
	if err != nil {
		t.Fatal(err)
	}
	var om bytes.Buffer
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: 2*time.Hour + 15*time.Minute, Step: time.Minute, Format: "openmetrics", Logger: slog.New(slog.DiscardHandler)}, &om); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(om.String(), "\n")
	// last returns the timestamp of the last sample of the series whose
	// line starts with prefix and contains every part, or 0.
	last := func(prefix string, parts ...string) (value string, at int64) {
		for _, l := range lines {
			if !strings.HasPrefix(l, prefix) {
				continue
			}
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if !ok {
				continue
			}
			f := strings.Fields(l)
			ts, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatalf("bad timestamp in %q", l)
			}
			if sec := int64(ts); sec >= at {
				value, at = f[len(f)-2], sec
			}
		}
		return value, at
	}
	end := start.Add(2*time.Hour + 15*time.Minute).Unix()
	if _, at := last("dynamodb_exporter_aws_request_errors_total{", `error_code="Throttling"`, `operation="GetMetricData"`); at == 0 {
		t.Error("throttled GetMetricData calls were not counted")
	}
	if _, at := last("dynamodb_exporter_aws_request_errors_total{", `operation="DescribeTable"`, `error_code="InternalServerError"`); at == 0 {
		t.Error("DescribeTable 5xx were not counted")
	}
	if _, at := last("dynamodb_exporter_aws_request_errors_total{", `error_code="AccessDeniedException"`); at == 0 {
		t.Error("AccessDenied on one table was not counted")
	}
	if v, at := last("dynamodb_exporter_collector_errors_total{", `collector="cloudwatch"`); at != end || v == "0" {
		t.Errorf("cloudwatch collector errors = %s at %d, want > 0 at the end", v, at)
	}
	if _, at := last("dynamodb_table_info{", `table="faults-orders"`); at != end {
		t.Errorf("faults-orders last served at %d, want at the end %d: the exporter must keep serving", at, end)
	}
	deleted := start.Add(2 * time.Hour).Unix()
	if _, at := last("dynamodb_table_info{", `table="faults-temp"`); at == 0 || at < deleted-600 || at > deleted+6*60 {
		t.Errorf("faults-temp last served at %d; want shortly after its deletion at %d", at, deleted)
	}
	if _, at := last("dynamodb_consumed_read_capacity_units_total{", `table="faults-temp"`); at > deleted+6*60 {
		t.Errorf("faults-temp consumed capacity still served at %d after its deletion at %d", at, deleted)
	}
	if _, at := last("dynamodb_consumed_read_capacity_units_total{", `table="faults-orders"`); at != end {
		t.Errorf("faults-orders consumed capacity last served at %d, want %d", at, end)
	}
}

// TestReplayPromtoolAges replays a table that switches to on-demand at +1h
// (a repeated switch) and whose TTL is sampled every hour, and checks with
// promtool that rules of the form time() - x_timestamp_seconds give the
// ages they had during the replay: promtool's clock starts at 0, so the
// replay shifts the timestamp-valued families by its start. Without the
// shift the ages are about -1.8e9 s.
func TestReplayPromtoolAges(t *testing.T) {
	sc, err := sim.LoadScenario([]byte(`name: ages
history: 2d
horizon: 1d
tables:
  - name: ages-switching
    capacity: {read: 10, write: 10}
    traffic: {read: 2, write: 1}
    billing_switches:
      - {at: 1h, every: 6h, mode: on_demand}
      - {at: 3h, every: 6h, mode: provisioned}
    ttl:
      attribute: ttl
      writes: {per_minute: 1, expires_in: 1h, from: -1d}
`))
	if err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: 4 * time.Hour, Step: time.Minute, Format: "promtool", Logger: slog.New(slog.DiscardHandler)}, &series); err != nil {
		t.Fatal(err)
	}
	header := "# dynamodb_exporter replay: promtool's time 0 is the first scrape, 2026-11-20T08:00:00Z (Unix 1795161600); one value per 1m0s.\n" +
		"# Values in seconds since the epoch are shifted by -1795161600, so that time() - x is the age it was:\n"
	if !strings.HasPrefix(series.String(), header) || !strings.Contains(series.String(), "#   dynamodb_ttl_last_sample_timestamp_seconds\n") {
		t.Fatalf("header:\n%.600s", series.String())
	}
	rules := `groups:
  - name: ages
    rules:
      - record: table:ttl_sample_age_seconds
        expr: time() - dynamodb_ttl_last_sample_timestamp_seconds
      - record: table:on_demand_switch_age_seconds
        expr: time() - dynamodb_last_switch_to_on_demand_timestamp_seconds
`
	var test strings.Builder
	test.WriteString("rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n")
	test.WriteString(indentLines(series.String(), "    "))
	// The TTL sampler samples the table on the hour (0, 1h, 2h, ...); the
	// switch to on-demand happened at +1h.
	test.WriteString(`    promql_expr_test:
      - expr: table:ttl_sample_age_seconds
        eval_time: 1h30m
        exp_samples:
          - labels: 'table:ttl_sample_age_seconds{account="demo",region="us-east-1",table="ages-switching"}'
            value: 1800
      - expr: table:ttl_sample_age_seconds
        eval_time: 2h10m
        exp_samples:
          - labels: 'table:ttl_sample_age_seconds{account="demo",region="us-east-1",table="ages-switching"}'
            value: 600
      - expr: table:on_demand_switch_age_seconds
        eval_time: 3h30m
        exp_samples:
          - labels: 'table:on_demand_switch_age_seconds{account="demo",region="us-east-1",table="ages-switching"}'
            value: 9000
`)
	promtoolTestRules(t, rules, test.String())
}

func indentLines(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// promtoolTestRules writes rules (rules.yml) and a promtool rule test that
// loads them (test.yml) into a scratch directory and fails the test unless
// `promtool test rules` passes.
func promtoolTestRules(t *testing.T, rules, test string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"rules.yml": rules, "test.yml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := testtools.RunCommand(t, "", testtools.Promtool(t), "test", "rules", filepath.Join(dir, "test.yml"))
	if res.ExitCode != 0 {
		t.Fatalf("promtool test rules (%d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
