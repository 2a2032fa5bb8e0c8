package exporter_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

var update = flag.Bool("update", false, "rewrite testdata/fixture.prom from the current output")

const goldenPath = "testdata/fixture.prom"

const fixtureConfig = `
accounts:
  - name: fixture
    regions: [us-east-1, eu-west-1]
`

// fixtureScrape runs two cycles (ten minutes apart, so that the second
// fetches the CloudWatch slow tier too) on the built-in fixture
// account at a fixed time and returns the scrape, without the self-metrics
// that depend on wall-clock durations.
func fixtureScrape(t *testing.T) string {
	t.Helper()
	h := newHarness(t, fixtureConfig, func(sim *awssim.Server) {
		if err := awssim.LoadFixture(sim); err != nil {
			t.Fatal(err)
		}
	})
	// 14:08: inside the fixture's daily 14:00-14:20 spike on orders, so the
	// golden file shows throttles as well as quiet series.
	h.clk.Set(time.Date(2026, 11, 20, 14, 8, 30, 0, time.UTC))
	h.cycle()
	h.clk.Advance(10 * time.Minute)
	h.cycle()
	var keep []string
	for _, line := range strings.SplitAfter(h.scrape(), "\n") {
		if strings.Contains(line, "dynamodb_exporter_collector_duration_seconds") ||
			strings.Contains(line, "dynamodb_exporter_build_info") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "")
}

// TestGoldenFixtureOutput compares /metrics for the fixture account with the
// committed golden file. Regenerate with: go test ./exporter -run Golden -update
func TestGoldenFixtureOutput(t *testing.T) {
	got := fixtureScrape(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("reading golden file (create it with -update): %v", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("output differs from %s at line %d:\n got: %s\nwant: %s\n(run go test ./exporter -run Golden -update if the change is intended)", goldenPath, i+1, g, w)
			}
		}
	}
}

// TestPromtoolCheckMetrics runs promtool's linter on the full fixture output.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testtools.Promtool(t)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(fixtureScrape(t))
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("promtool check metrics reported (err %v):\n%s", err, out)
	}
}
