package awssim

import "time"

// DynamoDB enum values used by the model.
const (
	BillingProvisioned   = "PROVISIONED"
	BillingPayPerRequest = "PAY_PER_REQUEST"

	TableClassStandard   = "STANDARD"
	TableClassStandardIA = "STANDARD_INFREQUENT_ACCESS"

	StatusActive   = "ACTIVE"
	StatusUpdating = "UPDATING"
	StatusCreating = "CREATING"

	TTLEnabled   = "ENABLED"
	TTLEnabling  = "ENABLING"
	TTLDisabled  = "DISABLED"
	TTLDisabling = "DISABLING"
)

// KeyElement is one attribute of a key schema.
type KeyElement struct {
	AttributeName string
	KeyType       string // HASH or RANGE
}

// AttributeDefinition declares the type of a key attribute.
type AttributeDefinition struct {
	AttributeName string
	AttributeType string // S, N or B
}

// Throughput is the provisioned capacity of a table or index and the history
// DynamoDB reports about it. Zero times are "never".
type Throughput struct {
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
	LastIncreaseDateTime   time.Time
	LastDecreaseDateTime   time.Time
	NumberOfDecreasesToday int64 // as of LastDecreaseDateTime's UTC day
}

// OnDemandThroughput caps on-demand request units; 0 means unlimited and is
// answered as -1, as AWS does.
type OnDemandThroughput struct {
	MaxReadRequestUnits  int64
	MaxWriteRequestUnits int64
}

// WarmThroughput is the warm throughput of a table or GSI: the read and
// write units per second it serves at once. The simulator keeps its
// high-water mark: DescribeTable reports the largest of the stored values,
// the provisioned capacity (provisioned mode) and the new on-demand table
// values (on-demand mode), and stores it back, so that it never decreases;
// a simulation raises it to the on-demand peaks it served
// (Server.RaiseWarmThroughput).
// Source: AWS, "Understanding DynamoDB warm throughput" (values grow with
// usage and never decrease; raised with UpdateTable WarmThroughput) and
// "Understanding DynamoDB warm throughput in different scenarios" (a new
// on-demand table: 12,000 reads and 4,000 writes per second; a provisioned
// table's warm throughput adjusts to a higher provisioned capacity).
type WarmThroughput struct {
	ReadUnitsPerSecond  int64
	WriteUnitsPerSecond int64
	// Status is reported as the warm throughput's status: "" is ACTIVE; a
	// scenario may set UPDATING (a raise in progress).
	Status string
	// Omit leaves WarmThroughput out of DescribeTable, as answers before
	// November 2024 (and some endpoints) do.
	Omit bool
}

// GlobalSecondaryIndex is one GSI of a table.
type GlobalSecondaryIndex struct {
	IndexName      string
	Status         string // default ACTIVE
	KeySchema      []KeyElement
	ProjectionType string // default ALL
	ItemCount      int64
	SizeBytes      int64
	Throughput     Throughput // ignored (0/0) while the table is on-demand
	OnDemand       OnDemandThroughput
	Warm           WarmThroughput
	// Backfill, when set, is the index's build after it was added to an
	// existing table: DescribeTable reports it CREATING (Backfilling true)
	// until the build ends, then ACTIVE, whatever Status says (backfill.go).
	Backfill *Backfill
}

// TimeToLive is a table's TTL setting.
type TimeToLive struct {
	Status        string // ENABLED, ENABLING, DISABLED (default), DISABLING
	AttributeName string
	// LastModified is when UpdateTimeToLive last changed the setting (zero:
	// never). DynamoDB refuses a further change within an hour of it. For
	// an ENABLED setting it is also when TTL started to act; zero means
	// "always enabled".
	LastModified time.Time
	// TransitionEnds is when an ENABLING or DISABLING status becomes
	// ENABLED or DISABLED. Zero keeps the status as it is.
	TransitionEnds time.Time
}

// PointInTimeRecovery is a table's point-in-time recovery setting, answered
// by DescribeContinuousBackups.
type PointInTimeRecovery struct {
	Enabled bool // default: disabled, as a new table is
	// RecoveryPeriodDays is how many days back a restore can go, 1 to 35;
	// 0 means DefaultRecoveryPeriodDays.
	RecoveryPeriodDays int
	// EnabledAt is when PITR was turned on: the earliest restorable time
	// until the recovery period has passed since. Zero: the table's
	// creation.
	EnabledAt time.Time
}

