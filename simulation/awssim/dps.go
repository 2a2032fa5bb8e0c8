package awssim

import (
	"sync"
	"sync/atomic"
	"time"
)

// CloudWatch limits GetMetricData in datapoints per second (DPS), per
// account and Region, besides its transactions per second: 180,000 when
// the request's StartTime is within three hours of the current time,
// 396,000 when it is older (Amazon CloudWatch User Guide, "CloudWatch
// service quotas", GetMetricData; AWS re:Post, "Which API should I use,
// GetMetricData or GetMetricStatistics?"). A request beyond the quota is
// refused as throttled, the same error as a transaction rate beyond its
// quota.
const (
	// OldDatapointQuota is the DPS quota of StartTimes more than
	// DatapointQuotaAge old; RecentDatapointQuota the one of later ones.
	OldDatapointQuota    = 396000
	RecentDatapointQuota = 180000
	// DatapointQuotaAge is the StartTime age that separates the quotas.
	DatapointQuotaAge = 3 * time.Hour
)

// dpsQuota holds the datapoint buckets of every region, in real (wall
// clock) seconds whatever the server's clock: AWS's quota is a rate of
// real time. Off (zero rates) until SetDatapointQuota.
type dpsQuota struct {
	mu      sync.Mutex
	rate    [2]float64 // old, recent; 0: not enforced
	buckets map[string]*[2]dpsBucket
	served  [2]atomic.Int64
}

// dpsBucket is a token bucket holding at most one second of its quota.
type dpsBucket struct {
	tokens float64
	at     time.Time
}

// SetDatapointQuota makes GetMetricData enforce CloudWatch's datapoint
// quotas, per region and in wall-clock seconds: old for requests whose
// StartTime is more than three hours before the server's now, recent for
// the others (OldDatapointQuota and RecentDatapointQuota are AWS's
// defaults); 0 leaves that kind unlimited, the default. A request whose
// datapoints do not fit the region's bucket is refused as throttled and
// counts nothing.
func (s *Server) SetDatapointQuota(old, recent float64) {
	s.dps.mu.Lock()
	defer s.dps.mu.Unlock()
	s.dps.rate = [2]float64{old, recent}
	s.dps.buckets = nil
}

// DatapointsServed returns how many datapoints GetMetricData has answered
// since the server started, for StartTimes more than three hours old and
// for later ones (the two quotas' shares), whether or not a quota is
// enforced.
func (s *Server) DatapointsServed() (old, recent int64) {
	return s.dps.served[0].Load(), s.dps.served[1].Load()
}

// take counts n datapoints of kind k (0 old, 1 recent) in region against
// its bucket at wall time now; false when the bucket holds fewer (nothing
// is taken then).
func (q *dpsQuota) take(region string, k int, n int64, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if rate := q.rate[k]; rate > 0 {
		if q.buckets == nil {
			q.buckets = map[string]*[2]dpsBucket{}
		}
		bs := q.buckets[region]
		if bs == nil {
			bs = &[2]dpsBucket{{tokens: q.rate[0], at: now}, {tokens: q.rate[1], at: now}}
			q.buckets[region] = bs
		}
		b := &bs[k]
		b.tokens = min(rate, b.tokens+now.Sub(b.at).Seconds()*rate)
		b.at = now
		if float64(n) > b.tokens {
			return false
		}
		b.tokens -= float64(n)
	}
	q.served[k].Add(n)
	return true
}
