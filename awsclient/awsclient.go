// Package awsclient builds the AWS clients the collectors use, one set per
// account and region, behind narrow interfaces. Every call is counted (by
// service, operation and error code) through SDK middleware, so requests and
// failures are visible as exporter self-metrics whatever collector made them.
package awsclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/dynamodb-exporter/dynamodb_exporter/config"
)

// DynamoDBAPI is the part of the DynamoDB API the exporter uses.
type DynamoDBAPI interface {
	ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
	ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// CloudWatchAPI is the part of the CloudWatch API the exporter uses.
type CloudWatchAPI interface {
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
	ListMetrics(ctx context.Context, in *cloudwatch.ListMetricsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.ListMetricsOutput, error)
}

// AutoScalingAPI is the part of the Application Auto Scaling API the exporter uses.
type AutoScalingAPI interface {
	DescribeScalableTargets(ctx context.Context, in *applicationautoscaling.DescribeScalableTargetsInput, optFns ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalableTargetsOutput, error)
	DescribeScalingPolicies(ctx context.Context, in *applicationautoscaling.DescribeScalingPoliciesInput, optFns ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalingPoliciesOutput, error)
	DescribeScheduledActions(ctx context.Context, in *applicationautoscaling.DescribeScheduledActionsInput, optFns ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScheduledActionsOutput, error)
}

// Recorder receives one event per AWS call attempt. The exporter's
// self-metrics implement it.
type Recorder interface {
	// RecordRequest counts one attempt; errorCode is empty on success.
	RecordRequest(account, region, service, operation, errorCode string)
	// RecordCloudWatchMetrics counts metrics requested by one GetMetricData attempt.
	RecordCloudWatchMetrics(account, region string, n int)
}

// Target is one account and region with its clients.
type Target struct {
	// Account is the configured account name (the account label).
	Account string
	// Region is the AWS region.
	Region string

	DynamoDB    DynamoDBAPI
	CloudWatch  CloudWatchAPI
	AutoScaling AutoScalingAPI
}

// Key identifies the target in logs and maps.
func (t *Target) Key() string { return t.Account + "/" + t.Region }

// Options tune client construction.
type Options struct {
	// Endpoints overrides service endpoints.
	Endpoints config.Endpoints
	// Credentials replaces the default credential chain when set (the
	// built-in simulated account uses static credentials).
	Credentials aws.CredentialsProvider
	// HTTPClient replaces the SDK's HTTP client when set.
	HTTPClient *http.Client
	// Recorder receives request events; nil disables counting.
	Recorder Recorder
	// MaxAttempts is the SDK retry budget per call (default 3).
	MaxAttempts int
	// CallTimeout bounds each attempt of a call (the HTTP client's
	// timeout) unless HTTPClient is set; 0 takes the configuration's
	// aws.call_timeout.
	CallTimeout time.Duration
	// WrapBackoff, when set, wraps the SDK standard retryer's exponential
	// jitter backoff (capped at retry.DefaultMaxBackoff): a test can record
	// the delays it chose and sleep less on a simulated clock. Nil keeps
	// the SDK's own retryer.
	WrapBackoff func(retry.BackoffDelayer) retry.BackoffDelayer
	// Now is the clock the backoff after STS refuses to renew an assumed
	// role runs on (nil: the wall clock). A test on a simulated clock sets
	// it so that the backoff's figures do not depend on the machine.
	Now func() time.Time
	// CredentialExpiryWindow is how long before its expiry an assumed
	// role's session is renewed (0: DefaultCredentialExpiryWindow).
	CredentialExpiryWindow time.Duration
}

// NewTargets builds a Target for every account and region of the config.
// An account without regions uses the SDK's default region (AWS_REGION or the
// shared config file); if there is none that is an error naming the account.
func NewTargets(ctx context.Context, cfg *config.Config, opts Options) ([]*Target, error) {
	if opts.CallTimeout == 0 {
		opts.CallTimeout = cfg.AWS.CallTimeout.D()
	}
	var out []*Target
	for i, acct := range cfg.Accounts {
		regions := acct.Regions
		if len(regions) == 0 {
			base, err := loadBase(ctx, "", opts)
			if err != nil {
				return nil, fmt.Errorf("account %q: %w", acct.Name, err)
			}
			if base.Region == "" {
				return nil, fmt.Errorf("accounts[%d] (%q): no regions configured and no default region found; set accounts[%d].regions or AWS_REGION", i, acct.Name, i)
			}
			regions = []string{base.Region}
		}
		for _, region := range regions {
			t, err := NewTarget(ctx, acct, region, opts)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func loadBase(ctx context.Context, region string, opts Options) (aws.Config, error) {
	var lo []func(*awsconfig.LoadOptions) error
	if region != "" {
		lo = append(lo, awsconfig.WithRegion(region))
	}
	if opts.Credentials != nil {
		lo = append(lo, awsconfig.WithCredentialsProvider(opts.Credentials))
	}
	switch {
	case opts.HTTPClient != nil:
		lo = append(lo, awsconfig.WithHTTPClient(opts.HTTPClient))
	case opts.CallTimeout > 0:
		lo = append(lo, awsconfig.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(opts.CallTimeout)))
	}
	max := opts.MaxAttempts
	if max == 0 {
		max = 3
	}
	lo = append(lo, awsconfig.WithRetryMaxAttempts(max))
	if wrap := opts.WrapBackoff; wrap != nil {
		lo = append(lo, awsconfig.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = max
				o.Backoff = wrap(retry.NewExponentialJitterBackoff(retry.DefaultMaxBackoff))
			})
		}))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading AWS configuration: %w", err)
	}
	cfg.APIOptions = append(cfg.APIOptions, keepRequestBodyReadable)
	return cfg, nil
}

