package awssim

import (
	"math"
	"time"
)

// The backfill of a global secondary index added to an existing table, as
// AWS documents it:
//
//   - DescribeTable reports the index with IndexStatus CREATING and
//     Backfilling true while DynamoDB reads the table's items and writes
//     those that qualify into the index; once every item is processed,
//     Backfilling is false and the index becomes ACTIVE
//     (GlobalSecondaryIndexDescription, Amazon DynamoDB API Reference:
//     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexDescription.html).
//   - The backfill and the table's ongoing writes share the index's write
//     throughput; when they exceed it, writes are throttled, the base
//     table's included ("Managing Global Secondary Indexes", Amazon DynamoDB
//     Developer Guide: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html).
//   - CloudWatch publishes, with the dimensions TableName and
//     GlobalSecondaryIndexName, OnlineIndexPercentageProgress (the
//     percentage of the build done), OnlineIndexConsumedWriteCapacity (the
//     write capacity units the build consumes, not in the index's
//     ConsumedWriteCapacityUnits) and OnlineIndexThrottleEvents (the write
//     throttle events while the index is built, not in its
//     WriteThrottleEvents) ("DynamoDB metrics and dimensions", Amazon
//     DynamoDB Developer Guide:
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html).
//
// The simulator's model is closed-form, so that any minute can be answered
// without replaying the ones before: the backfill asks for Pace write units
// a second; the index's write capacity (provisioned: its
// WriteCapacityUnits; on demand: the table-level quota) serves first the
// table's ongoing writes into the index (Writes), then the backfill; what
// the two ask beyond it is throttled, one event per unit (items of up to
// 1 KB). The build progresses at the served rate until Units have been
// written. The index's capacity is read at the time of the question: a
// capacity changed during the build re-times the whole build.

// Backfill is the backfilling phase of a global secondary index added to an
// existing table.
type Backfill struct {
	// Start is when the index was added (UpdateTable Create).
	Start time.Time
	// Units is the write capacity units the backfill writes into the index:
	// a unit per qualifying item of up to 1 KB.
	Units float64
	// Pace is the write units per second the backfill asks for.
	Pace float64
	// Writes is the write units per second of the table's ongoing writes
	// that reach the index meanwhile.
	Writes float64
}

// OnlineIndexMetricNames are the CloudWatch metrics of an index build.
var OnlineIndexMetricNames = []string{"OnlineIndexPercentageProgress", "OnlineIndexConsumedWriteCapacity", "OnlineIndexThrottleEvents"}

// backfillRates are a build's served and throttled write units per second
// and its duration (+Inf when nothing is served). s.mu must be held.
func (s *Server) backfillRates(region string, t *Table, g *GlobalSecondaryIndex) (served, throttled float64, took time.Duration) {
	b := g.Backfill
	capacity := float64(g.Throughput.WriteCapacityUnits)
	if t.BillingMode == BillingPayPerRequest {
		capacity = float64(s.limitsOf(region).TableMaxWriteCapacityUnits)
	}
	served = min(b.Pace, max(0, capacity-b.Writes))
	throttled = max(0, b.Pace+b.Writes-capacity)
	if served <= 0 {
		return 0, throttled, time.Duration(math.MaxInt64)
	}
	return served, throttled, time.Duration(b.Units / served * float64(time.Second))
}

// backfillDone is when g's build ends (ok false: g has no backfill).
// s.mu must be held.
func (s *Server) backfillDone(region string, t *Table, g *GlobalSecondaryIndex) (time.Time, bool) {
	if g.Backfill == nil {
		return time.Time{}, false
	}
	_, _, took := s.backfillRates(region, t, g)
	if took == time.Duration(math.MaxInt64) {
		return time.Unix(1<<40, 0), true
	}
	return g.Backfill.Start.Add(took), true
}

