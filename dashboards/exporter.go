package dashboards

import (
	"fmt"

	c "github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// cloudWatchPricePerMetric is GetMetricData's list price: $0.01 per 1,000
// metrics requested (AWS CloudWatch pricing; the catalogue's help says the same).
const cloudWatchPricePerMetric = 0.01 / 1000

func exporterBoard() board {
	collectors := []panel{
		{kind: timeSeries, title: "Collector success", unit: unitBool,
			description: "1 when the collector's last run completed without any error for the account and region, 0 when it failed (it keeps serving what it " +
				"knew, which then goes stale). 0 for 15 minutes raises DynamoDBExporterCollectorFailing.",
			queries: []query{{expr: sel(c.ExporterCollectorSuccess, selAR), legend: "{{collector}} {{account}} {{region}}"}}},
		{kind: timeSeries, title: "Staleness: time since each collector's last success", unit: unitSeconds,
			description: "How old each collector's figures are per account and region. It saws between 0 and the collector's interval when all is well; " +
				"a line that keeps climbing is a collector that stopped succeeding.",
			queries: []query{{expr: fmt.Sprintf("time() - %s", sel(c.ExporterCollectorLastSuccess, selAR)), legend: "{{collector}} {{account}} {{region}}"}}},
		{kind: timeSeries, title: "Collector run duration", unit: unitSeconds,
			description: "Duration of each collector's last run (all accounts and regions). A run approaching its interval delays the next one.",
			queries:     []query{{expr: sel(c.ExporterCollectorDuration, selTarget), legend: "{{collector}} {{instance}}"}}},
		{kind: timeSeries, title: "Collector errors per hour", unit: unitCount,
			description: "Errors each collector met in the last hour (a failed AWS call, a table that could not be read), counted one by one. See the AWS errors by code below.",
			queries:     []query{{expr: fmt.Sprintf("sum by (collector) (increase(%s[1h]))", sel(c.ExporterCollectorErrorsTotal, selTarget)), legend: "{{collector}}"}}},
	}
	aws := []panel{
		{kind: timeSeries, title: "AWS calls by operation", unit: unitReqPS,
			description: "AWS API calls the exporter makes per second, by service and operation (averaged over the rate interval).",
			queries:     []query{{expr: fmt.Sprintf("sum by (service, operation) (rate(%s[$__rate_interval]))", sel(c.ExporterAWSRequestsTotal, selAR)), legend: "{{service}} {{operation}}"}}},
		{kind: timeSeries, title: "AWS errors by code per hour", unit: unitCount,
			description: "Failed AWS calls in the last hour by service, operation and AWS error code. AccessDenied and token errors mean the role lacks a " +
				"permission (compare with iam-policy.json; DynamoDBExporterAccessDenied); Throttling from CloudWatch means the exporter asks too often " +
				"(DynamoDBExporterCloudWatchThrottled).",
			queries: []query{{expr: fmt.Sprintf("sum by (service, operation, error_code) (increase(%s[1h]))", sel(c.ExporterAWSRequestErrorsTotal, selAR)), legend: "{{service}} {{operation}} {{error_code}}"}}},
	}
	cloudwatch := []panel{
		{kind: timeSeries, title: "CloudWatch metrics requested per hour", unit: unitCount, width: 8,
			description: "Metrics requested from CloudWatch GetMetricData in the last hour, per account and region: what drives the exporter's CloudWatch bill.",
			queries:     []query{{expr: fmt.Sprintf("sum by (account, region) (increase(%s[1h]))", sel(c.ExporterCloudWatchMetricsTotal, selAR)), legend: "{{account}} {{region}}"}}},
		{kind: timeSeries, title: "CloudWatch cost per month at this pace", unit: unitUSD, width: 8,
			description: "The GetMetricData bill the last hour's pace implies over a month (730 hours) at the list price of $0.01 per 1,000 metrics requested.",
			// The last hour's count times the hours of a month: a deliberate
			// one-hour window (the pace of the last hour), written as
			// increase, whose window the dashboard linter leaves to the
			// author; a rate would have to be over $__rate_interval and would
			// then jump with every collection cycle.
			queries: []query{{expr: fmt.Sprintf("sum by (account, region) (increase(%s[1h])) * %d * %g",
				sel(c.ExporterCloudWatchMetricsTotal, selAR), secondsPerMonth/3600, cloudWatchPricePerMetric), legend: "{{account}} {{region}}"}}},
		{kind: timeSeries, title: "CloudWatch series: queried and proven zero", unit: unitCount, width: 8, stack: true,
			description: "Series in the last collection plan: queried (listed as recently active by ListMetrics) and proven_zero (absent from ListMetrics, " +
				"so not requested and not billed). Proven zeros are the plan's saving.",
			queries: []query{{expr: sel(c.ExporterCloudWatchSeries, selAR), legend: "{{state}} {{account}} {{region}}"}}},
	}
	about := []panel{
		{kind: statPanel, title: "Tables monitored", unit: unitCount, width: 8, height: 5,
			description: "Tables the exporter watches after its name and tag filters, in the selected accounts and regions. A drop means a filter or permission change.",
			queries:     []query{{expr: fmt.Sprintf("sum(%s)", sel(c.ExporterTables, selAR)), instant: true}}},
		{kind: tablePanel, title: "Exporter build", unit: unitInfo, width: 16, height: 5, merge: true,
			description: "Version, revision and Go version of the running exporter.",
			queries:     []query{{expr: sel(c.ExporterBuildInfo, selTarget), instant: true, column: "-"}}},
	}
	return board{
		uid: ExporterUID, title: "DynamoDB exporter health", file: "exporter-health.json",
		description: "The exporter itself: collectors' success and staleness per account and region, AWS calls and errors by code, and what its CloudWatch requests cost.",
		rows: []row{
			{title: "Collectors", panels: collectors},
			{title: "AWS calls", panels: aws},
			{title: "CloudWatch requests", panels: cloudwatch},
			{title: "Exporter", panels: about},
		},
		annotations: []annotation{{name: "Exporter alerts firing", color: "red", title: "{{alertname}}", text: "{{account}} {{region}} {{collector}}",
			expr: fmt.Sprintf(`ALERTS{alertstate="firing", alertname=~"DynamoDBExporter.*", %s}`, selAR)}},
	}
}
