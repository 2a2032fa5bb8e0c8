package systemtest

import (
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Malformed AWS answers: each row makes the simulated account answer one
// malformed shape through the real SDK in us-east-1 for a few cycles. The
// exporter must not panic, must keep serving eu-west-1's table as the
// simulator served it, and must count or handle the shape (check).

// malformedRow is one malformed answer.
type malformedRow struct {
	name string
	// on makes the simulated account answer the shape and returns what
	// switches it off.
	on func(r *matrixRun) (off func())
	// erred: the exporter must count at least one cloudwatch collector
	// error while the shape is answered.
	erred bool
	// check, when set, asserts more at the end of the fault.
	check func(t *testing.T, r *matrixRun, end snapshot)
	// overcount, when set, is how many consumed units the row's answers
	// left counted in us-east-1 (a downward revision): the tables there
	// must hold the simulator's truth plus exactly that, in sum.
	overcount func() float64
}

// usEast1Tables are the tables the malformed answers touch.
var usEast1Tables = []string{"fm-orders", "fm-users", "fm-secret"}

// editResults runs f on every MetricDataResults entry of a GetMetricData
// answer.
func editResults(f func(res map[string]any)) func(map[string]any) {
	return func(doc map[string]any) {
		rs, _ := doc["MetricDataResults"].([]any)
		for _, x := range rs {
			if res, ok := x.(map[string]any); ok {
				f(res)
			}
		}
	}
}

func gmdFault(edit func(map[string]any)) func(r *matrixRun) func() {
	return func(r *matrixRun) func() {
		r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Region: "us-east-1", Edit: edit})
		return r.srv.ClearFaults
	}
}

// revisedExcess is the excess the downward-revision row adds to the last
// consumed datapoint of each series in its first answer.
const revisedExcess = 100

