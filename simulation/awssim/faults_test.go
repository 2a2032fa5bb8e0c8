package awssim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	aas "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func describe(c *dynamodb.Client, name string) error {
	_, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	return err
}

func TestFaultsNextNCallsAndTableFilter(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	s.InjectFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Table: "orders", Error: ErrThrottling, Times: 2})

	if err := describe(ddb, "sessions"); err != nil {
		t.Fatalf("other table affected: %v", err)
	}
	wantAPIError(t, describe(ddb, "orders"), "ThrottlingException")
	wantAPIError(t, describe(ddb, "orders"), "ThrottlingException")
	if err := describe(ddb, "orders"); err != nil {
		t.Fatalf("third call should pass: %v", err)
	}

	// The SDK's standard retryer gets through two throttles.
	s.InjectFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Error: ErrThrottling, Times: 2})
	rc := cfg("us-east-1")
	rc.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			o.RateLimiter = noRateLimit{}
		})
	}
	s.ResetRequests()
	if err := describe(clientsFor(s, rc).ddb, "orders"); err != nil {
		t.Fatalf("retries: %v", err)
	}
	if n := s.RequestCount(ServiceDynamoDB, "DescribeTable"); n != 3 {
		t.Fatalf("want 3 attempts, got %d", n)
	}

	s.InjectFault(Fault{Service: ServiceDynamoDB, Error: ErrInternal, Times: 1})
	err := describe(ddb, "orders")
	wantAPIError(t, err, "InternalServerError")
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != 500 {
		t.Fatalf("want HTTP 500, got %v", err)
	}

	s.InjectFault(Fault{Service: ServiceCloudWatch, Operation: "ListMetrics", Error: ErrThrottling})
	cw := clientsFor(s, cfg("us-east-1")).cw
	_, err = cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{})
	wantAPIError(t, err, "Throttling")
	s.ClearFaults()
	if _, err := cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{}); err != nil {
		t.Fatal(err)
	}
}

type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }

func TestFaultDelayHonoursClientTimeout(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	s.InjectFault(Fault{Service: ServiceDynamoDB, Operation: "ListTables", Delay: 5 * time.Second, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err == nil || time.Since(begin) > 3*time.Second {
		t.Fatalf("delay not applied or not cancellable: %v after %v", err, time.Since(begin))
	}
}

func TestDenyAnswersAccessDeniedPerProtocol(t *testing.T) {
	s, _ := fixture(t, t0)
	c := clientsFor(s, cfg("us-east-1"))
	ctx := context.Background()
	s.Deny("dynamodb:DescribeTable", "cloudwatch:GetMetricData", "application-autoscaling:DescribeScalableTargets")

	msg := wantAPIError(t, describe(c.ddb, "orders"), "AccessDeniedException")
	want := "User: arn:aws:iam::123456789012:user/awssim is not authorized to perform: dynamodb:DescribeTable on resource: arn:aws:dynamodb:us-east-1:123456789012:table/orders because no identity-based policy allows the dynamodb:DescribeTable action"
	if msg != want {
		t.Fatalf("message\n%s\nwant\n%s", msg, want)
	}
	_, err := c.cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(t0),
		MetricDataQueries: []cwtypes.MetricDataQuery{query("m1", consumedRead, 60, "Sum")},
	})
	if msg := wantAPIError(t, err, "AccessDenied"); !strings.Contains(msg, "cloudwatch:GetMetricData") {
		t.Fatalf("message %q", msg)
	}
	_, err = c.aas.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb})
	wantAPIError(t, err, "AccessDeniedException")

	// Other actions are not affected, and Allow lifts the deny.
	if _, err := c.cw.ListMetrics(ctx, &cloudwatch.ListMetricsInput{}); err != nil {
		t.Fatal(err)
	}
	s.Allow("dynamodb:DescribeTable")
	if err := describe(c.ddb, "orders"); err != nil {
		t.Fatal(err)
	}
}

func TestUnsignedRequestIsRefused(t *testing.T) {
	s, _ := fixture(t, t0)
	req, err := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e map[string]string
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || e["__type"] != "com.amazon.coral.service#MissingAuthenticationTokenException" {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
	recs := s.Requests()
	if len(recs) != 1 || recs[0].ErrorCode != "MissingAuthenticationTokenException" {
		t.Fatalf("records %+v", recs)
	}
}

// TestFaultByRegionAnyService: a fault with a region and no service fails
// every service in that region (a regional outage) and nothing elsewhere.
func TestFaultByRegionAnyService(t *testing.T) {
	s, _ := fixture(t, t0)
	remove := s.AddFault(Fault{Region: "eu-west-1", Error: ErrInternal})
	eu, us := clientsFor(s, cfg("eu-west-1")), clientsFor(s, cfg("us-east-1"))
	_, err := eu.ddb.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "InternalServerError")
	_, err = eu.cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{})
	if err == nil {
		t.Fatal("CloudWatch in the failing region answered")
	}
	if _, err := us.ddb.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("other region affected: %v", err)
	}
	if _, err := us.cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{}); err != nil {
		t.Fatalf("other region's CloudWatch affected: %v", err)
	}
	remove()
	if _, err := eu.ddb.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("after the fault ends: %v", err)
	}
}

