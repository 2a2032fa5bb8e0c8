package sim

import "time"

// DynamoDB's and Application Auto Scaling's rules, as the simulator states
// them. The simulator is an independent witness of the cost model
// (package capacity): it shares none of its code or constants, and takes
// each figure from AWS's documentation, named next to it. A test
// (TestSimulationDoesNotImportCapacity) keeps it that way.

// Target tracking of DynamoDB auto-scaling.
const (
	// scaleOutPoints is how many consecutive 1-minute datapoints above the
	// target trigger a scale-out: "Auto scaling triggers when your consumed
	// capacity breaches the configured target utilization for two
	// consecutive minutes" (Amazon DynamoDB Developer Guide, "DynamoDB
	// Metrics and dimensions",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html).
	scaleOutPoints = 2
	// scaleInPoints is how many consecutive 1-minute datapoints below the
	// scale-in threshold trigger a scale-in: "a scale down event can occur
	// when 15 consecutive data points are lower than the target
	// utilization" (same page).
	scaleInPoints = 15
	// scaleInMarginPoints is how far below the target, in percentage
	// points of utilization, a datapoint must be to count toward a
	// scale-in: "DynamoDB auto scaling decreases provisioned capacity when
	// utilization is 20% or more below the target for 15 consecutive
	// minutes", with 100 RCU at a 70% target scaling in below 50 RCU
	// (AWS re:Post Knowledge Center article on DynamoDB auto scaling not
	// working as expected,
	// https://repost.aws/knowledge-center/dynamodb-auto-scaling).
	// The threshold is target − 20 points (50% at 70%), not target × 0.8
	// (56% at 70%).
	scaleInMarginPoints = 20
	// scaleInLookback is the window whose highest consumption sets the
	// level scaled in to (that maximum ÷ target): the rule of AWS's own
	// capacity-mode evaluator, which scales in to the highest consumed
	// units of the last 15 minutes over the target utilization
	// (awslabs/amazon-dynamodb-tools, capacity-mode-evaluator,
	// src/metrics_estimates.py, "last15Max ... / utilization";
	// https://github.com/awslabs/amazon-dynamodb-tools/tree/main/capacity-mode-evaluator).
	// Sizing to the highest of the minutes that triggered the alarm keeps
	// every one of them at or below the target after the decrease.
	scaleInLookback = scaleInPoints
)

// Auto-scaling settings: the defaults the DynamoDB console proposes and
// the range Application Auto Scaling accepts.
const (
	// defaultTargetPercent, defaultMinCapacity: "Target utilization: 70%,
	// Minimum provisioned capacity: 5 units, Maximum provisioned capacity:
	// the Region maximum" (Amazon DynamoDB Developer Guide, "Considerations
	// when switching capacity modes in DynamoDB",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/switching.capacitymode.html).
	defaultTargetPercent = 70
	defaultMinCapacity   = 5
	// defaultMaxCapacity is the default per-table throughput quota,
	// 40,000 read and 40,000 write units (Amazon DynamoDB Developer Guide,
	// "Quotas in Amazon DynamoDB", "Throughput default quotas",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
	defaultMaxCapacity = 40000
	// minTargetPercent, maxTargetPercent: target utilization values between
	// 20 and 90 percent (Amazon DynamoDB Developer Guide,
	// "Managing throughput capacity automatically with DynamoDB auto
	// scaling",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/AutoScaling.html).
	minTargetPercent = 20
	maxTargetPercent = 90
	// defaultScaleOutDelay is the simulator's own assumption for the time
	// from a scale-out decision to the new capacity serving. AWS gives no
	// figure: "CloudWatch alarms might have a short delay of up to a few
	// minutes before triggering auto scaling ... It then takes several
	// minutes to update the provisioned capacity" ("DynamoDB Metrics and
	// dimensions", above).
	defaultScaleOutDelay = 5 * time.Minute
)

// Decrease limits of provisioned throughput, enforced by the server
// (awssim.Server.SetThroughput) and stated here for the tests: "For every
// table and global secondary index in an UpdateTable operation, you can
// decrease ReadCapacityUnits or WriteCapacityUnits (or both) ... A decrease
// is allowed up to four times, anytime per day [a UTC day] ...
// Additionally, if there was no decrease in the past hour, an additional
// decrease is allowed" (Amazon DynamoDB Developer Guide, "Quotas in Amazon
// DynamoDB", "Decreasing provisioned throughput",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
// One UpdateTable that lowers read, write or both counts once
// (NumberOfDecreasesToday, "ProvisionedThroughputDescription", DynamoDB API
// Reference).
const (
	freeDecreasesPerDay = 4
	decreaseInterval    = time.Hour
)

// Throughput limits.
const (
	// partitionReadLimit, partitionWriteLimit: "the per partition limits
	// of 3,000 RCU or 1,000 WCU per second" (AWS re:Post Knowledge Center
	// article on how DynamoDB handles spiky workloads in short intervals,
	// https://repost.aws/knowledge-center/dynamodb-spiky-workloads-short-intervals).
	partitionReadLimit  = 3000
	partitionWriteLimit = 1000
	// burstSeconds: "DynamoDB currently retains up to 5 minutes (300
	// seconds) of unused read and write capacity" (same page; also Amazon
	// DynamoDB Developer Guide, "DynamoDB burst and adaptive capacity").
	burstSeconds = 300
	// newTableReadPeak, newTableWritePeak are the "previous peak" of a new
	// on-demand table: "Newly created table with on-demand capacity mode:
	// The previous peak is 2,000 WRU and 6,000 RRU. You can drive up to
	// double the previous peak immediately. Doing this enables newly
	// created on-demand tables to serve up to 4,000 WRU and 12,000 RRU"
	// (Amazon DynamoDB Developer Guide, "Considerations when switching
	// capacity modes in DynamoDB", "Initial throughput for on-demand
	// capacity mode",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/switching.capacitymode.html;
	// "New on-demand tables will be able to sustain up to 4,000 writes per
	// second and 12,000 reads per second", "Pre-warming a table for
	// on-demand capacity mode").
	newTableReadPeak  = 6000
	newTableWritePeak = 2000
	// switchedPeakShare: after a switch from provisioned, "The previous
	// peak is half the previous WCU and RCU provisioned for the table or
	// the settings for a newly created table with on-demand capacity mode,
	// whichever is higher" (same section, "Existing table switched to
	// on-demand capacity mode"). AWS states it for a table switched for the
	// first time; the simulator applies it at every switch.
	switchedPeakShare = 0.5
	// onDemandPeakFactor, peakWindow: "The overall table won't be
	// throttled if ... the table doesn't exceed twice its previous peak
	// traffic. However, throttling can still occur if the throughput
	// exceeds twice the previous peak within the same 30 minutes"
	// ("Pre-warming a table for on-demand capacity mode",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html).
	// A minute's consumption becomes part of the previous peak 30 minutes
	// later.
	onDemandPeakFactor = 2
	peakWindow         = 30 // minutes
)