// DefaultRecoveryPeriodDays is the recovery period of PITR when none is
// given (UpdateContinuousBackups API reference, RecoveryPeriodInDays:
// "If no value is provided, the value will default to 35").
const DefaultRecoveryPeriodDays = 35

// DefaultTTLDeletionDelay is how long after an item's TTL has passed the
// simulated TTL process deletes it when Table.TTLDeletionDelay is zero.
// DynamoDB gives no SLA; deletions typically happen within a few days.
const DefaultTTLDeletionDelay = 48 * time.Hour

// Table is everything the simulator knows about one DynamoDB table.
type Table struct {
	Name             string
	Status           string    // default ACTIVE
	CreationDateTime time.Time // default: the server clock at PutTable
	ItemCount        int64
	SizeBytes        int64

	BillingMode                       string // default PROVISIONED
	LastUpdateToPayPerRequestDateTime time.Time
	Throughput                        Throughput // answered as 0/0 while on-demand
	OnDemand                          OnDemandThroughput
	Warm                              WarmThroughput
	TableClass                        string // default STANDARD
	// TableClassUpdates are the times of the table's class updates, the
	// latest last: DescribeTable reports the latest as
	// TableClassSummary.LastUpdateDateTime, and UpdateTable refuses a
	// third within 30 days (maxClassUpdates).
	TableClassUpdates []time.Time

	KeySchema            []KeyElement
	AttributeDefinitions []AttributeDefinition
	GSIs                 []GlobalSecondaryIndex
	Tags                 map[string]string
	TTL                  TimeToLive
	PITR                 PointInTimeRecovery

	// TTLDeletionDelay is how long after an item becomes eligible (its TTL
	// has passed, TTL is ENABLED and the item was written) the simulated
	// TTL process deletes it: 0 means DefaultTTLDeletionDelay, a negative
	// value deletes at the first sweep.
	TTLDeletionDelay time.Duration
	// TTLDeletionJitter adds to each item's delay a part of it in
	// [0, TTLDeletionJitter) derived deterministically from the item's key.
	TTLDeletionJitter time.Duration
	// TTLTransition is how long UpdateTimeToLive leaves the status ENABLING
	// or DISABLING; 0 goes straight to ENABLED or DISABLED.
	TTLTransition time.Duration

	// Replicas are the other regions holding a replica of the table (a
	// global table, replicas.go); empty for a table of one region.
	Replicas []Replica
	// GlobalTableVersion is answered with Replicas (default "2019.11.21"
	// when there are replicas); a legacy global table sets "2017.11.29".
	GlobalTableVersion string
	// MultiRegionConsistency is EVENTUAL or STRONG; "" leaves the field
	// out of DescribeTable, as older answers do.
	MultiRegionConsistency string

	// PayPerRequestSwitches are the times of the switches to on-demand
	// (used for the 4-per-24h limit); UpdateTable appends to it.
	PayPerRequestSwitches []time.Time
}

// ScalableTarget is an Application Auto Scaling target of a DynamoDB table or
// GSI.
type ScalableTarget struct {
	ResourceID        string // table/NAME or table/NAME/index/INDEX
	ScalableDimension string // e.g. dynamodb:table:ReadCapacityUnits
	MinCapacity       int32
	MaxCapacity       int32
	RoleARN           string    // default: the DynamoDB service-linked role
	CreationTime      time.Time // default: the server clock
}

// ScalingPolicy is a target-tracking scaling policy.
type ScalingPolicy struct {
	PolicyName           string
	ResourceID           string
	ScalableDimension    string
	TargetValue          float64
	PredefinedMetricType string // DynamoDBReadCapacityUtilization or DynamoDBWriteCapacityUtilization
	ScaleInCooldown      int32
	ScaleOutCooldown     int32
	DisableScaleIn       bool
	CreationTime         time.Time // default: the server clock
}

// Auto Scaling dimensions of DynamoDB.
const (
	DimTableRead  = "dynamodb:table:ReadCapacityUnits"
	DimTableWrite = "dynamodb:table:WriteCapacityUnits"
	DimIndexRead  = "dynamodb:index:ReadCapacityUnits"
	DimIndexWrite = "dynamodb:index:WriteCapacityUnits"
)

// Predefined target-tracking metric types of DynamoDB.
const (
	MetricReadUtilization  = "DynamoDBReadCapacityUtilization"
	MetricWriteUtilization = "DynamoDBWriteCapacityUtilization"
)
