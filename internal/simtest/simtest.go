// Package simtest builds, for tests, an exporter whose AWS clients reach a
// simulated account over loopback HTTP with the real SDK.
package simtest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// AccessKeyID and SecretAccessKey are the static credentials tests use; a
// test can look for the secret in output that must not contain it.
const (
	AccessKeyID     = "AKIDTEST"
	SecretAccessKey = "SECRETTEST"
)

// Option adjusts the exporter options before Build.
type Option func(*exporter.Options)

// WithDynamoDB sends DynamoDB calls to endpoint (DynamoDB Local, dynalite)
// instead of the simulated account.
func WithDynamoDB(endpoint string) Option {
	return func(o *exporter.Options) { o.AWS.Endpoints.DynamoDB = endpoint }
}

// Exporter serves sim on an httptest server for the test's lifetime and
// builds an exporter from the YAML configuration against it: static
// credentials, one attempt per call, no pacing of the TTL sampler, a fixed
// sampler seed, and clk as the clock.
func Exporter(t testing.TB, sim *awssim.Server, clk clock.Clock, yaml string, opts ...Option) (*exporter.App, string) {
	t.Helper()
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	cfg, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	o := exporter.Options{
		Clock:   clk,
		TTLPace: func(context.Context, time.Duration) error { return nil },
		TTLSeed: 42,
		AWS: awsclient.Options{
			Credentials: credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
			Endpoints: config.Endpoints{
				DynamoDB: srv.URL, CloudWatch: srv.URL, ApplicationAutoScaling: srv.URL, STS: srv.URL,
			},
			MaxAttempts: 1,
		},
	}
	for _, opt := range opts {
		opt(&o)
	}
	app, err := exporter.Build(context.Background(), cfg, o)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return app, srv.URL
}
