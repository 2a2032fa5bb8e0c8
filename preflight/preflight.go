// Package preflight implements the check command: it calls every AWS API the
// exporter needs once per account and region, names each missing IAM
// permission, and prints what the exporter would poll and what CloudWatch
// would bill for it.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
)

// CloudWatchPricePerThousandMetrics is the GetMetricData list price per 1,000
// metrics requested (us-east-1, all regions alike at the time of writing).
const CloudWatchPricePerThousandMetrics = 0.01

// CloudWatchPricePerThousandRequests is the ListMetrics list price per 1,000 requests.
const CloudWatchPricePerThousandRequests = 0.01

// cyclesPerMonth is the number of cycles of a given interval in 30 days.
func cyclesPerMonth(interval time.Duration) float64 {
	return float64(30*24*time.Hour) / float64(interval)
}

// metricsCost is the list price of n metrics requested, in USD.
func metricsCost(n float64) float64 { return n * CloudWatchPricePerThousandMetrics / 1000 }

// TierCost is one polling tier of the CloudWatch collector, summed over
// every target.
type TierCost struct {
	// Name and Interval are the tier's name and cadence; Metrics says what
	// it polls.
	Name     string
	Interval time.Duration
	Metrics  string
	// Queried and ProvenZero count the tier's series; Requests the
	// GetMetricData requests of one fetch of the tier.
	Queried, ProvenZero, Requests int
	// MetricsPerHour is the metrics requested in an hour.
	MetricsPerHour float64
	// MonthlyCost is the cost of those metrics per 30 days, in USD.
	MonthlyCost float64
}

// Result is the outcome of a preflight run.
type Result struct {
	// Missing are the IAM actions refused, as "account/region: action".
	Missing []string
	// Failed are other failures.
	Failed []string
	// Tables, Indexes, Queried, ProvenZero, Requests and ListPages sum the plan over every target.
	Tables, Indexes, Queried, ProvenZero, Requests, ListPages int
	// Owned and Selected count, over every target, the table names this
	// shard polls and those that pass the name filters on every shard
	// together (equal when unsharded).
	Owned, Selected int
	// IdleFloor is how many series are queried even when every table and
	// index is idle: their consumed capacity, which DynamoDB keeps
	// publishing as zeros.
	IdleFloor int
	// Tiers is the polling plan of the CloudWatch collector, per tier.
	Tiers []TierCost
	// ListMetricsMonthlyCost is the cost of the ListMetrics calls of every
	// cycle, per 30 days, in USD.
	ListMetricsMonthlyCost float64
	// MonthlyCost is the CloudWatch cost per 30 days at the configured
	// cadences (every tier and ListMetrics), in USD.
	MonthlyCost float64
	// IdleMonthlyCost is the same cost when every table and index is idle.
	IdleMonthlyCost float64
	// HistoryFirst and HistoryRefresh are the GetMetricData requests and
	// metrics of the capacity collector's first history fetch and of each
	// later refresh, summed over every target.
	HistoryFirst, HistoryRefresh collectors.FetchCost
}

// percent formats part of whole as a percentage ("n/a" of nothing).
func percent(part, whole int) string {
	if whole == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}

// OK reports whether nothing was missing or failed.
func (r Result) OK() bool { return len(r.Missing) == 0 && len(r.Failed) == 0 }

// skipped is a probe that could not try its action; reason says why.
type skipped struct{ reason string }

func (s skipped) Error() string { return s.reason }

// noTable skips a probe that needs a table when none was discovered.
var noTable = skipped{"no table discovered to try it on"}

// refusedCredentials returns the STS action ("sts:AssumeRole") whose refusal
// err carries, or "": the SDK wraps the failure to assume the configured
// role in the error of the call that needed the credentials.
func refusedCredentials(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if oe, ok := e.(*smithy.OperationError); ok && oe.Service() == "STS" && awsclient.IsAccessDenied(oe.Err) {
			return "sts:" + oe.Operation()
		}
	}
	return ""
}

type probe struct {
	action string
	// needed reports whether the configuration uses the action (nil: always).
	needed func(*config.Config) bool
	call   func(context.Context, *awsclient.Target, string) error
}

