package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"text/tabwriter"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
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

// capacityReport runs discovery and the table collector, fetches the
// history of the selected tables once at the app's clock and prints it.
func capacityReport(ctx context.Context, app *exporter.App, table, format string, logger *slog.Logger, w io.Writer) error {
	app.Scheduler.RunOnceNamed(ctx, "discovery", "tables")
	s := exporter.CapacitySettings(app.Config.Collectors.Capacity)
	if table != "" {
		s.Tables = func(name string) bool { return name == table }
	}
	c := collectors.NewCapacity(collectors.Deps{Targets: app.Targets, Inventory: app.Inventory, Logger: logger}, s)
	runErr := c.Run(ctx, app.Clock.Now())
	reports := c.Reports()
	if len(reports) == 0 {
		if table != "" {
			return errors.Join(fmt.Errorf("table %q is not monitored (check the name and the tables filters)", table), runErr)
		}
		return errors.Join(errors.New("no monitored table"), runErr)
	}
	var err error
	switch format {
	case "json":
		err = report.CapacityJSON(w, reports, app.Clock.Now())
	case "markdown":
		err = report.CapacityMarkdown(w, reports, app.Clock.Now())
	case "html":
		err = report.CapacityHTML(w, reports, app.Clock.Now())
	case "table", "":
		writeCapacityReport(w, reports)
	default:
		err = fmt.Errorf("--format %q: use table, json, markdown or html", format)
	}
	if err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("some figures are missing: %w", runErr)
	}
	return nil
}

// writeCapacityReport prints the figures as two tables.
func writeCapacityReport(out io.Writer, reports []collectors.TableReport) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Traffic (ratios over 1 day and the rolling 7 days; peak = collectors.capacity.peak_percentile (default 99th) of 1-minute rates / mean over 7 days; baselines = median hourly read+write units/s)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tINDEX\tR/W 1D\tR/W 7D\tDRIFT\tPEAK/AVG READ\tPEAK/AVG WRITE\tBASELINE 1W\tBASELINE 4W\tSURGE RETENTION\tSINCE SURGE PEAK")
	for _, r := range reports {
		for _, f := range r.Traffic {
			retention, since := "-", "-"
			if f.Surge != nil {
				retention, since = num(f.Surge.Retention), days(f.Surge.SincePeak)
			}
			index := f.Index
			if index == "" {
				index = "(table)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Account, r.Region, r.Table, index,
				num(f.Ratio1d), num(f.Ratio7d), pct(f.Drift), num(f.PeakToAverage[0]), num(f.PeakToAverage[1]),
				num(f.Baseline1w), num(f.Baseline4w), retention, since)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Cost what-if (USD over the window of actual consumption, both windows read off one auto-scaling simulation; consumed capacity hides demand real throttling refused; throughput only, storage out of scope)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tMODE\tWINDOW\tON-DEMAND\tPROVISIONED\tSAVING/MONTH\tTHROTTLED UNITS\tRECOMMENDATION\tREASON")
	var notes []string
	for _, r := range reports {
		if r.Err != nil {
			notes = append(notes, fmt.Sprintf("%s/%s %s: %v", r.Account, r.Region, r.Table, r.Err))
		}
		if len(r.Costs) == 0 && r.Err == nil {
			notes = append(notes, fmt.Sprintf("%s/%s %s: less than an hour of history", r.Account, r.Region, r.Table))
		}
		for _, c := range r.Costs {
			e := c.Evaluation
			window := c.Window
			if c.Covered < 24*time.Hour*time.Duration(windowDays(c.Window)) {
				window += " (" + days(c.Covered) + ")"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%s\t%s\n", r.Account, r.Region, r.Table, r.Mode, window,
				e.OnDemand.Total(), e.Provisioned.Total(), e.MonthlySaving, e.Throttled.Total(), e.Recommendation.Action, e.Recommendation.Code)
			notes = append(notes, fmt.Sprintf("%s %s: %s", r.Table, c.Window, e.Recommendation.Reason))
		}
	}
	_ = w.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(out)
		for _, n := range notes {
			fmt.Fprintln(out, n)
		}
	}
}

func windowDays(label string) int {
	var n int
	_, _ = fmt.Sscanf(label, "%dd", &n)
	return n
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3g", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", 100*v)
}

func days(d time.Duration) string {
	return fmt.Sprintf("%.1fd", d.Hours()/24)
}
