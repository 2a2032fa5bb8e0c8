package awssim

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// t0 is the manual clock start of most tests: a Wednesday, 12:00 UTC.
var t0 = time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC)

// start returns a started server that is closed with the test.
func start(t *testing.T, s *Server) *Server {
	t.Helper()
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// fixture returns a started fixture server on a manual clock at at.
func fixture(t *testing.T, at time.Time) (*Server, *clock.Manual) {
	t.Helper()
	clk := clock.NewManual(at)
	return start(t, NewFixture(clk)), clk
}

// cfg is an SDK config with static keys, no retries and region.
func cfg(region string) aws.Config {
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
}

type clients struct {
	ddb *dynamodb.Client
	aas *applicationautoscaling.Client
	cw  *cloudwatch.Client
	sts *sts.Client
}

// clientsFor builds the unchanged SDK clients against s.
func clientsFor(s *Server, c aws.Config) clients {
	u := aws.String(s.URL())
	return clients{
		ddb: dynamodb.NewFromConfig(c, func(o *dynamodb.Options) { o.BaseEndpoint = u }),
		aas: applicationautoscaling.NewFromConfig(c, func(o *applicationautoscaling.Options) { o.BaseEndpoint = u }),
		cw:  cloudwatch.NewFromConfig(c, func(o *cloudwatch.Options) { o.BaseEndpoint = u }),
		sts: sts.NewFromConfig(c, func(o *sts.Options) { o.BaseEndpoint = u }),
	}
}

// wantAPIError asserts err is an AWS API error with the given code and
// returns its message.
func wantAPIError(t *testing.T, err error, code string) string {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want API error %s, got %v", code, err)
	}
	if ae.ErrorCode() != code {
		t.Fatalf("want error code %s, got %s (%s)", code, ae.ErrorCode(), ae.ErrorMessage())
	}
	return ae.ErrorMessage()
}
