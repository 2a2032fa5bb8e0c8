package systemtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/report"
)

// The AWS calls of the commands other than serve and check, made through
// the same packages the CLI's verbs call, with their text output.

// ttlAudit does what `ttl audit --table table` does against target: it
// describes the table, samples it (sampleItems items at most, budget read
// units) and writes the text report to w.
func ttlAudit(ctx context.Context, target *awsclient.Target, table string, sampleItems int, budget float64, now time.Time, w io.Writer) error {
	at, err := collectors.DescribeForTTLAudit(ctx, target.DynamoDB, table, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "table %s (%s, %s): TTL %s on attribute %q, %d items\n", table, target.Account, target.Region, at.Status, at.Attribute, at.Items)
	res, err := collectors.SampleTable(ctx, target.DynamoDB, at.Description, collectors.SampleOptions{
		Attribute: at.Attribute, SampleItems: sampleItems, Budget: budget, MaxReadRate: 1e6, Now: now,
	})
	if err != nil {
		return err
	}
	head := report.TTLAuditHead{Account: target.Account, Region: target.Region, Table: table, Status: at.Status,
		Attribute: at.Attribute, TableItems: at.Items, Now: now}
	return report.TTL(w, "table", head, res)
}

// capacityReport does what `capacity report` does (every monitored table
// when table is empty) and writes the text report to w.
func capacityReport(ctx context.Context, app *exporter.App, table string, logger *slog.Logger, w io.Writer) error {
	reports, err := app.CapacityReports(ctx, table, logger)
	if len(reports) > 0 {
		report.CapacityText(w, reports)
	}
	return err
}
