package sim

import (
	"sync"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Readers and the clock moving concurrently (run with -race).
func TestConcurrentReadsAndAdvance(t *testing.T) {
	r := newRig(t, builtin(t, "autoscaling-spike"))
	m := awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ReadThrottleEvents", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "tickets-spike"}}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				now := r.clk.Now()
				r.eng.Datapoints("us-east-1", m, now.Add(-3*time.Hour), now)
				r.eng.ListMetrics("us-east-1")
			}
		})
	}
	for range 50 {
		r.clk.Advance(3 * time.Minute)
		r.describe(t, "tickets-spike")
	}
	wg.Wait()
	if got, want := r.eng.Now(), t0.Add(150*time.Minute); !got.Equal(want) {
		t.Fatalf("engine at %v, want %v", got, want)
	}
}
