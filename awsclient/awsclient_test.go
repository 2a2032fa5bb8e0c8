package awsclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/dynamodb-exporter/dynamodb_exporter/config"
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
