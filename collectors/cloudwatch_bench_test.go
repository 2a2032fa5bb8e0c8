package collectors

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// listOnly is a CloudWatch API whose ListMetrics answers metrics in one
// page; GetMetricData is not used.
type listOnly struct {
	awsclient.CloudWatchAPI
	metrics []cwtypes.Metric
}

func (l listOnly) ListMetrics(context.Context, *cloudwatch.ListMetricsInput, ...func(*cloudwatch.Options)) (*cloudwatch.ListMetricsOutput, error) {
	return &cloudwatch.ListMetricsOutput{Metrics: l.metrics}, nil
}

// benchListed is what ListMetrics lists for busy tables: consumed
// capacity of each table and GSI, latency of three operations per table,
// and a replication metric whose dimensions the collector does not plan.
func benchListed(tables []*Table) []cwtypes.Metric {
	m := func(name string, dims ...string) cwtypes.Metric {
		var d []cwDim
		for i := 0; i+1 < len(dims); i += 2 {
			d = append(d, cwDim{dims[i], dims[i+1]})
		}
		return cwtypes.Metric{Namespace: aws.String(CloudWatchNamespace), MetricName: aws.String(name), Dimensions: toDims(d)}
	}
	out := []cwtypes.Metric{m("UserErrors")}
	for _, tb := range tables {
		for _, metric := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"} {
			out = append(out, m(metric, "TableName", tb.Name))
			for _, idx := range tb.IndexNames() {
				out = append(out, m(metric, "TableName", tb.Name, "GlobalSecondaryIndexName", idx))
			}
		}
		for _, op := range []string{"GetItem", "Query", "PutItem"} {
			out = append(out, m("SuccessfulRequestLatency", "TableName", tb.Name, "Operation", op))
		}
		out = append(out, m("ReplicationLatency", "TableName", tb.Name, "ReceivingRegion", "eu-west-1"))
	}
	return out
}

func benchTables(n int) []*Table {
	tables := make([]*Table, n)
	for i := range tables {
		tables[i] = benchTable(fmt.Sprintf("table-%04d", i))
	}
	return tables
}

// BenchmarkCloudWatchPlan is a cycle's listing and plan for 1,000 tables
// with 2 GSIs each.
func BenchmarkCloudWatchPlan(b *testing.B) {
	tables := benchTables(1000)
	api := listOnly{metrics: benchListed(tables)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		listed, _, err := listActive(ctx, api)
		if err != nil {
			b.Fatal(err)
		}
		p := plan(tables, true, listed, currentMode)
		if len(p.Queried) == 0 {
			b.Fatal("nothing queried")
		}
	}
}

// BenchmarkCloudWatchMetrics is a cycle's snapshot of the CloudWatch
// collector's series for 1,000 tables with 2 GSIs each.
func BenchmarkCloudWatchMetrics(b *testing.B) {
	tables := benchTables(1000)
	listed, _, err := listActive(context.Background(), listOnly{metrics: benchListed(tables)})
	if err != nil {
		b.Fatal(err)
	}
	p := plan(tables, true, listed, currentMode)
	st := &targetState{series: map[seriesKey]*seriesState{}}
	for _, k := range append(p.Queried, p.ProvenZero...) {
		st.state(k).present = true
	}
	t := &awsclient.Target{Account: "acct", Region: "us-east-1"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if len(st.metrics(t)) < len(st.series) {
			b.Fatal("series missing")
		}
	}
}
