// Package harnesstest wraps package harness for tests: each function fails
// the test on error and stops what it started when the test ends.
package harnesstest

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// Scenario loads a built-in scenario by name or a scenario file by path.
func Scenario(t testing.TB, nameOrPath string) *sim.Scenario {
	t.Helper()
	sc, err := harness.LoadScenario(nameOrPath)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Account simulates sc on clk and serves its account until the test ends.
func Account(t testing.TB, sc *sim.Scenario, clk clock.Clock) *harness.Account {
	t.Helper()
	a, err := harness.StartAccount(sc, clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// Run simulates the built-in scenario name from start on a manual clock and
// builds the exporter against it (harness.StartRun); the account is stopped
// when the test ends.
func Run(t testing.TB, name string, start time.Time, o harness.RunOptions) *harness.Run {
	t.Helper()
	return RunScenario(t, Scenario(t, name), start, o)
}

// RunScenario is Run for a loaded scenario.
func RunScenario(t testing.TB, sc *sim.Scenario, start time.Time, o harness.RunOptions) *harness.Run {
	t.Helper()
	r, err := harness.StartRun(context.Background(), sc, start, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// Advance moves the run to at and runs the collectors that are due.
func Advance(t testing.TB, r *harness.Run, at time.Time) {
	t.Helper()
	if err := r.Advance(context.Background(), at); err != nil {
		t.Fatal(err)
	}
}

// Config is the exporter configuration for the account (Account.Config).
func Config(t testing.TB, a *harness.Account, collectors string) *config.Config {
	t.Helper()
	cfg, err := a.Config(collectors)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// AccessKeyID and SecretAccessKey are the static credentials Exporter's
// exporter signs with; a test can look for the secret in output that must
// not contain it. DynamoDB Local (started without -sharedDb) keeps
// databases apart by credentials: with harness.AccessKeyID the exporter
// did not see the tables a test had created there with testtools.AWSConfig,
// with these it does.
const (
	AccessKeyID     = "AKIDTEST"
	SecretAccessKey = "SECRETTEST"
)

// Exporter serves srv, a simulated account set up by hand (awssim.NewFixture,
// PutTable…), on a loopback server until the test ends, and builds the
// exporter against it from the YAML configuration (harness.Build) with the
// credentials above, one attempt per AWS call, the TTL sampler's seed 42 unless o sets one, then
// o.Adjust. It returns the exporter and the
// account's URL.
func Exporter(t testing.TB, srv *awssim.Server, clk clock.Clock, yaml string, o harness.RunOptions) (*exporter.App, string) {
	t.Helper()
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cfg, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if o.TTLSeed == 0 {
		o.TTLSeed = 42
	}
	adjust := o.Adjust
	o.Adjust = func(opts *exporter.Options) {
		opts.AWS.MaxAttempts = 1
		opts.AWS.Credentials = credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, "")
		if adjust != nil {
			adjust(opts)
		}
	}
	app, err := harness.Build(context.Background(), hs.URL, cfg, clk, o)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return app, hs.URL
}
