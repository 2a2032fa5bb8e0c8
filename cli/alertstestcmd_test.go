package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// TestAlertsTestCommand runs `alerts test` on a scenario file of its own (a
// 6x spike at +1h on a provisioned table) and on a missing promtool.
func TestAlertsTestCommand(t *testing.T) {
	promtool := testtools.Promtool(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "spike.yaml")
	if err := os.WriteFile(file, []byte(`name: my-spike
history: 7d
tables:
  - name: orders-mine
    billing: provisioned
    capacity: {read: 100, write: 40}
    auto_scaling:
      read: {min: 50, max: 2000, target: 70}
      write: {min: 20, max: 800, target: 70}
    traffic:
      read: 60
      write: 20
      events:
        - {type: spike, at: 1h, duration: 30m, factor: 6, ramp: 1m}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	c := &alertsTestCmd{Scenario: file, Duration: 2 * time.Hour, Promtool: promtool}
	if err := c.run(context.Background(), &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	s := out.String()
	if !strings.Contains(s, "scenario my-spike, 2h0m0s replayed") || !strings.Contains(s, "\norders-mine\n") ||
		!strings.Contains(s, "DynamoDBProvisionedThroughputThrottling") || !strings.Contains(s, "firing +1:") ||
		strings.Contains(s, "DynamoDBAutoScalingMaxTooLow") {
		t.Fatalf("timeline:\n%s", s)
	}

	// A tuning file raising the throttling thresholds out of reach (live
	// throttles, storms, and the history's rises too fast for
	// auto-scaling) silences every alert.
	cfg := filepath.Join(dir, "tuning.yml")
	if err := os.WriteFile(cfg, []byte("params:\n  min_throttles_per_second: 1000000\n  min_storm_events_per_second: 1000000\n"+
		"  min_reaction_throttled_units: 1e15\n  min_reaction_saturated_time: 1000d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	c.Config = cfg
	if err := c.run(context.Background(), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no alert fired") {
		t.Fatalf("with the tuning file:\n%s", out.String())
	}

	// --rules: rule files rendered beforehand (here with the tuning file)
	// are used as they are; a directory without rule files is an error.
	cfgParsed, err := alerts.LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := alerts.Render(cfgParsed)
	if err != nil {
		t.Fatal(err)
	}
	rulesDir := filepath.Join(dir, "rules")
	if err := os.Mkdir(rulesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range rendered {
		if err := os.WriteFile(filepath.Join(rulesDir, f.Name), f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	c = &alertsTestCmd{Scenario: file, Duration: 2 * time.Hour, Promtool: promtool, Rules: rulesDir}
	if err := c.run(context.Background(), &out, &errOut); err != nil || !strings.Contains(out.String(), "no alert fired") {
		t.Fatalf("with --rules: %v\n%s", err, out.String())
	}
	c.Rules = t.TempDir()
	if err := c.run(context.Background(), &out, &errOut); err == nil || !strings.Contains(err.Error(), "no .yml or .yaml rule file") {
		t.Fatalf("with an empty --rules: %v", err)
	}

	// A promtool found in ./.tools is run by its absolute path (promtool
	// runs in a scratch directory).
	if _, err := os.Stat(filepath.Join("..", ".tools", "bin", "promtool")); err == nil {
		t.Chdir("..")
		t.Setenv("DYNAMODB_EXPORTER_TOOLS", "")
		p, err := findPromtool()
		if err != nil || !filepath.IsAbs(p) {
			t.Fatalf("promtool in ./.tools found as %q, %v; want an absolute path", p, err)
		}
	}
	// Nowhere to be found: not on PATH, not in the tools directory, not in
	// ./.tools of the working directory.
	t.Chdir(dir)
	t.Setenv("PATH", dir)
	t.Setenv("DYNAMODB_EXPORTER_TOOLS", dir)
	c = &alertsTestCmd{Scenario: file, Duration: time.Hour}
	err = c.run(context.Background(), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "promtool not found") || !strings.Contains(err.Error(), "install-tools.sh") {
		t.Fatalf("without promtool: %v", err)
	}
}
