package awssim

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestConcurrentUse(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("conc-%d", i)
			if err := s.PutTable("us-east-1", Table{Name: name}); err != nil {
				errs <- err
				return
			}
			s.Metrics().AddSample("us-east-1", consumedRead, t0.Add(-time.Minute), float64(i))
			for range 5 {
				if _, err := ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
					errs <- err
				}
				_ = s.Requests()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := s.RequestCount(ServiceDynamoDB, "DescribeTable"); n != 40 {
		t.Fatalf("count %d", n)
	}
	dps := s.Metrics().Datapoints("us-east-1", consumedRead, t0.Add(-time.Hour), t0)
	if len(dps) != 1 || dps[0].SampleCount != 8 || dps[0].Sum != 28 || dps[0].Maximum != 7 {
		t.Fatalf("merged samples %+v", dps)
	}
}
