package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/report"
)

// capacityCmd groups the capacity-mode tools.
type capacityCmd struct {
	Report capacityReportCmd `cmd:"" help:"Read the CloudWatch history of every monitored table (or one) and print the capacity-mode figures: read/write ratio and drift, peak-to-average, baselines and surge retention, the 7- and 30-day cost in each billing mode and the recommendation."`
}

type capacityReportCmd struct {
	configFlags
	logFlags
	Table  string `help:"Report only this table (default: every monitored table)."`
	Format string `help:"table (aligned text), json (for scripts; schema in docs/capacity-report.md), markdown (for a ticket) or html (one self-contained file with charts, for a review meeting)." default:"table" enum:"table,json,markdown,html"`
}

// Run prints the report.
func (c *capacityReportCmd) Run(ctx context.Context) error {
	logger := c.logger(os.Stderr)
	cfg, err := c.load()
	if err != nil {
		return err
	}
	app, err := exporter.Build(ctx, cfg, exporter.Options{Logger: logger})
	if err != nil {
		return err
	}
	return capacityReport(ctx, app, c.Table, c.Format, logger, os.Stdout)
}

// capacityReport fetches the history of the selected tables (every
// monitored one when table is empty) once at the app's clock and writes the
// report in format.
func capacityReport(ctx context.Context, app *exporter.App, table, format string, logger *slog.Logger, w io.Writer) error {
	reports, runErr := app.CapacityReports(ctx, table, logger)
	if len(reports) == 0 {
		return runErr
	}
	if err := report.Capacity(w, format, reports, app.Clock.Now()); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("some figures are missing: %w", runErr)
	}
	return nil
}
