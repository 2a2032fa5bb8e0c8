package replay_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/replay"
)

// replayFixture replays the built-in fixture account from 13:30 to 14:30
// UTC, across the daily 14:00-14:20 spike on the orders table.
func replayFixture(t *testing.T) (*replay.Recorder, time.Time) {
	t.Helper()
	start := time.Date(2026, 11, 20, 13, 30, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	sim := awssim.NewFixture(clk)
	app, _ := harnesstest.Exporter(t, sim, clk, "accounts: [{name: fixture, regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", harness.RunOptions{})
	rec := replay.NewRecorder()
	steps := 0
	if err := replay.Run(context.Background(), replay.Options{
		Clock: clk, Start: start, Duration: time.Hour, Step: time.Minute,
		Scheduler: app.Scheduler, Gatherer: app.Registry,
		Progress: func(done, total int) { steps = total },
	}, rec); err != nil {
		t.Fatal(err)
	}
	if steps != 61 || rec.Steps() != 61 {
		t.Fatalf("steps = %d recorded %d, want 61", steps, rec.Steps())
	}
	return rec, start
}

func TestReplayOpenMetricsLoadsIntoTSDB(t *testing.T) {
	rec, start := replayFixture(t)
	var om bytes.Buffer
	if err := rec.WriteOpenMetrics(&om); err != nil {
		t.Fatal(err)
	}
	text := om.String()
	if !strings.HasSuffix(text, "# EOF\n") || !strings.Contains(text, "# TYPE dynamodb_throttle_events counter\n") {
		t.Fatalf("not OpenMetrics:\n%.2000s", text)
	}
	// A throttle counter that rose during the spike, with its timestamp.
	if !strings.Contains(text, `dynamodb_throttle_events_total{account="fixture",index="",kind="read",region="us-east-1",table="orders"} 0 `+itoa(start.Unix())) {
		t.Errorf("no throttle counter at the first step:\n%s", grepLines(text, "dynamodb_throttle_events_total"))
	}
	promtool := testtools.Promtool(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "replay.om")
	if err := os.WriteFile(in, om.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := testtools.RunCommand(t, "", promtool, "tsdb", "create-blocks-from", "openmetrics", in, filepath.Join(dir, "blocks"))
	if res.ExitCode != 0 {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics failed (%d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	blocks, _ := os.ReadDir(filepath.Join(dir, "blocks"))
	if len(blocks) == 0 {
		t.Fatal("promtool wrote no block")
	}
}

func TestReplayDrivesPromtoolRuleTests(t *testing.T) {
	rec, _ := replayFixture(t)
	var series bytes.Buffer
	if err := rec.WritePromtoolSeries(&series); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rules := `groups:
  - name: replay
    rules:
      - alert: ReplayReadThrottling
        expr: increase(dynamodb_throttle_events_total{kind="read"}[5m]) > 0
`
	// The spike starts at 14:00 (minute 30); CloudWatch minutes are read 3
	// minutes late, so the counter moves from minute 34.
	test := "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n" +
		indent(series.String(), "    ") + `    alert_rule_test:
      - eval_time: 25m
        alertname: ReplayReadThrottling
        exp_alerts: []
      - eval_time: 40m
        alertname: ReplayReadThrottling
        exp_alerts:
          - exp_labels: {account: fixture, region: us-east-1, table: orders, kind: read}
`
	for name, body := range map[string]string{"rules.yml": rules, "test.yml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	promtool := testtools.Promtool(t)
	res := testtools.RunCommand(t, "", promtool, "test", "rules", filepath.Join(dir, "test.yml"))
	if res.ExitCode != 0 {
		t.Fatalf("promtool test rules failed (%d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
