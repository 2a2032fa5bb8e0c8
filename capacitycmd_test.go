package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/simtest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// fixtureApp builds an exporter against the simulated fixture account.
func fixtureApp(t *testing.T) *exporter.App {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 11, 20, 14, 8, 30, 0, time.UTC))
	sim := awssim.New(awssim.WithClock(clk))
	if err := awssim.LoadFixture(sim); err != nil {
		t.Fatal(err)
	}
	app, _ := simtest.Exporter(t, sim, clk, "accounts: [{name: fixture, regions: [us-east-1, eu-west-1]}]\n")
	return app
}

func TestCapacityReportOneTable(t *testing.T) {
	app := fixtureApp(t)
	var out bytes.Buffer
	if err := capacityReport(context.Background(), app, "sessions", slog.New(slog.DiscardHandler), &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", out.String())
	for _, want := range []string{
		"R/W 1D", "PEAK/AVG READ", "SURGE RETENTION",
		"storage out of scope",
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
	err := capacityReport(context.Background(), app, "nope", slog.New(slog.DiscardHandler), &out)
	if err == nil || !strings.Contains(err.Error(), `table "nope" is not monitored`) {
		t.Fatalf("err = %v, want one naming the table", err)
	}
}
