package awsclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

func TestRefusalDelay(t *testing.T) {
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute}
	for i, w := range want {
		if got := refusalDelay(i + 1); got != w {
			t.Errorf("refusalDelay(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// TestSTSRefusalIsNotAskedAgainAtOnce: through the real SDK against the
// simulated account, an assumed role whose renewal STS refuses fails every
// call with STS's error code, but STS is asked again only after the
// backoff; once STS answers again the next renewal succeeds.
func TestSTSRefusalIsNotAskedAgainAtOnce(t *testing.T) {
	t.Run("AccessDenied", func(t *testing.T) {
		testSTSRefusal(t, "AccessDenied", func(sim *awssim.Server) func() {
			sim.Deny("sts:AssumeRole")
			return func() { sim.Allow("sts:AssumeRole") }
		})
	})
	// The base credentials the role is assumed with have expired.
	t.Run("ExpiredToken", func(t *testing.T) {
		testSTSRefusal(t, "ExpiredToken", func(sim *awssim.Server) func() {
			return sim.AddFault(awssim.Fault{Service: awssim.ServiceSTS, Operation: "AssumeRole", Error: awssim.ErrExpiredToken,
				Message: "The security token included in the request is expired"})
		})
	})
}

func testSTSRefusal(t *testing.T, code string, refuse func(*awssim.Server) (stop func())) {
	clk := clock.NewManual(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	sim := awssim.New(awssim.WithClock(clk))
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	stop := refuse(sim)
	u := sim.URL()
	role := "arn:aws:iam::" + awssim.DefaultAccountID + ":role/dynamodb-exporter"
	target, err := NewTarget(context.Background(), config.Account{Name: "prod", RoleARN: role}, "us-east-1", Options{
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Endpoints:   config.Endpoints{DynamoDB: u, CloudWatch: u, ApplicationAutoScaling: u, STS: u},
		Now:         clk.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func() error {
		_, err := target.DynamoDB.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		return err
	}
	asked := func() int { return sim.RequestCount(awssim.ServiceSTS, "AssumeRole") }

	for i := range 3 {
		err := call()
		if got := ErrorCode(err); got != code {
			t.Fatalf("call %d: error code %q, want STS's %s: %v", i, got, code, err)
		}
		if i > 0 && !strings.Contains(err.Error(), "asking again from 2026-03-02T10:01:00Z") {
			t.Errorf("call %d: the error does not say when STS is asked again: %v", i, err)
		}
	}
	if n := asked(); n != 1 {
		t.Fatalf("STS asked %d times for 3 calls within the backoff, want 1", n)
	}
	clk.Advance(time.Minute)
	_ = call()
	if n := asked(); n != 2 {
		t.Fatalf("STS asked %d times once the first backoff (1m) passed, want 2", n)
	}
	stop()
	clk.Advance(time.Minute) // the second backoff is 2m
	if err := call(); err == nil || asked() != 2 {
		t.Fatalf("within the second backoff: err %v, STS asked %d times (want an error, 2)", err, asked())
	}
	clk.Advance(time.Minute)
	if err := call(); err != nil {
		t.Fatalf("after the backoff, with STS answering: %v", err)
	}
	if n := asked(); n != 3 {
		t.Errorf("STS asked %d times, want 3", n)
	}
}