var probes = []probe{
	{"dynamodb:ListTables", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.DynamoDB.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
		return err
	}},
	{"dynamodb:DescribeLimits", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.DynamoDB.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
		return err
	}},
	{"dynamodb:DescribeTable", nil, func(ctx context.Context, t *awsclient.Target, table string) error {
		if table == "" {
			return noTable
		}
		_, err := t.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		return err
	}},
	{"dynamodb:DescribeTimeToLive", nil, func(ctx context.Context, t *awsclient.Target, table string) error {
		if table == "" {
			return noTable
		}
		_, err := t.DynamoDB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		return err
	}},
	{"dynamodb:DescribeContinuousBackups", nil, func(ctx context.Context, t *awsclient.Target, table string) error {
		if table == "" {
			return noTable
		}
		_, err := t.DynamoDB.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		return err
	}},
	{"dynamodb:ListTagsOfResource", func(c *config.Config) bool { return c.Tables.NeedsTags() }, func(ctx context.Context, t *awsclient.Target, table string) error {
		if table == "" {
			return noTable
		}
		// The table's ARN comes from DescribeTable.
		d, err := t.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			if awsclient.IsAccessDenied(err) && refusedCredentials(err) == "" {
				return skipped{"needs dynamodb:DescribeTable to find the table's ARN"}
			}
			return err
		}
		_, err = t.DynamoDB.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
		return err
	}},
	// The TTL sampler's read: one item, counted, never returned.
	{"dynamodb:Scan", func(c *config.Config) bool { return c.Collectors.TTL.On() }, func(ctx context.Context, t *awsclient.Target, table string) error {
		if table == "" {
			return noTable
		}
		_, err := t.DynamoDB.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(1), Select: ddbtypes.SelectCount})
		return err
	}},
	{"application-autoscaling:DescribeScalableTargets", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.AutoScaling.DescribeScalableTargets(ctx, &applicationautoscaling.DescribeScalableTargetsInput{
			ServiceNamespace: aastypes.ServiceNamespaceDynamodb, MaxResults: aws.Int32(1)})
		return err
	}},
	{"application-autoscaling:DescribeScalingPolicies", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.AutoScaling.DescribeScalingPolicies(ctx, &applicationautoscaling.DescribeScalingPoliciesInput{
			ServiceNamespace: aastypes.ServiceNamespaceDynamodb, MaxResults: aws.Int32(1)})
		return err
	}},
	{"application-autoscaling:DescribeScheduledActions", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.AutoScaling.DescribeScheduledActions(ctx, &applicationautoscaling.DescribeScheduledActionsInput{
			ServiceNamespace: aastypes.ServiceNamespaceDynamodb, MaxResults: aws.Int32(1)})
		return err
	}},
	{"cloudwatch:ListMetrics", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		_, err := t.CloudWatch.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String(collectors.CloudWatchNamespace)})
		return err
	}},
	{"cloudwatch:GetMetricData", nil, func(ctx context.Context, t *awsclient.Target, _ string) error {
		end := time.Now().Truncate(time.Minute)
		_, err := t.CloudWatch.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
			StartTime: aws.Time(end.Add(-5 * time.Minute)), EndTime: aws.Time(end),
			MetricDataQueries: []cwtypes.MetricDataQuery{{
				Id: aws.String("probe"),
				MetricStat: &cwtypes.MetricStat{
					Metric: &cwtypes.Metric{Namespace: aws.String(collectors.CloudWatchNamespace), MetricName: aws.String("UserErrors")},
					Period: aws.Int32(60), Stat: aws.String("Sum"),
				},
			}},
		})
		return err
	}},
}

