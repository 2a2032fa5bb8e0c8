package awssim

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// timed returns how long f took.
func timed(f func() error) (time.Duration, error) {
	begin := time.Now()
	err := f()
	return time.Since(begin), err
}

// TestSetLatencyDelaysEveryCallOfTheAPI checks the account-wide latency
// through the SDK: every call of the API waits it, the most specific rule
// wins, other APIs are not slowed, a fault still applies on top, and
// removing the rule removes the wait.
func TestSetLatencyDelaysEveryCallOfTheAPI(t *testing.T) {
	s, _ := fixture(t, t0)
	c := clientsFor(s, cfg("us-east-1"))
	ctx := context.Background()
	const slow = 400 * time.Millisecond
	listTables := func() error { _, err := c.ddb.ListTables(ctx, &dynamodb.ListTablesInput{}); return err }
	describeOrders := func() error { return describe(c.ddb, "orders") }
	listMetrics := func() error {
		_, err := c.cw.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String(NamespaceDynamoDB)})
		return err
	}

	s.SetLatency(ServiceDynamoDB, "ListTables", slow)
	for i := range 3 {
		if d, err := timed(listTables); err != nil || d < slow {
			t.Fatalf("ListTables call %d took %v (err %v), want at least %v", i+1, d, err, slow)
		}
	}
	if d, err := timed(describeOrders); err != nil || d >= slow {
		t.Fatalf("DescribeTable took %v (err %v): slowed by a ListTables latency", d, err)
	}

	// Account-wide, with a more specific rule for DynamoDB.
	s.SetLatency("", "", 2*slow)
	s.SetLatency(ServiceDynamoDB, "", slow/4)
	if d, err := timed(listMetrics); err != nil || d < 2*slow {
		t.Fatalf("ListMetrics took %v (err %v), want at least %v", d, err, 2*slow)
	}
	// At least the DynamoDB rule's latency, less than the account's.
	if d, err := timed(describeOrders); err != nil || d < slow/4 || d >= 2*slow {
		t.Fatalf("DescribeTable took %v (err %v), want the DynamoDB rule's %v", d, err, slow/4)
	}

	// A fault's delay adds to the latency.
	s.SetLatency("", "", 0)
	s.SetLatency(ServiceDynamoDB, "", 0)
	s.InjectFault(Fault{Service: ServiceDynamoDB, Operation: "ListTables", Error: ErrInternal, Delay: slow / 2, Times: 1})
	d, err := timed(listTables)
	wantAPIError(t, err, "InternalServerError")
	if d < slow+slow/2 {
		t.Fatalf("ListTables with a delaying fault took %v, want the latency and the delay, %v", d, slow+slow/2)
	}
	// The ListTables rule is still set; the fault was used once.
	if d, err := timed(listTables); err != nil || d < slow {
		t.Fatalf("ListTables after the fault took %v (err %v), want at least %v", d, err, slow)
	}
	s.SetLatency(ServiceDynamoDB, "ListTables", 0)
	if d, err := timed(listTables); err != nil || d >= slow {
		t.Fatalf("ListTables took %v (err %v) after its latency was removed", d, err)
	}
}

func TestSetLatencyHonoursClientTimeout(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	s.SetLatency("", "", 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	d, err := timed(func() error { _, err := ddb.ListTables(ctx, &dynamodb.ListTablesInput{}); return err })
	if err == nil || d > 3*time.Second {
		t.Fatalf("latency not applied or not cancellable: %v after %v", err, d)
	}
}
