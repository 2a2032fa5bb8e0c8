package awsclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// lateWriter is a RoundTripper that reproduces, every time, the schedule a
// loaded machine produces now and then: net/http's write goroutine reaches
// its check for bytes past ContentLength only after the response headers
// are in and the SDK has closed the request body, and the caller reads the
// response body after that check. It keeps the request body's method set
// (WriteTo or not), so net/http copies it as it would the SDK's own.
type lateWriter struct {
	next http.RoundTripper
}

type lateCall struct {
	length   int64
	headers  chan struct{} // response headers are in
	extra    chan struct{} // the check past ContentLength is done
	mu       sync.Mutex
	read     int64
	extraErr error
}

const lateWait = 2 * time.Second

func wait(ch chan struct{}) {
	select {
	case <-ch:
	case <-time.After(lateWait):
	}
}

// check runs the write goroutine's read past ContentLength late.
func (c *lateCall) check(f func() error) {
	wait(c.headers)
	time.Sleep(20 * time.Millisecond) // the SDK closes the request body now
	err := f()
	c.mu.Lock()
	c.extraErr = err
	c.mu.Unlock()
	close(c.extra)
}

type lateBody struct {
	c     *lateCall
	inner io.ReadCloser
}

func (b *lateBody) Read(p []byte) (int, error) {
	b.c.mu.Lock()
	past := b.c.read >= b.c.length
	b.c.mu.Unlock()
	if !past {
		n, err := b.inner.Read(p)
		b.c.mu.Lock()
		b.c.read += int64(n)
		b.c.mu.Unlock()
		return n, err
	}
	var n int
	var err error
	b.c.check(func() error {
		n, err = b.inner.Read(p)
		if err == io.EOF {
			return nil
		}
		return err
	})
	return n, err
}

func (b *lateBody) Close() error { return b.inner.Close() }

// lateBodyWriterTo adds WriteTo when the SDK's body has it.
type lateBodyWriterTo struct{ *lateBody }

func (b lateBodyWriterTo) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var err error
	b.c.check(func() error {
		n, err = b.inner.(io.WriterTo).WriteTo(w)
		return err
	})
	return n, err
}

// lateResponse holds the first read of the response body until the write
// goroutine's check is done (and, had it failed, the connection closed).
type lateResponse struct {
	c     *lateCall
	inner io.ReadCloser
	once  sync.Once
}

func (r *lateResponse) Read(p []byte) (int, error) {
	r.once.Do(func() {
		wait(r.c.extra)
		r.c.mu.Lock()
		failed := r.c.extraErr != nil
		r.c.mu.Unlock()
		if failed {
			time.Sleep(50 * time.Millisecond) // net/http closes the connection now
		}
	})
	return r.inner.Read(p)
}

func (r *lateResponse) Close() error { return r.inner.Close() }

func (l lateWriter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.ContentLength <= 0 {
		return l.next.RoundTrip(req)
	}
	c := &lateCall{length: req.ContentLength, headers: make(chan struct{}), extra: make(chan struct{})}
	r2 := req.Clone(req.Context())
	lb := &lateBody{c: c, inner: req.Body}
	if _, ok := req.Body.(io.WriterTo); ok {
		r2.Body = lateBodyWriterTo{lb}
	} else {
		r2.Body = lb
	}
	resp, err := l.next.RoundTrip(r2)
	close(c.headers)
	if err == nil {
		resp.Body = &lateResponse{c: c, inner: resp.Body}
	}
	return resp, err
}

// TestResponseSurvivesLateRequestBodyCheck: a 200 response must be read in
// full even when net/http's write goroutine checks the request body only
// after the SDK has closed it. It used to close the connection under the
// response ("deserialization failed ... use of closed network connection"):
// under CPU load the capacity collector lost GetMetricData answers it had
// paid for, and fetched that history again the next hour.
func TestResponseSurvivesLateRequestBodyCheck(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "") // the SDK adds a bundle only to its own HTTP client
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	const region = "us-east-1"
	end := time.Now().UTC().Truncate(time.Minute)
	start := end.Add(-24 * time.Hour)
	m := awssim.Metric{Namespace: "AWS/DynamoDB", Name: "ConsumedReadCapacityUnits",
		Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}
	for at := start; at.Before(end); at = at.Add(time.Minute) {
		sim.Metrics().Put(region, m, awssim.Datapoint{Time: at, Sum: 60, SampleCount: 1, Minimum: 1, Maximum: 1})
	}
	target, err := NewTarget(context.Background(), config.Account{Name: "late"}, region, Options{
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Endpoints:   config.Endpoints{CloudWatch: srv.URL},
		HTTPClient:  &http.Client{Transport: lateWriter{next: &http.Transport{}}},
		MaxAttempts: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := target.CloudWatch.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(start),
		EndTime:   aws.Time(end),
		MetricDataQueries: []cwtypes.MetricDataQuery{{
			Id: aws.String("q"),
			MetricStat: &cwtypes.MetricStat{
				Metric: &cwtypes.Metric{Namespace: aws.String("AWS/DynamoDB"), MetricName: aws.String(m.Name),
					Dimensions: []cwtypes.Dimension{{Name: aws.String("TableName"), Value: aws.String("orders")}}},
				Period: aws.Int32(60),
				Stat:   aws.String("Sum"),
			},
		}},
	})
	if err != nil {
		t.Fatalf("GetMetricData: %v", err)
	}
	if len(out.MetricDataResults) != 1 || len(out.MetricDataResults[0].Values) != 1440 {
		t.Fatalf("GetMetricData answered %d results, want 1 of 1440 points", len(out.MetricDataResults))
	}
}