// Run checks every target of app and writes a human-readable report to w.
// It runs the discovery and table collectors once to count what would be
// polled.
func Run(ctx context.Context, app *exporter.App, w io.Writer) Result {
	var res Result
	app.Scheduler.RunOnceNamed(ctx, "discovery", "tables")
	cwInterval := app.Config.Collectors.CloudWatch.Interval.D()
	tierIndex := map[string]int{}
	for _, t := range app.Targets {
		fmt.Fprintf(w, "account %s, region %s\n", t.Account, t.Region)
		first := ""
		if names := app.Inventory.Names(t.Key()); len(names) > 0 {
			first = names[0]
		}
		credentialsRefused := false
		for _, p := range probes {
			if p.needed != nil && !p.needed(app.Config) {
				continue
			}
			err := p.call(ctx, t, first)
			var skip skipped
			switch {
			case err == nil:
				fmt.Fprintf(w, "  ok       %s\n", p.action)
			case errors.As(err, &skip):
				fmt.Fprintf(w, "  skipped  %s (%s)\n", p.action, skip.reason)
			case refusedCredentials(err) != "":
				action := refusedCredentials(err)
				fmt.Fprintf(w, "  MISSING  %s (the base credentials may not assume the account's role_arn: allow them %s on the role, and trust them in the role's trust policy)\n", action, action)
				res.Missing = append(res.Missing, t.Key()+": "+action)
				credentialsRefused = true
			case awsclient.IsAccessDenied(err):
				fmt.Fprintf(w, "  MISSING  %s (IAM permission refused: add it to the exporter's policy, see iam-policy.json)\n", p.action)
				res.Missing = append(res.Missing, t.Key()+": "+p.action)
			default:
				fmt.Fprintf(w, "  FAILED   %s: %s\n", p.action, awsclient.ErrorCode(err))
				res.Failed = append(res.Failed, fmt.Sprintf("%s: %s: %v", t.Key(), p.action, err))
			}
			if credentialsRefused {
				break
			}
		}
		if credentialsRefused {
			fmt.Fprintln(w, "  no other permission can be checked without the role's credentials")
			continue
		}
		tables := app.Inventory.Tables(t.Key())
		indexes := 0
		for _, tb := range tables {
			indexes += len(tb.IndexNames())
		}
		res.Tables += len(tables)
		res.Indexes += indexes
		owned, selected := len(app.Inventory.Names(t.Key())), app.Inventory.Selected(t.Key())
		res.Owned += owned
		res.Selected += selected
		if sh := app.Config.Shard; sh.Sharded() {
			fmt.Fprintf(w, "  shard %s: %d of the %d tables that pass the name filters (%s)\n", sh, owned, selected, percent(owned, selected))
		}
		fmt.Fprintf(w, "  tables monitored: %d (of %d discovered), global secondary indexes: %d\n",
			len(tables), owned, indexes)
		if app.Capacity != nil {
			first, refresh := app.Capacity.PlanCost(t, app.Clock.Now(), app.Config.Collectors.Capacity.Interval.D())
			res.HistoryFirst, res.HistoryRefresh = res.HistoryFirst.Add(first), res.HistoryRefresh.Add(refresh)
			fmt.Fprintf(w, "  capacity history: first fetch %d GetMetricData requests, %d metrics requested; then every %s %d requests, %d metrics\n",
				first.Requests, first.Metrics, app.Config.Collectors.Capacity.Interval.D(), refresh.Requests, refresh.Metrics)
		}
		if !app.Config.Collectors.CloudWatch.On() {
			fmt.Fprintln(w, "  cloudwatch collector disabled")
			continue
		}
		plan, err := app.CloudWatch.PlanTarget(ctx, t)
		if err != nil {
			if !awsclient.IsAccessDenied(err) {
				res.Failed = append(res.Failed, err.Error())
			}
			fmt.Fprintf(w, "  cloudwatch plan unavailable: %s\n", awsclient.ErrorCode(err))
			continue
		}
		res.Queried += len(plan.Queried)
		res.ProvenZero += len(plan.ProvenZero)
		res.Requests += plan.Requests()
		res.ListPages += plan.ListMetricsPages
		res.IdleFloor += plan.IdleFloor()
		fmt.Fprintf(w, "  cloudwatch series: %d queried, %d proven zero by ListMetrics (not requested); %d are consumed capacity, which DynamoDB publishes even when idle, so they are queried whatever the traffic\n",
			len(plan.Queried), len(plan.ProvenZero), plan.IdleFloor())
		for _, tp := range app.CloudWatch.Tiers(plan) {
			fmt.Fprintf(w, "  %s tier, every %s (%s): %d metrics per fetch in %d GetMetricData requests, %.0f metrics per hour\n",
				tp.Tier, tp.Interval, tp.Metrics, tp.Queried, tp.Requests(), tp.MetricsPerHour())
			i, ok := tierIndex[tp.Tier.String()]
			if !ok {
				i = len(res.Tiers)
				tierIndex[tp.Tier.String()] = i
				res.Tiers = append(res.Tiers, TierCost{Name: tp.Tier.String(), Interval: tp.Interval, Metrics: tp.Metrics})
			}
			tc := &res.Tiers[i]
			tc.Queried += tp.Queried
			tc.ProvenZero += tp.ProvenZero
			tc.Requests += tp.Requests()
			tc.MetricsPerHour += tp.MetricsPerHour()
		}
		fmt.Fprintf(w, "  every cycle (%s): %d ListMetrics requests\n", cwInterval, plan.ListMetricsPages)
	}
	cycles := cyclesPerMonth(cwInterval)
	const hoursPerMonth = 30 * 24
	res.ListMetricsMonthlyCost = cycles * float64(res.ListPages) * CloudWatchPricePerThousandRequests / 1000
	res.MonthlyCost = res.ListMetricsMonthlyCost
	for i := range res.Tiers {
		res.Tiers[i].MonthlyCost = metricsCost(res.Tiers[i].MetricsPerHour * hoursPerMonth)
		res.MonthlyCost += res.Tiers[i].MonthlyCost
	}
	// Idle, ListMetrics lists only the consumed series (one page per 500),
	// and they are queried at the slow tier's cadence.
	idlePages := (res.IdleFloor + collectors.MaxQueriesPerRequest - 1) / collectors.MaxQueriesPerRequest
	slow := app.Config.Collectors.CloudWatch.SlowInterval.D()
	res.IdleMonthlyCost = metricsCost(cyclesPerMonth(slow)*float64(res.IdleFloor)) + cycles*float64(idlePages)*CloudWatchPricePerThousandRequests/1000
	if sh := app.Config.Shard; sh.Sharded() {
		fmt.Fprintf(w, "shard %s: polls %d of the %d tables that pass the name filters (%s; an even share is %s); the figures below are this shard's\n",
			sh, res.Owned, res.Selected, percent(res.Owned, res.Selected), percent(1, sh.Count))
	}
	fmt.Fprintf(w, "total: %d tables, %d global secondary indexes, %d CloudWatch series queried\n",
		res.Tables, res.Indexes, res.Queried)
	fmt.Fprintf(w, "CloudWatch polling plan ($%.2f per 1,000 metrics requested, $%.2f per 1,000 ListMetrics requests; list prices):\n",
		CloudWatchPricePerThousandMetrics, CloudWatchPricePerThousandRequests)
	perHour := 0.0
	for _, tc := range res.Tiers {
		perHour += tc.MetricsPerHour
		fmt.Fprintf(w, "  %s tier, every %s (%s): %d metrics per fetch, %.0f metrics per hour, about $%.2f per 30 days\n",
			tc.Name, tc.Interval, tc.Metrics, tc.Queried, tc.MetricsPerHour, tc.MonthlyCost)
	}
	fmt.Fprintf(w, "  ListMetrics, every %s: %d requests per cycle, about $%.2f per 30 days\n", cwInterval, res.ListPages, res.ListMetricsMonthlyCost)
	perTable := "n/a"
	if res.Tables > 0 {
		perTable = fmt.Sprintf("%.0f", perHour/float64(res.Tables))
	}
	fmt.Fprintf(w, "  total: %.0f metrics per hour (%s per table-hour), about $%.2f per 30 days\n", perHour, perTable, res.MonthlyCost)
	fmt.Fprintf(w, "CloudWatch cost floor, were every table and index idle: about $%.2f per 30 days (%d consumed-capacity metrics every %s, published even when idle)\n",
		res.IdleMonthlyCost, res.IdleFloor, slow)
	if app.Capacity != nil {
		refreshes := cyclesPerMonth(app.Config.Collectors.Capacity.Interval.D())
		fmt.Fprintf(w, "capacity history cost: $%.2f once for the first fetch (%d metrics in %d requests), then about $%.2f per 30 days (%d metrics per refresh)\n",
			float64(res.HistoryFirst.Metrics)*CloudWatchPricePerThousandMetrics/1000, res.HistoryFirst.Metrics, res.HistoryFirst.Requests,
			refreshes*float64(res.HistoryRefresh.Metrics)*CloudWatchPricePerThousandMetrics/1000, res.HistoryRefresh.Metrics)
	}
	if res.OK() {
		fmt.Fprintln(w, "preflight passed")
	} else {
		fmt.Fprintf(w, "preflight FAILED: %d missing permission(s), %d other failure(s)\n", len(res.Missing), len(res.Failed))
	}
	return res
}
