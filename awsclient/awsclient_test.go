package awsclient

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

func TestErrorCode(t *testing.T) {
	cases := []struct {
		err    error
		code   string
		denied bool
	}{
		{nil, "", false},
		{&smithy.GenericAPIError{Code: "ThrottlingException"}, "ThrottlingException", false},
		{fmt.Errorf("describing: %w", &smithy.GenericAPIError{Code: "AccessDeniedException"}), "AccessDeniedException", true},
		{&smithy.GenericAPIError{Code: "AccessDenied"}, "AccessDenied", true},
		{fmt.Errorf("run: %w", context.DeadlineExceeded), "canceled", false},
		{errors.New("dial tcp: connection refused"), "transport", false},
	}
	for _, c := range cases {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", c.err, got, c.code)
		}
		if got := IsAccessDenied(c.err); got != c.denied {
			t.Errorf("IsAccessDenied(%v) = %v, want %v", c.err, got, c.denied)
		}
	}
}

func TestNewTargetsNeedsARegion(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_PROFILE", "")
	cfg := config.Default()
	cfg.Accounts[0].Name = "prod"
	_, err := NewTargets(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), `accounts[0] ("prod"): no regions configured and no default region found`) {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("AWS_REGION", "eu-central-1")
	targets, err := NewTargets(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || targets[0].Region != "eu-central-1" || targets[0].Key() != "prod/eu-central-1" {
		t.Errorf("targets = %+v", targets)
	}
}

// TestEndpointFromEnvironment checks that AWS_ENDPOINT_URL (the SDK's own
// setting, as LocalStack users set it) reaches every client.
func TestEndpointFromEnvironment(t *testing.T) {
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_REGION", "us-west-2")
	target, err := NewTarget(context.Background(), config.Account{Name: "local"}, "us-west-2", Options{
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := target.DynamoDB.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := target.CloudWatch.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := target.AutoScaling.DescribeScalableTargets(context.Background(), &applicationautoscaling.DescribeScalableTargetsInput{ServiceNamespace: "dynamodb"}); err != nil {
		t.Fatal(err)
	}
	for _, svc := range []string{awssim.ServiceDynamoDB, awssim.ServiceCloudWatch, awssim.ServiceAutoScaling} {
		if sim.RequestCount(svc, "") != 1 {
			t.Errorf("%s requests at the AWS_ENDPOINT_URL server = %d, want 1", svc, sim.RequestCount(svc, ""))
		}
	}
}