func malformedRows() []malformedRow {
	var goneListed atomic.Int32 // ListMetrics answers that listed gone-idx
	var inflated atomic.Int32   // datapoints the downward-revision row inflated
	var halved atomic.Int32     // counter datapoints the upward-revision row halved
	return []malformedRow{
		{
			// Timestamps without their values in every other result:
			// each unpaired series is not ingested, counted as an error
			// and fetched again; the others in the same answer are
			// ingested once.
			name: "missing-values",
			on: gmdFault(func(doc map[string]any) {
				rs, _ := doc["MetricDataResults"].([]any)
				for i, x := range rs {
					res, _ := x.(map[string]any)
					if vs, _ := res["Values"].([]any); i%2 == 1 && len(vs) > 0 {
						res["Values"] = vs[:len(vs)-1]
					}
				}
			}),
			erred: true,
		},
		{
			// Every answer cut to 3 datapoints, PartialData with a
			// NextToken: the following pages are fetched.
			name: "partial-data-next-token",
			on: func(r *matrixRun) func() {
				r.srv.SetGetMetricDataPageSize(3)
				return func() { r.srv.SetGetMetricDataPageSize(0) }
			},
			check: func(t *testing.T, r *matrixRun, _ snapshot) {
				partial := 0
				for _, rec := range r.srv.Requests() {
					if rec.Operation == "GetMetricData" && rec.Region == "us-east-1" {
						partial++
					}
				}
				if partial <= 2*malformedCycles {
					t.Errorf("%d GetMetricData calls in us-east-1 over %d cycles: the pages after the first were not fetched", partial, malformedCycles)
				}
			},
		},
		{
			// Each datapoint answered twice: counted once.
			name: "duplicated-timestamps",
			on: gmdFault(editResults(func(res map[string]any) {
				ts, _ := res["Timestamps"].([]any)
				vs, _ := res["Values"].([]any)
				res["Timestamps"] = append(slices.Clone(ts), ts...)
				res["Values"] = append(slices.Clone(vs), vs...)
			})),
		},
		{
			// Datapoints in descending order although ascending was asked.
			name: "out-of-order-timestamps",
			on: gmdFault(editResults(func(res map[string]any) {
				ts, _ := res["Timestamps"].([]any)
				vs, _ := res["Values"].([]any)
				slices.Reverse(ts)
				slices.Reverse(vs)
			})),
		},
		{
			// The first answer shows the last minute of each series at
			// half its value; the following answers show it revised to
			// its full value: the counter ends with the full value.
			name: "datapoint-revised-after-read",
			on: func(r *matrixRun) func() {
				r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Region: "us-east-1", Times: 1,
					Edit: editResults(func(res map[string]any) {
						if vs, _ := res["Values"].([]any); len(vs) > 0 {
							if v, ok := vs[len(vs)-1].(float64); ok {
								vs[len(vs)-1] = v / 2
								// Gauges (latency, the account's provisioned
								// utilization) are read, not counted: no revision.
								if l, _ := res["Label"].(string); v > 0 && l != "SuccessfulRequestLatency" && !strings.HasPrefix(l, "AccountProvisioned") {
									halved.Add(1)
								}
							}
						}
					})})
				return r.srv.ClearFaults
			},
			check: func(t *testing.T, _ *matrixRun, end snapshot) {
				up, _ := end.sum(catalogue.ExporterCloudWatchRevisionsTotal, map[string]string{catalogue.LabelRegion: "us-east-1", "direction": "up"})
				down, _ := end.sum(catalogue.ExporterCloudWatchRevisionsTotal, map[string]string{catalogue.LabelRegion: "us-east-1", "direction": "down"})
				if n := float64(halved.Load()); n == 0 || up != n || down != 0 {
					t.Errorf("%s{region=\"us-east-1\"}: up %.0f, down %.0f; want up %.0f (one per halved counter datapoint), down 0", catalogue.ExporterCloudWatchRevisionsTotal, up, down, n)
				}
			},
		},
		{
			// The first answer shows the last minute of each consumed
			// series revisedExcess units too high; the following answers
			// show it revised down to its true value. A counter cannot go
			// down: the excess stays counted, and the revision and the
			// excess are counted in the exporter's self-metrics.
			name: "datapoint-revised-downward-after-read",
			on: func(r *matrixRun) func() {
				r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Region: "us-east-1", Times: 1,
					Edit: editResults(func(res map[string]any) {
						if l, _ := res["Label"].(string); l != "ConsumedReadCapacityUnits" && l != "ConsumedWriteCapacityUnits" {
							return
						}
						if vs, _ := res["Values"].([]any); len(vs) > 0 {
							if v, ok := vs[len(vs)-1].(float64); ok {
								vs[len(vs)-1] = v + revisedExcess
								inflated.Add(1)
							}
						}
					})})
				return r.srv.ClearFaults
			},
			check: func(t *testing.T, _ *matrixRun, end snapshot) {
				n := float64(inflated.Load())
				if n == 0 {
					t.Fatal("no consumed datapoint was inflated: the row proves nothing")
				}
				us := map[string]string{catalogue.LabelRegion: "us-east-1"}
				down, _ := end.sum(catalogue.ExporterCloudWatchRevisionsTotal, map[string]string{catalogue.LabelRegion: "us-east-1", "direction": "down"})
				up, _ := end.sum(catalogue.ExporterCloudWatchRevisionsTotal, map[string]string{catalogue.LabelRegion: "us-east-1", "direction": "up"})
				left, _ := end.sum(catalogue.ExporterCloudWatchUnretractedTotal, us)
				t.Logf("%.0f consumed datapoints inflated by %d: revisions down %.0f, up %.0f; unretracted %.0f units", n, revisedExcess, down, up, left)
				if down != n || up != 0 {
					t.Errorf("%s{region=\"us-east-1\"}: down %.0f, up %.0f; want down %.0f (one per inflated datapoint), up 0", catalogue.ExporterCloudWatchRevisionsTotal, down, up, n)
				}
				if want := n * revisedExcess; left != want {
					t.Errorf("%s{region=\"us-east-1\"} = %.0f, want %.0f (%.0f datapoints x %d units)", catalogue.ExporterCloudWatchUnretractedTotal, left, want, n, revisedExcess)
				}
				for _, fam := range []string{catalogue.ConsumedReadCapacityUnitsTotal, catalogue.ConsumedWriteCapacityUnitsTotal} {
					if _, ok := end.sum(catalogue.ExporterCloudWatchUnretractedTotal, map[string]string{catalogue.LabelRegion: "us-east-1", "metric": fam}); !ok {
						t.Errorf("%s has no series for metric=%q", catalogue.ExporterCloudWatchUnretractedTotal, fam)
					}
				}
			},
			overcount: func() float64 { return float64(inflated.Load()) * revisedExcess },
		},
		{
			// A billing mode this build does not know: the table stays,
			// its info series shows billing_mode="unknown".
			name: "unknown-billing-mode",
			on: func(r *matrixRun) func() {
				r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceDynamoDB, Operation: "DescribeTable", Table: "fm-users", Edit: func(doc map[string]any) {
					tb, _ := doc["Table"].(map[string]any)
					tb["BillingModeSummary"] = map[string]any{"BillingMode": "FLEX_MODE"}
				}})
				return r.srv.ClearFaults
			},
			check: func(t *testing.T, _ *matrixRun, end snapshot) {
				if _, ok := end.sum(catalogue.TableInfo, map[string]string{catalogue.LabelTable: "fm-users", "billing_mode": collectors.Unknown}); !ok {
					t.Errorf("fm-users: no %s series with billing_mode=%q: %v", catalogue.TableInfo, collectors.Unknown, end[catalogue.TableInfo])
				}
			},
		},
		{
			// A TTL status this build does not know: the table stays, its
			// TTL info series shows status="unknown".
			name: "unknown-ttl-status",
			on: func(r *matrixRun) func() {
				r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceDynamoDB, Operation: "DescribeTimeToLive", Table: "fm-users", Edit: func(doc map[string]any) {
					doc["TimeToLiveDescription"] = map[string]any{"TimeToLiveStatus": "ARCHIVING", "AttributeName": "expires"}
				}})
				return r.srv.ClearFaults
			},
			check: func(t *testing.T, _ *matrixRun, end snapshot) {
				if _, ok := end.sum(catalogue.TableTTLInfo, map[string]string{catalogue.LabelTable: "fm-users", "status": collectors.Unknown}); !ok {
					t.Errorf("fm-users: no %s series with status=%q: %v", catalogue.TableTTLInfo, collectors.Unknown, end[catalogue.TableTTLInfo])
				}
				if _, ok := end.sum(catalogue.TableInfo, map[string]string{catalogue.LabelTable: "fm-users"}); !ok {
					t.Errorf("fm-users left %s", catalogue.TableInfo)
				}
			},
		},
		{
			// ListMetrics lists throttle metrics of a GSI fm-users no
			// longer has (deleted, its metrics listed for up to two
			// weeks): not queried, no series for it, no error.
			name: "throttles-of-deleted-gsi",
			on: func(r *matrixRun) func() {
				r.srv.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "ListMetrics", Region: "us-east-1", Edit: func(doc map[string]any) {
					ms, _ := doc["Metrics"].([]any)
					for _, name := range []string{"ReadThrottleEvents", "WriteThrottleEvents", "ConsumedReadCapacityUnits"} {
						ms = append(ms, map[string]any{"Namespace": "AWS/DynamoDB", "MetricName": name, "Dimensions": []any{
							map[string]any{"Name": "TableName", "Value": "fm-users"},
							map[string]any{"Name": "GlobalSecondaryIndexName", "Value": "gone-idx"},
						}})
					}
					doc["Metrics"] = ms
					goneListed.Add(1)
				}})
				return r.srv.ClearFaults
			},
			check: func(t *testing.T, _ *matrixRun, end snapshot) {
				if goneListed.Load() == 0 {
					t.Fatal("no ListMetrics answer listed the deleted index")
				}
				for name, ms := range end {
					for _, m := range ms {
						for _, l := range m.GetLabel() {
							if l.GetName() == catalogue.LabelIndex && l.GetValue() == "gone-idx" {
								t.Errorf("%s has a series of the deleted index: %v", name, m.GetLabel())
							}
						}
					}
				}
			},
		},
	}
}

