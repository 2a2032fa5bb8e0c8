package awssim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

func TestAssumeRoleThenCallWithAssumedCredentials(t *testing.T) {
	s, clk := fixture(t, t0)
	base := clientsFor(s, cfg("us-east-1"))
	ctx := context.Background()

	who, err := base.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if *who.Account != "123456789012" || *who.Arn != "arn:aws:iam::123456789012:user/awssim" {
		t.Fatalf("caller %s %s", *who.Account, *who.Arn)
	}

	roleARN := "arn:aws:iam::123456789012:role/exporter"
	assumed := cfg("us-east-1")
	assumed.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(base.sts, roleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "scrape"
	}))
	c := clientsFor(s, assumed)
	if _, err := c.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	recs := s.Requests()
	last := recs[len(recs)-1]
	wantARN := "arn:aws:sts::123456789012:assumed-role/exporter/scrape"
	if last.Operation != "DescribeTable" || !strings.HasPrefix(last.AccessKeyID, "ASIA") || last.Principal != wantARN {
		t.Fatalf("record %+v", last)
	}
	if s.RequestCount(ServiceSTS, "AssumeRole") != 1 {
		t.Fatalf("AssumeRole count %d", s.RequestCount(ServiceSTS, "AssumeRole"))
	}
	id := s.Identity(last.AccessKeyID)
	if id.RoleARN != roleARN || id.SessionName != "scrape" {
		t.Fatalf("identity %+v", id)
	}
	who, err = c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if *who.Arn != wantARN || !strings.HasSuffix(*who.UserId, ":scrape") {
		t.Fatalf("assumed caller %s %s", *who.Arn, *who.UserId)
	}

	// The assumed key without its session token is refused.
	creds, err := assumed.Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	noToken := cfg("us-east-1")
	noToken.Credentials = credentials.NewStaticCredentialsProvider(creds.AccessKeyID, creds.SecretAccessKey, "")
	_, err = clientsFor(s, noToken).ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException")

	// And expires after the default hour.
	clk.Advance(61 * time.Minute)
	stale := cfg("us-east-1")
	stale.Credentials = credentials.NewStaticCredentialsProvider(creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken)
	_, err = clientsFor(s, stale).ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "ExpiredTokenException")

	_, err = base.sts.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123:role/x"), RoleSessionName: aws.String("s1")})
	wantAPIError(t, err, "ValidationError")
}

// TestSessionLifetimeOnTheWallClock: with a wall-clock session lifetime
// (a test-only fault: AWS's minimum is 900 s), the SDK's own credential
// cache renews the session once it has expired, and a request signed with
// the expired session is refused with ExpiredTokenException in each
// service's wire shape, as AWS does.
func TestSessionLifetimeOnTheWallClock(t *testing.T) {
	s, _ := fixture(t, t0)
	const lifetime = 300 * time.Millisecond
	s.SetSessionLifetime(lifetime)
	base := clientsFor(s, cfg("us-east-1"))
	ctx := context.Background()
	assumed := cfg("us-east-1")
	assumed.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(base.sts, "arn:aws:iam::123456789012:role/exporter"))
	c := clientsFor(s, assumed)
	if _, err := c.ddb.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	first, err := assumed.Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(first.Expires); left <= 0 || left > lifetime {
		t.Fatalf("the SDK was told the session expires in %v, want within %v", left, lifetime)
	}
	if n := s.RequestCount(ServiceSTS, "AssumeRole"); n != 1 {
		t.Fatalf("AssumeRole called %d times before the session expired, want 1", n)
	}
	time.Sleep(time.Until(first.Expires))

	if _, err := c.ddb.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the SDK did not renew the expired session: %v", err)
	}
	if n := s.RequestCount(ServiceSTS, "AssumeRole"); n != 2 {
		t.Fatalf("AssumeRole called %d times, want 2: one renewal", n)
	}
	stale := cfg("us-east-1")
	stale.Credentials = credentials.NewStaticCredentialsProvider(first.AccessKeyID, first.SecretAccessKey, first.SessionToken)
	old := clientsFor(s, stale)
	_, err = old.ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "ExpiredTokenException")
	_, err = old.cw.ListMetrics(ctx, &cloudwatch.ListMetricsInput{})
	wantAPIError(t, err, "ExpiredToken")
	_, err = old.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantAPIError(t, err, "ExpiredToken")

	// Back to DurationSeconds on the server clock: the SDK is told the 15
	// minutes it asked (stscreds.DefaultDuration), or more.
	s.SetSessionLifetime(0)
	c2 := cfg("us-east-1")
	c2.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(base.sts, "arn:aws:iam::123456789012:role/exporter"))
	creds, err := c2.Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(creds.Expires); left < 14*time.Minute {
		t.Errorf("without a wall-clock lifetime the session lasts %v, want the 15 minutes asked", left)
	}
}
