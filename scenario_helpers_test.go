package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// simulatedRun is the exporter built against a built-in scenario's
// simulated account, on a manual clock that the test moves.
type simulatedRun struct {
	clk *clock.Manual
	srv *awssim.Server
	eng *sim.Engine
	app *exporter.App
}

// startScenario simulates the built-in scenario name from start and builds
// the exporter against it with the demo's configuration, no TTL pacing and a
// fixed sampling seed. The simulated account is closed when the test ends.
func startScenario(t *testing.T, name string, start time.Time) *simulatedRun {
	t.Helper()
	a := newSimulatedAccount(t, name, start)
	app, err := exporter.Build(context.Background(), a.cfg, exporter.Options{
		Clock: a.clk, AWS: a.aws, Logger: slog.New(slog.DiscardHandler),
		TTLPace: func(context.Context, time.Duration) error { return nil }, TTLSeed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &simulatedRun{clk: a.clk, srv: a.srv, eng: a.eng, app: app}
}

// simulatedAccountRun is a built-in scenario's simulated account on a manual
// clock, with the demo's configuration of the exporter pointed at it.
type simulatedAccountRun struct {
	clk *clock.Manual
	srv *awssim.Server
	eng *sim.Engine
	cfg *config.Config
	aws awsclient.Options
}

// newSimulatedAccount simulates the built-in scenario name from start. The
// simulated account is closed when the test ends.
func newSimulatedAccount(t *testing.T, name string, start time.Time) *simulatedAccountRun {
	t.Helper()
	sc, err := loadScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(start)
	srv, eng, err := simulatedAccount(sc, clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg, awsOpts, err := simulatedConfig(sc, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return &simulatedAccountRun{clk: clk, srv: srv, eng: eng, cfg: cfg, aws: awsOpts}
}

// advance moves the clock and the simulation to at and runs the collectors
// that are due.
func (r *simulatedRun) advance(t *testing.T, at time.Time) {
	t.Helper()
	r.clk.Set(at)
	if err := r.eng.AdvanceTo(at); err != nil {
		t.Fatal(err)
	}
	r.app.Scheduler.RunDue(context.Background())
}
