package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/report"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// fixtureApp builds an exporter against the simulated fixture account.
func fixtureApp(t *testing.T) *exporter.App {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 11, 20, 14, 8, 30, 0, time.UTC))
	sim := awssim.New(awssim.WithClock(clk))
	if err := awssim.LoadFixture(sim); err != nil {
		t.Fatal(err)
	}
	app, _ := harnesstest.Exporter(t, sim, clk, "accounts: [{name: fixture, regions: [us-east-1, eu-west-1]}]\n", harness.RunOptions{})
	return app
}

func TestCapacityReportOneTable(t *testing.T) {
	app := fixtureApp(t)
	var out bytes.Buffer
	if err := capacityReport(context.Background(), app, "sessions", "table", slog.New(slog.DiscardHandler), &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", out.String())
	for _, want := range []string{
		"R/W 1D", "PEAK/AVG READ", "SURGE RETENTION",
		"throughput only: storage is in the table-class section",
		"Table class and storage", "sessions  STANDARD",
		"sessions  (table)",
		"switch_to_provisioned  cheaper",
		"sessions 30d: provisioned would save $",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "orders") {
		t.Error("report shows a table other than the one asked for")
	}
}

func TestCapacityReportUnknownTable(t *testing.T) {
	app := fixtureApp(t)
	var out bytes.Buffer
	err := capacityReport(context.Background(), app, "nope", "table", slog.New(slog.DiscardHandler), &out)
	if err == nil || !strings.Contains(err.Error(), `table "nope" is not monitored`) {
		t.Fatalf("err = %v, want one naming the table", err)
	}
}

// reportOf runs capacity report on the fixture account in format.
func reportOf(t *testing.T, table, format string) string {
	t.Helper()
	app := fixtureApp(t)
	var out bytes.Buffer
	if err := capacityReport(context.Background(), app, table, format, slog.New(slog.DiscardHandler), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestCapacityReportJSON decodes the JSON report and checks its figures
// and that every key it holds is documented in docs/capacity-report.md.
func TestCapacityReportJSON(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(reportOf(t, "", "json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema_version"] != float64(report.SchemaVersion) {
		t.Errorf("schema_version = %v", doc["schema_version"])
	}
	tables, _ := doc["tables"].([]any)
	if len(tables) < 2 {
		t.Fatalf("%d tables, want every fixture table", len(tables))
	}
	var sessions map[string]any
	for _, tb := range tables {
		if m := tb.(map[string]any); m["table"] == "sessions" {
			sessions = m
		}
	}
	if sessions == nil {
		t.Fatal("no sessions table")
	}
	v := sessions["verdict"].(map[string]any)
	if v["recommendation"] != "switch_to_provisioned" || v["reason_code"] != "cheaper" || !strings.Contains(v["reason"].(string), "provisioned would save $") {
		t.Errorf("sessions verdict = %v, want switch_to_provisioned (cheaper) as in the text report", v)
	}
	h := sessions["history"].(map[string]any)
	consumed := h["consumed_read_units_per_second"].([]any)
	if n := len(consumed); n < 24 || n > 30*24 || len(h["provisioned_read_units_per_second"].([]any)) != n {
		t.Errorf("history: %d hourly points, want 24 to 720, as many provisioned as consumed", n)
	}
	var sum float64
	for _, x := range consumed {
		sum += x.(float64)
	}
	if !(sum > 0) {
		t.Error("history: no consumed reads")
	}
	checkDocumented(t, doc, filepath.Join("..", "docs", "capacity-report.md"))
}

// checkDocumented fails on every key of a decoded JSON document that the
// schema file does not name (as `key` or `parent.key`).
func checkDocumented(t *testing.T, doc any, schemaFile string) {
	t.Helper()
	schema, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var keys func(v any)
	keys = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if !regexp.MustCompile("[`.]" + regexp.QuoteMeta(k) + "`").Match(schema) {
					t.Errorf("key %s is not documented in %s", k, schemaFile)
				}
				keys(c)
			}
		case []any:
			for _, c := range x {
				keys(c)
			}
		}
	}
	keys(doc)
}

func TestCapacityReportMarkdown(t *testing.T) {
	md := reportOf(t, "sessions", "markdown")
	for _, want := range []string{"# DynamoDB capacity review", "| Account | Region | Table | Mode | Window |", "| fixture | us-east-1 | sessions |", "switch_to_provisioned (cheaper)", "| sessions | (table) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestCapacityReportHTML checks the HTML report is one self-contained file:
// no external script, style, image or font, and its charts inline.
func TestCapacityReportHTML(t *testing.T) {
	page := reportOf(t, "", "html")
	for _, bad := range []string{"<script src", "<link", "@import", "url(", `src="http`, `href="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("the HTML report loads an external asset (%s)", bad)
		}
	}
	if n := strings.Count(page, "<svg"); n < 4 {
		t.Errorf("%d inline charts, want two per table with history", n)
	}
	if !strings.Contains(page, "switch_to_provisioned (cheaper)") || !strings.Contains(page, `id="t-fixture-us-east-1-sessions"`) {
		t.Error("the HTML report lacks the sessions table's recommendation")
	}
	if strings.Count(page, "<polyline") < 4 {
		t.Error("charts without lines")
	}
}