// indexStatus is g's IndexStatus at now, and its Backfilling flag (nil:
// not reported, as for an index created with its table). s.mu must be held.
func (s *Server) indexStatus(region string, t *Table, g *GlobalSecondaryIndex, now time.Time) (string, *bool) {
	done, ok := s.backfillDone(region, t, g)
	if !ok {
		return g.Status, nil
	}
	building := now.Before(done)
	if building {
		return StatusCreating, &building
	}
	return StatusActive, &building
}

// backfillMetrics is the MetricSource of the OnlineIndex metrics of every
// index being built, minute by minute within its build.
type backfillMetrics struct {
	srv *Server
}

// build is an index with a backfill and the table it belongs to.
type build struct {
	t *Table
	g *GlobalSecondaryIndex
}

// builds returns the indexes of region that have a backfill. s.mu must be
// held.
func (s *Server) builds(region string) []build {
	r := s.regions[region]
	if r == nil {
		return nil
	}
	var out []build
	for _, t := range r.tables {
		for i := range t.GSIs {
			if t.GSIs[i].Backfill != nil {
				out = append(out, build{t, &t.GSIs[i]})
			}
		}
	}
	return out
}

// ListMetrics implements MetricSource: the metrics of every build, started
// or not (ListMetrics with RecentlyActive keeps those with datapoints).
func (b backfillMetrics) ListMetrics(region string) []Metric {
	b.srv.mu.Lock()
	defer b.srv.mu.Unlock()
	var out []Metric
	for _, x := range b.srv.builds(region) {
		for _, n := range OnlineIndexMetricNames {
			out = append(out, onlineIndexMetric(n, x.t.Name, x.g.IndexName))
		}
	}
	return out
}

func onlineIndexMetric(name, table, index string) Metric {
	return Metric{Namespace: NamespaceDynamoDB, Name: name, Dimensions: []Dimension{
		{Name: "GlobalSecondaryIndexName", Value: index}, {Name: "TableName", Value: table}}}
}

// Datapoints implements MetricSource: one datapoint a minute from the
// build's start to its end and no later than the current minute;
// OnlineIndexThrottleEvents only in minutes with throttle events.
func (b backfillMetrics) Datapoints(region string, m Metric, start, end time.Time) []Datapoint {
	if m.Namespace != NamespaceDynamoDB || len(m.Dimensions) != 2 {
		return nil
	}
	table, index := m.Dim("TableName"), m.Dim("GlobalSecondaryIndexName")
	b.srv.mu.Lock()
	defer b.srv.mu.Unlock()
	now := b.srv.now()
	for _, x := range b.srv.builds(region) {
		if x.t.Name != table || x.g.IndexName != index {
			continue
		}
		served, throttled, _ := b.srv.backfillRates(region, x.t, x.g)
		done, _ := b.srv.backfillDone(region, x.t, x.g)
		bf := x.g.Backfill
		if cur := now.Truncate(time.Minute).Add(time.Minute); end.After(cur) {
			end = cur
		}
		var out []Datapoint
		for t := start.Truncate(time.Minute); t.Before(end); t = t.Add(time.Minute) {
			if t.Before(start) || !t.Add(time.Minute).After(bf.Start) || !t.Before(done) {
				continue
			}
			// The seconds of minute t within the build.
			from, to := maxTime(t, bf.Start), minTime(t.Add(time.Minute), done)
			secs := to.Sub(from).Seconds()
			var v float64
			switch m.Name {
			case "OnlineIndexPercentageProgress":
				v = min(100, 100*to.Sub(bf.Start).Seconds()*served/bf.Units)
			case "OnlineIndexConsumedWriteCapacity":
				v = served * secs
			case "OnlineIndexThrottleEvents":
				v = math.Round(throttled * secs)
				if v == 0 {
					continue
				}
			default:
				return nil
			}
			out = append(out, Datapoint{Time: t, Sum: v, SampleCount: 1, Minimum: v, Maximum: v})
		}
		return out
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