// TestFaultOnMatchChangesTheAccountMidRequest: a trigger deleting the table
// a DescribeTable names makes that very request answer ResourceNotFound.
func TestFaultOnMatchChangesTheAccountMidRequest(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	fired := 0
	s.AddFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Table: "orders", Times: 1, OnMatch: func() {
		fired++
		s.DeleteTable("us-east-1", "orders")
	}})
	if err := describe(ddb, "sessions"); err != nil {
		t.Fatalf("other table: %v", err)
	}
	wantAPIError(t, describe(ddb, "orders"), "ResourceNotFoundException")
	wantAPIError(t, describe(ddb, "orders"), "ResourceNotFoundException")
	if fired != 1 {
		t.Fatalf("trigger ran %d times, want 1", fired)
	}
}

// TestClockSkew: with AWS's clock 20 minutes ahead, a request signed on the
// wall clock is refused as expired, with AWS's time in the Date header; the
// SDK's standard retryer corrects its signing time from it and the retry
// passes.
func TestClockSkew(t *testing.T) {
	s, _ := fixture(t, t0)
	s.SetClockSkew(20 * time.Minute)
	var raw *http.Response
	_, err := clientsFor(s, cfg("us-east-1")).ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")},
		func(o *dynamodb.Options) {
			o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
				return st.Deserialize.Add(middleware.DeserializeMiddlewareFunc("raw", func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleDeserialize(ctx, in)
					if r, ok := out.RawResponse.(*smithyhttp.Response); ok {
						raw = r.Response
					}
					return out, md, err
				}), middleware.Before)
			})
		})
	msg := wantAPIError(t, err, "InvalidSignatureException")
	if !strings.Contains(msg, "Signature expired") {
		t.Errorf("message %q", msg)
	}
	date, perr := http.ParseTime(raw.Header.Get("Date"))
	if perr != nil || date.Sub(time.Now()) < 19*time.Minute {
		t.Errorf("Date header %q is not AWS's skewed time (%v)", raw.Header.Get("Date"), perr)
	}

	rc := cfg("us-east-1")
	rc.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	}
	s.ResetRequests()
	if err := describe(clientsFor(s, rc).ddb, "orders"); err != nil {
		t.Fatalf("the SDK did not correct its clock: %v", err)
	}
	if n := s.RequestCount(ServiceDynamoDB, "DescribeTable"); n != 2 {
		t.Errorf("%d attempts, want 2 (refused, then corrected)", n)
	}
	s.SetClockSkew(0)
	if err := describe(clientsFor(s, cfg("us-east-1")).ddb, "orders"); err != nil {
		t.Fatalf("clocks agree: %v", err)
	}
	s.SetClockSkew(-10 * time.Minute)
	wantAPIError(t, describe(clientsFor(s, cfg("us-east-1")).ddb, "orders"), "InvalidSignatureException")
	s.ClearClockSkew()
	if err := describe(clientsFor(s, cfg("us-east-1")).ddb, "orders"); err != nil {
		t.Fatalf("check off: %v", err)
	}
}

// TestFaultResetMidBody: the answer is cut half way through its promised
// body; the SDK sees a deserialization error (unexpected EOF), not an API
// error, and its standard retryer does not retry it: one attempt.
func TestFaultResetMidBody(t *testing.T) {
	s, _ := fixture(t, t0)
	s.AddFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Table: "orders", Reset: true, Times: 1})
	err := describe(clientsFor(s, cfg("us-east-1")).ddb, "orders")
	var ae smithy.APIError
	if err == nil || errors.As(err, &ae) {
		t.Fatalf("reset mid-body answered %v, want a transport error", err)
	}
	if err := describe(clientsFor(s, cfg("us-east-1")).ddb, "orders"); err != nil {
		t.Fatalf("after the reset: %v", err)
	}

	s.AddFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Reset: true, Times: 1})
	rc := cfg("us-east-1")
	rc.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	}
	s.ResetRequests()
	if err := describe(clientsFor(s, rc).ddb, "orders"); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("reset mid-body with retries: %v, want unexpected EOF", err)
	}
	if n := s.RequestCount(ServiceDynamoDB, "DescribeTable"); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// TestPeakInFlight: two DescribeTable calls held by a delay at the same
// time peak at 2; calls one after the other at 1.
func TestPeakInFlight(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	for range 2 {
		_ = describe(ddb, "orders")
	}
	if n := s.PeakInFlight(ServiceDynamoDB, "DescribeTable", "us-east-1"); n != 1 {
		t.Fatalf("sequential calls peak at %d, want 1", n)
	}
	s.ResetPeakInFlight()
	remove := s.AddFault(Fault{Service: ServiceDynamoDB, Operation: "DescribeTable", Delay: 200 * time.Millisecond})
	defer remove()
	done := make(chan error, 2)
	for range 2 {
		go func() { done <- describe(ddb, "orders") }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := s.PeakInFlight(ServiceDynamoDB, "DescribeTable", "us-east-1"); n != 2 {
		t.Fatalf("concurrent calls peak at %d, want 2", n)
	}
	if n := s.PeakInFlight(ServiceDynamoDB, "DescribeTable", "eu-west-1"); n != 0 {
		t.Fatalf("other region peaks at %d", n)
	}
}
