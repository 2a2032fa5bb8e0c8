package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// alertsTestCmd replays a scenario through the alert pack with promtool and
// prints which alerts fire, when, for which table.
type alertsTestCmd struct {
	Scenario string        `required:"" help:"Scenario to replay: a built-in name (${scenarios}) or a YAML file (format: simulation/sim/README.md)."`
	Duration time.Duration `help:"Simulated time to replay; the rules are evaluated every minute of it." default:"24h"`
	Start    string        `help:"Scenario start, RFC 3339 (default: the scenario's own start, else 2026-11-20T00:00:00Z, so that runs are repeatable)."`
	Config   string        `name:"config" help:"Alert pack configuration (tuning) file; without it, the shipped rules." type:"path"`
	Rules    string        `help:"Directory of rule files to use instead of rendering the pack (e.g. the output of 'alerts render')." type:"path"`
	Promtool string        `help:"promtool binary (default: looked up in $DYNAMODB_EXPORTER_TOOLS/bin, ./.tools/bin, then PATH)."`
}

// defaultAlertsTestStart is the replay start when neither the flag nor the
// scenario gives one: a fixed UTC midnight, so that two runs agree.
var defaultAlertsTestStart = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// Run replays the scenario and prints the timeline.
func (c *alertsTestCmd) Run(ctx context.Context) error {
	return c.run(ctx, os.Stdout, os.Stderr)
}

func (c *alertsTestCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	sc, err := loadScenario(c.Scenario)
	if err != nil {
		return err
	}
	start := defaultAlertsTestStart
	if c.Start != "" {
		if start, err = time.Parse(time.RFC3339, c.Start); err != nil {
			return fmt.Errorf("--start %q: %w", c.Start, err)
		}
	}
	if c.Duration < time.Minute {
		return fmt.Errorf("--duration %s: at least 1m", c.Duration)
	}
	promtool := c.Promtool
	if promtool == "" {
		if promtool, err = findPromtool(); err != nil {
			return err
		}
	}
	files, err := c.ruleFiles()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "replaying %s for %s and evaluating %d rule files with %s\n", sc.Name, c.Duration, len(files), promtool)
	var series bytes.Buffer
	if err := harness.Replay(ctx, sc, harness.ReplayOptions{Start: start, Duration: c.Duration, Step: time.Minute,
		Format: harness.FormatPromtool, Logger: slog.New(slog.DiscardHandler)}, &series); err != nil {
		return err
	}
	tl, err := alerts.Evaluate(ctx, promtool, files, sc.Name, series.Bytes(), c.Duration)
	if err != nil {
		return err
	}
	return tl.Print(stdout)
}

// ruleFiles returns the rule files to evaluate: those of --rules, else the
// pack rendered with --config (or the defaults, which are the shipped files).
func (c *alertsTestCmd) ruleFiles() ([]alerts.File, error) {
	if c.Rules != "" {
		paths, err := filepath.Glob(filepath.Join(c.Rules, "*.y*ml"))
		if err != nil {
			return nil, fmt.Errorf("--rules: %w", err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("--rules %s: no .yml or .yaml rule file there", c.Rules)
		}
		var out []alerts.File
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("--rules: %w", err)
			}
			out = append(out, alerts.File{Name: filepath.Base(p), Content: b})
		}
		return out, nil
	}
	var cfg *alerts.Config
	if c.Config != "" {
		var err error
		if cfg, err = alerts.LoadConfig(c.Config); err != nil {
			return nil, err
		}
	}
	return alerts.Render(cfg)
}

// errNoPromtool says promtool was not found and how to get it.
var errNoPromtool = errors.New("promtool not found in $DYNAMODB_EXPORTER_TOOLS/bin, ./.tools/bin or PATH: " +
	"install it with ./scripts/install-tools.sh promtool (from a checkout of this repository), " +
	"or download Prometheus from https://prometheus.io/download/ and put promtool on PATH, or pass --promtool")

// findPromtool looks for promtool in $DYNAMODB_EXPORTER_TOOLS/bin,
// ./.tools/bin, then PATH.
func findPromtool() (string, error) {
	var dirs []string
	if d := os.Getenv("DYNAMODB_EXPORTER_TOOLS"); d != "" {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	dirs = append(dirs, filepath.Join(".tools", "bin"))
	for _, d := range dirs {
		p := filepath.Join(d, "promtool")
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			// Absolute: promtool runs in the replay's scratch directory.
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", fmt.Errorf("locating promtool: %w", err)
			}
			return abs, nil
		}
	}
	if p, err := exec.LookPath("promtool"); err == nil {
		return p, nil
	}
	return "", errNoPromtool
}
