package exporter

import (
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func TestSelfMetricsCountsAndOrders(t *testing.T) {
	s := NewSelfMetrics()
	s.AddCollector("tables")
	s.RecordRequest("a", "us-east-1", "DynamoDB", "DescribeTable", "")
	s.RecordRequest("a", "us-east-1", "DynamoDB", "DescribeTable", "ThrottlingException")
	s.RecordRequest("a", "eu-west-1", "CloudWatch", "GetMetricData", "")
	s.RecordCloudWatchMetrics("a", "eu-west-1", 500)
	s.RecordCloudWatchMetrics("a", "eu-west-1", 20)
	at := time.Unix(1_800_000_000, 0)
	s.RecordRun("tables", 2*time.Second, at, 0, []TargetOutcome{{"a", "us-east-1", true}, {"a", "eu-west-1", true}})
	s.RecordRun("tables", time.Second, at.Add(time.Minute), 3, []TargetOutcome{{"a", "us-east-1", true}, {"a", "eu-west-1", false}})
	if got := s.CloudWatchMetricsRequested("a", "eu-west-1"); got != 520 {
		t.Errorf("metrics requested = %v, want 520", got)
	}
	var got []string
	for _, m := range s.Metrics() {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		v := pb.GetCounter().GetValue() + pb.GetGauge().GetValue()
		got = append(got, labelString(&pb)+" "+formatFloat(v))
	}
	want := map[string]bool{}
	for _, w := range []string{
		"account=a,operation=GetMetricData,region=eu-west-1,service=CloudWatch 1",
		"account=a,operation=DescribeTable,region=us-east-1,service=DynamoDB 2",
		"account=a,error_code=ThrottlingException,operation=DescribeTable,region=us-east-1,service=DynamoDB 1",
		"account=a,region=eu-west-1 520",
		"collector=tables 3",                                     // errors_total
		"collector=tables 1",                                     // duration of the last run
		"account=a,collector=tables,region=eu-west-1 0",          // success after the failed run
		"account=a,collector=tables,region=eu-west-1 1800000000", // last success: the first run
		"account=a,collector=tables,region=us-east-1 1",          // the other region kept succeeding
		"account=a,collector=tables,region=us-east-1 1800000060", // ... and its last success moved
	} {
		want[w] = true
	}
	for _, g := range got {
		delete(want, g)
	}
	if len(want) > 0 {
		t.Errorf("missing %v in\n%v", want, got)
	}
}

func labelString(m *dto.Metric) string {
	out := ""
	for i, l := range m.GetLabel() {
		if i > 0 {
			out += ","
		}
		out += l.GetName() + "=" + l.GetValue()
	}
	return out
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