// NewTarget builds the clients of one account in one region.
func NewTarget(ctx context.Context, acct config.Account, region string, opts Options) (*Target, error) {
	cfg, err := loadBase(ctx, region, opts)
	if err != nil {
		return nil, fmt.Errorf("account %q region %s: %w", acct.Name, region, err)
	}
	if opts.Recorder != nil {
		cfg.APIOptions = append(cfg.APIOptions, countRequests(acct.Name, region, opts.Recorder))
	}
	if acct.RoleARN != "" {
		stsClient := sts.NewFromConfig(cfg, func(o *sts.Options) {
			if opts.Endpoints.STS != "" {
				o.BaseEndpoint = aws.String(opts.Endpoints.STS)
			}
		})
		provider := stscreds.NewAssumeRoleProvider(stsClient, acct.RoleARN, func(o *stscreds.AssumeRoleOptions) {
			o.RoleSessionName = "dynamodb_exporter"
			if acct.ExternalID != "" {
				o.ExternalID = aws.String(acct.ExternalID)
			}
		})
		window := opts.CredentialExpiryWindow
		if window <= 0 {
			window = DefaultCredentialExpiryWindow
		}
		now := opts.Now
		if now == nil {
			now = time.Now
		}
		backoff := &refusalBackoff{provider: provider, role: acct.RoleARN, now: now}
		cfg.Credentials = aws.NewCredentialsCache(backoff, func(o *aws.CredentialsCacheOptions) {
			o.ExpiryWindow = window
		})
	}
	return &Target{
		Account: acct.Name,
		Region:  region,
		DynamoDB: dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			if opts.Endpoints.DynamoDB != "" {
				o.BaseEndpoint = aws.String(opts.Endpoints.DynamoDB)
			}
		}),
		CloudWatch: cloudwatch.NewFromConfig(cfg, func(o *cloudwatch.Options) {
			if opts.Endpoints.CloudWatch != "" {
				o.BaseEndpoint = aws.String(opts.Endpoints.CloudWatch)
			}
		}),
		AutoScaling: applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) {
			if opts.Endpoints.ApplicationAutoScaling != "" {
				o.BaseEndpoint = aws.String(opts.Endpoints.ApplicationAutoScaling)
			}
		}),
	}, nil
}

type queriesKey struct{}

// countRequests adds two middlewares: one in the Initialize step that notes
// how many metrics a GetMetricData call requests, and one at the end of the
// Finalize step (inside the retry loop) that records every attempt.
func countRequests(account, region string, rec Recorder) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("dynamodbExporterNoteQueries",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if p, ok := in.Parameters.(*cloudwatch.GetMetricDataInput); ok {
					ctx = middleware.WithStackValue(ctx, queriesKey{}, len(p.MetricDataQueries))
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
		if err != nil {
			return err
		}
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("dynamodbExporterCountRequests",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				service := awsmiddleware.GetServiceID(ctx)
				op := awsmiddleware.GetOperationName(ctx)
				rec.RecordRequest(account, region, service, op, ErrorCode(err))
				if n, ok := middleware.GetStackValue(ctx, queriesKey{}).(int); ok && n > 0 {
					rec.RecordCloudWatchMetrics(account, region, n)
				}
				return out, md, err
			}), middleware.After)
	}
}

// ErrorCode returns the AWS error code of err ("ThrottlingException",
// "AccessDeniedException"...), "canceled" or "transport" for failures that did
// not come from AWS, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "canceled"
	}
	return "transport"
}

// IsAccessDenied reports whether err is an IAM authorization failure.
func IsAccessDenied(err error) bool {
	switch ErrorCode(err) {
	case "AccessDeniedException", "AccessDenied", "UnauthorizedOperation", "AuthorizationError":
		return true
	}
	return false
}
