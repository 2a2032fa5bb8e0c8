package awssim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
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
	wantAPIError(t, err, "UnrecognizedClientException")

	_, err = base.sts.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123:role/x"), RoleSessionName: aws.String("s1")})
	wantAPIError(t, err, "ValidationError")
}
