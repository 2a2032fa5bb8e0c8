package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

var updateStorage = flag.Bool("update-storage", false, "rewrite testdata/storage_answers.txt from the current storage")

// storageWindow is one GetMetricData range and period of the golden
// answers, relative to the end of the simulated time.
type storageWindow struct {
	period   int32
	from, to time.Duration // before the end
}

// storageWindows cover the three resolutions CloudWatch keeps (1-minute
// points for 15 days, 5-minute for 63, hourly for 455) and the boundaries
// between the simulator's tiers.
var storageWindows = []storageWindow{
	{60, 26 * time.Hour, 0},
	{60, 15*24*time.Hour + 2*time.Hour, 15*24*time.Hour - 2*time.Hour},
	{300, 16 * 24 * time.Hour, 14 * 24 * time.Hour},
	{300, 64 * 24 * time.Hour, 60 * 24 * time.Hour},
	{3600, 91 * 24 * time.Hour, 0},
}

var storageStats = []string{"Sum", "Average", "Maximum", "Minimum", "SampleCount", "p99"}

// TestStorageAnswersUnchanged compares CloudWatch's answers for a sample
// of the series of five built-in scenarios and of 6 tables shaped like
// the bench's account (every third series, sorted by metric key), at
// 1-minute, 5-minute and hourly periods over the retention of each, and
// every statistic the simulator computes, with
// testdata/storage_answers.txt: the answers of the simulator's storage
// before it was made compact (float64 5-minute and hourly tiers, every
// channel stored). Each line holds the number of values and a SHA-256 of
// their exact bits and timestamps, so that any change of a single value
// shows. Regenerate with -update-storage only for an intended change of
// the traffic model.
func TestStorageAnswersUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 90 days of six scenarios")
	}
	var got []string
	for _, name := range []string{"demo", "hot-partition-on-demand", "autoscaling-spike", "billing-switch-churn", "surge-never-reevaluated", "bench-6"} {
		var sc *Scenario
		if name == "bench-6" {
			var err error
			if sc, err = LoadScenario([]byte(ScaleScenario("scale", 6, "90d"))); err != nil {
				t.Fatal(err)
			}
		} else {
			sc = builtin(t, name)
		}
		r := newRig(t, sc)
		r.advance(t, 36*time.Hour)
		now := r.clk.Now()
		var keys []string
		for region, m := range r.eng.series {
			if region != r.eng.sc.Account.Regions[0] {
				continue
			}
			for k, ser := range m {
				if addedAfterGolden(ser.metric) {
					continue
				}
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for i := 0; i < len(keys); i += 3 {
			m := r.eng.series[r.eng.sc.Account.Regions[0]][keys[i]].metric
			var dims []cwtypes.Dimension
			var label []string
			ds := slices.Clone(m.Dimensions)
			slices.SortFunc(ds, func(a, b awssim.Dimension) int { return strings.Compare(a.Name, b.Name) })
			for _, d := range ds {
				dims = append(dims, cwtypes.Dimension{Name: aws.String(d.Name), Value: aws.String(d.Value)})
				label = append(label, d.Name+"="+d.Value)
			}
			for _, w := range storageWindows {
				in := &cloudwatch.GetMetricDataInput{
					StartTime: aws.Time(now.Add(-w.from)), EndTime: aws.Time(now.Add(-w.to)), ScanBy: cwtypes.ScanByTimestampAscending,
				}
				for j, st := range storageStats {
					in.MetricDataQueries = append(in.MetricDataQueries, cwtypes.MetricDataQuery{Id: aws.String(fmt.Sprintf("q%d", j)), MetricStat: &cwtypes.MetricStat{
						Metric: &cwtypes.Metric{Namespace: aws.String(m.Namespace), MetricName: aws.String(m.Name), Dimensions: dims},
						Period: aws.Int32(w.period), Stat: aws.String(st)}})
				}
				out, err := r.cw.GetMetricData(context.Background(), in)
				for try := 0; err != nil && apiCode(err) == "" && try < 3; try++ {
					// The SDK's HTTP client now and then loses the
					// connection under load ("use of closed network
					// connection" while reading the answer, seen before
					// this test too): a transport error, not an answer.
					out, err = r.cw.GetMetricData(context.Background(), in)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", name, m.Name, err)
				}
				line := fmt.Sprintf("%s %s %s period=%d from=-%s to=-%s:", name, m.Name, strings.Join(label, ","), w.period, w.from, w.to)
				for j, res := range out.MetricDataResults {
					if res.StatusCode != cwtypes.StatusCodeComplete || out.NextToken != nil {
						t.Fatalf("%s: partial answer", line)
					}
					h := sha256.New()
					for k, v := range res.Values {
						_ = binary.Write(h, binary.BigEndian, res.Timestamps[k].Unix())
						_ = binary.Write(h, binary.BigEndian, math.Float64bits(v))
					}
					line += fmt.Sprintf(" %s=%d/%x", storageStats[j], len(res.Values), h.Sum(nil)[:6])
				}
				got = append(got, line)
			}
		}
	}
	path := filepath.Join("testdata", "storage_answers.txt")
	if *updateStorage {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(want) != len(got) {
		t.Fatalf("%d answers, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad++; bad <= 10 {
				t.Errorf("answer changed:\n got %s\nwant %s", got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d answers changed", bad, len(want))
	}
}

// addedAfterGolden reports a series the simulator gained after
// testdata/storage_answers.txt was written, which the golden answers do
// not cover and which would shift its every-third-series selection: the
// account-level quota metrics (no dimension) and the demo's
// quota-capped, growing, index-backfill, evening-peak, global (carts-global), flash-launch and archive tables. Their storage is the same code as every other
// series'.
func addedAfterGolden(m awssim.Metric) bool {
	if strings.HasPrefix(m.Name, "Account") {
		return true
	}
	for _, d := range m.Dimensions {
		if d.Name == "TableName" && (d.Value == "ledger-quota-capped" || d.Value == "signups-growing" || d.Value == "orders-gsi-backfill" ||
			d.Value == "orders-evening-peak" || d.Value == "orders-evening-scheduled" || d.Value == "carts-global" ||
			d.Value == "drops-flash" || d.Value == "orders-archive") {
			return true
		}
	}
	return false
}