// malformedCycles is how many one-minute cycles each shape is answered.
const malformedCycles = 3

func TestMalformedAnswers(t *testing.T) {
	for _, row := range malformedRows() {
		t.Run(row.name, func(t *testing.T) { runMalformedRow(t, row) })
	}
}

func runMalformedRow(t *testing.T, row malformedRow) {
	r := startMatrix(t, 0)
	t0 := r.clk.Now()
	for m := time.Duration(0); m <= matrixWarmUp; m += time.Minute {
		r.advance(t, t0.Add(m))
	}
	s := t0.Add(matrixWarmUp)
	before := r.gather(t)
	start := map[string]counters{}
	for _, tb := range matrixTables {
		c, ok := before.tableCounters(tb.region, tb.table)
		if !ok {
			t.Fatalf("before: no counters for %s/%s", tb.region, tb.table)
		}
		start[tb.table] = c
	}
	errsBefore, _ := before.sum(catalogue.ExporterCollectorErrorsTotal, map[string]string{catalogue.LabelCollector: "cloudwatch"})

	r.srv.ResetRequests()
	off := row.on(r)
	f := s.Add(malformedCycles * time.Minute)
	prev := before
	for at := s.Add(time.Minute); !at.After(f); at = at.Add(time.Minute) {
		r.advance(t, at) // a panic fails the test
		now := r.gather(t)
		c, ok := now.tableCounters("eu-west-1", "fm-eu")
		p, _ := prev.tableCounters("eu-west-1", "fm-eu")
		want := r.truth(t, "eu-west-1", "fm-eu", at.Add(-time.Minute-matrixDelay), at.Add(-matrixDelay))
		if !ok || math.Abs((c.consumed-p.consumed)-want.consumed) > 1e-6*math.Max(1, want.consumed) {
			t.Errorf("%s: eu-west-1/fm-eu not served: consumed +%.1f, simulator served %.1f", at.Format(time.TimeOnly), c.consumed-p.consumed, want.consumed)
		}
		prev = now
	}
	end := r.gather(t)
	errs, _ := end.sum(catalogue.ExporterCollectorErrorsTotal, map[string]string{catalogue.LabelCollector: "cloudwatch"})
	if row.erred && errs == errsBefore {
		t.Errorf("the malformed answers were not counted in %s{collector=\"cloudwatch\"}", catalogue.ExporterCollectorErrorsTotal)
	}
	if !row.erred && errs != errsBefore {
		t.Errorf("%s{collector=\"cloudwatch\"} +%.0f: the shape is valid and handled, not an error", catalogue.ExporterCollectorErrorsTotal, errs-errsBefore)
	}
	if row.check != nil {
		row.check(t, r, end)
	}

	// Once AWS answers well again, every table holds what the simulator
	// served: nothing lost, nothing counted twice.
	off()
	e := f.Add(5 * time.Minute)
	for at := f.Add(time.Minute); !at.After(e); at = at.Add(time.Minute) {
		r.advance(t, at)
	}
	last := r.gather(t)
	var over, overWant float64 // consumed units beyond the truth in us-east-1
	for _, tb := range matrixTables {
		c, ok := last.tableCounters(tb.region, tb.table)
		if !ok {
			t.Errorf("after: no counters for %s/%s", tb.region, tb.table)
			continue
		}
		got := counters{c.consumed - start[tb.table].consumed, c.throttles - start[tb.table].throttles}
		want := r.truth(t, tb.region, tb.table, s.Add(-matrixDelay), e.Add(-matrixDelay))
		if row.overcount != nil && tb.region == "us-east-1" {
			over += got.consumed - want.consumed
			overWant += want.consumed
		} else if math.Abs(got.consumed-want.consumed) > 1e-6*math.Max(1, want.consumed) {
			t.Errorf("%s/%s consumed: exporter +%.1f, simulator served %.1f", tb.region, tb.table, got.consumed, want.consumed)
		}
		if math.Abs(got.throttles-want.throttles) > 1e-6*math.Max(1, want.throttles) {
			t.Errorf("%s/%s throttle events: exporter +%.0f, simulator %.0f", tb.region, tb.table, got.throttles, want.throttles)
		}
	}
	if row.overcount != nil {
		if want := row.overcount(); math.Abs(over-want) > 1e-6*math.Max(1, overWant) {
			t.Errorf("us-east-1 consumed: exporter %+.1f beyond the simulator's truth, want %+.1f (the downward revisions left counted)", over, want)
		}
	}
}
