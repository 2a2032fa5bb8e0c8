package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
)

// alertsCmd groups the alert pack's tools.
type alertsCmd struct {
	Render alertsRenderCmd `cmd:"" help:"Write the alert pack's rule files, tuned by an optional pack configuration (thresholds, for durations, severities, selectors, runbook base URL)."`
	Test   alertsTestCmd   `cmd:"" help:"Replay a scenario (built-in or your own YAML) through the alert pack with promtool and print which alerts fire, when, for which table."`
}

type alertsRenderCmd struct {
	Config    string `name:"config" help:"Alert pack configuration file (see alerts/README.md); without it, the shipped defaults." type:"path"`
	Format    string `help:"prometheus: one rule file per group; prometheus-operator: one PrometheusRule object." default:"prometheus" enum:"prometheus,prometheus-operator"`
	OutputDir string `name:"output-dir" short:"o" help:"Directory the rule files are written to (format prometheus); standard output when empty." type:"path"`
	Name      string `help:"metadata.name of the PrometheusRule (format prometheus-operator)." default:"dynamodb-exporter"`
}

// Run renders the pack.
func (c *alertsRenderCmd) Run() error {
	return renderAlerts(c, os.Stdout)
}

func renderAlerts(c *alertsRenderCmd, stdout io.Writer) error {
	var cfg *alerts.Config
	if c.Config != "" {
		var err error
		if cfg, err = alerts.LoadConfig(c.Config); err != nil {
			return err
		}
	}
	if c.Format == "prometheus-operator" {
		b, err := alerts.RenderOperator(cfg, c.Name)
		if err != nil {
			return err
		}
		return writeOut(c.OutputDir, "prometheusrule.yml", b, stdout)
	}
	files, err := alerts.Render(cfg)
	if err != nil {
		return err
	}
	for i, f := range files {
		if c.OutputDir == "" && i > 0 {
			fmt.Fprintln(stdout, "---")
		}
		if err := writeOut(c.OutputDir, f.Name, f.Content, stdout); err != nil {
			return err
		}
	}
	return nil
}

// writeOut writes b to dir/name, or to stdout when dir is empty.
func writeOut(dir, name string, b []byte, stdout io.Writer) error {
	if dir == "" {
		_, err := stdout.Write(b)
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the output directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
