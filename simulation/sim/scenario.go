package sim

// Scenario is a simulated account and what happens to it, as read from a
// YAML scenario file (see README.md in this directory for the format). Times
// are Offsets from the scenario start (the engine's clock when it starts,
// unless Start pins it): negative offsets are history.
type Scenario struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Include lists built-in scenarios whose tables and faults are added to
	// this one (the demo scenario is made this way).
	Include []string    `yaml:"include"`
	Seed    int         `yaml:"seed"`
	Start   string      `yaml:"start"`   // optional RFC 3339 start, overrides the clock
	History Duration    `yaml:"history"` // default 90d
	Horizon Duration    `yaml:"horizon"` // how far the scenario reaches after its start; default 7d
	Account AccountSpec `yaml:"account"`
	Tables  []TableSpec `yaml:"tables"`
	Faults  []FaultSpec `yaml:"faults"`

	// lines maps each key path (tables[0].traffic.read) to its line.
	lines map[string]int
	// source names the file the scenario came from, for error messages.
	source string
}

// AccountSpec is the simulated account.
type AccountSpec struct {
	Regions []string `yaml:"regions"` // default [us-east-1]
	// TableQuota is the per-table throughput quota (default 40,000 read and
	// 40,000 write units/s); demand above it is throttled as AccountLimit.
	TableQuota ReadWrite `yaml:"table_quota"`
	// AccountQuota is the account-level quota on the provisioned capacity
	// of all tables and indexes of a region (default 80,000 read and
	// 80,000 write units, AWS's default); DescribeLimits answers it with
	// TableQuota, and UpdateTable refuses capacity above either.
	AccountQuota ReadWrite `yaml:"account_quota"`
	// UserErrorsPerMinute is the mean rate of the account's UserErrors.
	UserErrorsPerMinute float64 `yaml:"user_errors_per_minute"`
}

// ReadWrite is a pair of read and write figures.
type ReadWrite struct {
	Read  float64 `yaml:"read"`
	Write float64 `yaml:"write"`
}

// TableSpec is one table, its settings and its traffic.
type TableSpec struct {
	Name    string `yaml:"name"`
	Region  string `yaml:"region"`  // default: the account's first region
	Billing string `yaml:"billing"` // provisioned (default) or on_demand, at the start of the history
	Class   string `yaml:"class"`   // standard (default) or standard_ia
	// ClassChanged is when the table's class was last updated (it became
	// Class then), at or before the start; absent: never (DescribeTable
	// reports no TableClassSummary.LastUpdateDateTime).
	ClassChanged *Offset `yaml:"class_changed"`
	Created      Offset  `yaml:"created"` // default: the start of the history
	// Capacity is the provisioned capacity (units/s) at the start of the
	// history and when switching back to provisioned (default 5/5).
	Capacity    ReadWrite `yaml:"capacity"`
	OnDemandMax ReadWrite `yaml:"on_demand_max"` // 0: unlimited
	// WarmThroughput is the table's warm throughput at the start (nil: what
	// AWS's rules give, see awssim.WarmThroughput).
	WarmThroughput *WarmSpec         `yaml:"warm_throughput"`
	Partitions     int               `yaml:"partitions"`    // 0: derived from capacity and traffic
	HotKeyShare    float64           `yaml:"hot_key_share"` // share of traffic on the hottest partition
	AutoScaling    *ScalingSpec      `yaml:"auto_scaling"`
	GSIs           []GSISpec         `yaml:"gsis"`
	TTL            *TTLSpec          `yaml:"ttl"`
	PITR           *PITRSpec         `yaml:"pitr"` // default: point-in-time recovery disabled
	Tags           map[string]string `yaml:"tags"`
	ItemCount      int64             `yaml:"item_count"` // DescribeTable figures of tables without simulated items
	SizeBytes      int64             `yaml:"size_bytes"`
	// SystemErrorsPerHour is the mean rate of SystemErrors.
	SystemErrorsPerHour float64      `yaml:"system_errors_per_hour"`
	Traffic             TrafficSpec  `yaml:"traffic"`
	BillingSwitches     []SwitchSpec `yaml:"billing_switches"`
	// Replicas make the table a global table (version 2019.11.21): a table
	// of the same name in each replica's region, with the same GSIs,
	// capacity, auto-scaling and billing mode (a billing switch switches
	// every replica), receiving every write of this table as a replicated
	// write (see awssim/replicas.go for AWS's rules).
	Replicas []ReplicaSpec `yaml:"replicas"`
}

// ReplicaSpec is one replica of a global table in another region of the
// account. The table's writes are made in its own region (Region) and
// replicated to each replica, where they consume write capacity; the
// replica serves its own reads (Read, shaped like the table's traffic).
type ReplicaSpec struct {
	Region string `yaml:"region"`
	// Status is the ReplicaStatus DescribeTable answers for this replica
	// in the other regions: ACTIVE (default), CREATING, UPDATING,
	// DELETING, REGION_DISABLED or INACCESSIBLE_ENCRYPTION_CREDENTIALS.
	// It changes nothing else: the replica is simulated as serving.
	Status string `yaml:"status"`
	// Read is the replica's own read demand in units per second (default
	// 0), shaped by the table's daily and weekly cycles and events.
	Read float64 `yaml:"read"`
	// ReplicationLatency is the latency of the table's writes reaching
	// this replica, published in the table's region as ReplicationLatency
	// with ReceivingRegion this replica's region.
	ReplicationLatency LatencySpec `yaml:"replication_latency"`
}

// LatencySpec is a replication latency profile: Base (default 1s) times a
// ± Noise per minute, raised by lags.
type LatencySpec struct {
	Base  Duration  `yaml:"base"`
	Noise float64   `yaml:"noise"` // 0 to <1
	Lags  []LagSpec `yaml:"lags"`
}

// LagSpec is a period of lagging replication: from At the latency rises
// linearly to Peak over Ramp (default 10m), holds it for Duration (0: to
// the end of the scenario) and then falls back to Base over Ramp.
type LagSpec struct {
	At       Offset    `yaml:"at"`
	Ramp     *Duration `yaml:"ramp"`
	Peak     Duration  `yaml:"peak"`
	Duration Duration  `yaml:"duration"`
}

// WarmSpec is a table's warm throughput at the start of the history: a
// pre-warmed table (read, write units/s above what AWS's rules give), a
// raise in progress (status UPDATING) or an answer without the field
// (omitted, as DescribeTable answered before November 2024).
type WarmSpec struct {
	Read    float64 `yaml:"read"`
	Write   float64 `yaml:"write"`
	Status  string  `yaml:"status"`  // ACTIVE (default) or UPDATING
	Omitted bool    `yaml:"omitted"` // DescribeTable reports no WarmThroughput
}

// GSISpec is a global secondary index. Its read demand is the table's read
// demand times Share.Read; its write demand the table's consumed writes
// times Share.Write (default 1: every write touches the index).
type GSISpec struct {
	Name        string       `yaml:"name"`
	Capacity    ReadWrite    `yaml:"capacity"`
	Share       *ReadWrite   `yaml:"share"`
	HotKeyShare float64      `yaml:"hot_key_share"`
	AutoScaling *ScalingSpec `yaml:"auto_scaling"`
	// Backfill, when set, makes the index one being added to the table:
	// CREATING with Backfilling true until its build ends, then ACTIVE,
	// with the OnlineIndex CloudWatch metrics of the build (awssim.Backfill).
	Backfill *BackfillSpec `yaml:"backfill"`
}

// BackfillSpec is the build of an index added to an existing table. The
// index's write capacity (Capacity.Write) serves the table's writes into
// the index first (the table's base write rate times Share.Write), then
// the build; what both ask beyond it is throttled.
type BackfillSpec struct {
	// Start is when the index was added (an offset; default the
	// scenario's start).
	Start Offset `yaml:"start"`
	// Units is the write units the build writes into the index (default:
	// the table's item count, a unit per item of up to 1 KB).
	Units float64 `yaml:"units"`
	// Pace is the write units per second the build asks for.
	Pace float64 `yaml:"pace"`
}

// ScalingSpec is target-tracking auto-scaling of each dimension.
type ScalingSpec struct {
	Read  *PolicySpec `yaml:"read"`
	Write *PolicySpec `yaml:"write"`
}

// PolicySpec is one scalable target and its target-tracking policy.
type PolicySpec struct {
	Min              float64  `yaml:"min"`
	Max              float64  `yaml:"max"`
	Target           float64  `yaml:"target"` // percent, 20 to 90 (default 70)
	ScaleOutCooldown Duration `yaml:"scale_out_cooldown"`
	ScaleInCooldown  Duration `yaml:"scale_in_cooldown"`
	DisableScaleIn   bool     `yaml:"disable_scale_in"`
	// Delay is the time from the scale-out decision to the new capacity
	// serving (default 5m).
	Delay *Duration `yaml:"delay"`
	// Scheduled are the scalable target's scheduled actions
	// (awssim.ScheduledAction): at each time Schedule names, the target's
	// bounds become Min and Max (0: unchanged).
	Scheduled []ScheduledSpec `yaml:"scheduled"`
}

// ScheduledSpec is an Application Auto Scaling scheduled action on one
// dimension of a table or GSI.
type ScheduledSpec struct {
	Name     string  `yaml:"name"`
	Schedule string  `yaml:"schedule"` // at(...), rate(...) or cron(...), see awssim.ParseSchedule
	Timezone string  `yaml:"timezone"` // IANA name; default UTC
	Start    *Offset `yaml:"start"`    // optional StartTime, an offset
	End      *Offset `yaml:"end"`      // optional EndTime, an offset
	Min      float64 `yaml:"min"`      // the new MinCapacity; 0: unchanged
	Max      float64 `yaml:"max"`      // the new MaxCapacity; 0: unchanged
}

// TrafficSpec is a table's demand: base rates in capacity units per second,
// shaped by seasonality and noise and changed by events.
type TrafficSpec struct {
	Read     float64 `yaml:"read"`
	Write    float64 `yaml:"write"`
	Daily    float64 `yaml:"daily"`     // amplitude of the daily cycle, 0 to <1
	PeakHour float64 `yaml:"peak_hour"` // UTC hour of the daily peak (default 14)
	Weekly   float64 `yaml:"weekly"`    // weekend dip, 0 to <1
	Noise    float64 `yaml:"noise"`     // ± relative noise per minute, 0 to <1
	// Growth is the traffic's compound growth a month of 730 hours (0.08:
	// 8% more each month), -0.5 to 2: the traffic is times (1+Growth)^(t ÷
	// 730h) at t from the scenario start (smaller before it, 1 at it).
	Growth float64     `yaml:"growth"`
	Events []EventSpec `yaml:"events"`
}

// Event types.
const (
	EventSpike     = "spike"      // ×Factor for Duration at At, reached over Ramp (default 1m)
	EventFlashSale = "flash_sale" // ×Factor at once, decaying over Duration
	EventStep      = "step"       // ×Factor from At on, for good
	EventSurge     = "surge"      // ×Factor over Ramp (default 2h), held for Duration, then decays over Decay to Retain×Factor
	EventMix       = "mix"        // reads ×Read and writes ×Write from At on
	EventHotKey    = "hot_key"    // Share of the traffic on one partition for Duration
)

// EventSpec is one traffic event. Every (optional) repeats it from At until
// Until, for Count occurrences, or up to the horizon (the default).
type EventSpec struct {
	Type      string    `yaml:"type"`
	At        Offset    `yaml:"at"`
	Duration  Duration  `yaml:"duration"`
	Factor    float64   `yaml:"factor"`
	Ramp      *Duration `yaml:"ramp"`
	Decay     Duration  `yaml:"decay"`
	Retain    float64   `yaml:"retain"`
	Direction string    `yaml:"direction"` // read, write or both (default)
	Read      float64   `yaml:"read"`
	Write     float64   `yaml:"write"`
	Share     float64   `yaml:"share"`
	Every     Duration  `yaml:"every"`
	Until     *Offset   `yaml:"until"`
	Count     int       `yaml:"count"`
	// AtUTC ("HH:MM"), when set, moves the event (at and until alike) to
	// the first time of day HH:MM UTC at or after at, so that a daily event
	// falls at the same UTC hour whatever the scenario's start.
	AtUTC string `yaml:"at_utc"`
}

// SwitchSpec is a billing-mode switch at a time. A switch to provisioned
// uses Capacity (default: the table's capacity, and each GSI's). Every
// (optional) repeats it from At until Until, for Count occurrences, or up
// to the horizon; after validation TableSpec.BillingSwitches holds every
// occurrence, in time order, with Every unset.
type SwitchSpec struct {
	At       Offset    `yaml:"at"`
	Mode     string    `yaml:"mode"` // on_demand or provisioned
	Capacity ReadWrite `yaml:"capacity"`
	Every    Duration  `yaml:"every"`
	Until    *Offset   `yaml:"until"`
	Count    int       `yaml:"count"`
}

// TTL item classes: how the TTL attribute of generated items is written.
const (
	ClassLive         = "live"         // a Number of epoch seconds, in the future at the start
	ClassExpired      = "expired"      // a Number of epoch seconds, in the past at the start
	ClassSeconds      = "seconds"      // a Number of epoch seconds, whatever the time
	ClassString       = "string"       // the epoch seconds as a String: never expires
	ClassMilliseconds = "milliseconds" // a Number of epoch milliseconds: never expires
	ClassMissing      = "missing"      // no TTL attribute
)

// TTLSpec is a table's TTL setting and its items.
type TTLSpec struct {
	Attribute      string           `yaml:"attribute"`
	Enabled        *bool            `yaml:"enabled"`    // default true
	EnabledAt      *Offset          `yaml:"enabled_at"` // default: the table's creation
	DeletionDelay  Duration         `yaml:"deletion_delay"`
	DeletionJitter Duration         `yaml:"deletion_jitter"`
	ItemSize       int              `yaml:"item_size"` // bytes of padding per item (default 200)
	Items          []PopulationSpec `yaml:"items"`
	Writes         *WritesSpec      `yaml:"writes"`
	Rewrites       []RewriteSpec    `yaml:"rewrites"`
}

// PITRSpec is a table's point-in-time recovery setting, as
// DescribeContinuousBackups answers it.
type PITRSpec struct {
	Enabled *bool `yaml:"enabled"` // default true
	// RecoveryPeriodDays is how far back a restore can go, 1 to 35 days
	// (default 35, AWS's default).
	RecoveryPeriodDays int     `yaml:"recovery_period_days"`
	EnabledAt          *Offset `yaml:"enabled_at"` // default: the table's creation
}

// PopulationSpec is Count items of one class written at Written (spread
// evenly over the Spread before it), whose TTL value is ExpiresIn after
// their write time.
type PopulationSpec struct {
	Class     string   `yaml:"class"`
	Count     int      `yaml:"count"`
	Written   Offset   `yaml:"written"`
	Spread    Duration `yaml:"spread"`
	ExpiresIn Offset   `yaml:"expires_in"`
}

// WritesSpec is a steady flow of new items, PerMinute on average, from From
// until Until (default: the whole history and horizon). It is split between
// Streams, each with its share of the writes, TTL value class, retention,
// attribute and time span. Without Streams, Class and ExpiresIn describe
// one stream taking every write (the single-stream form); after validation
// Streams always holds the streams and Class and ExpiresIn are unused.
type WritesSpec struct {
	PerMinute float64      `yaml:"per_minute"`
	Class     string       `yaml:"class"` // single-stream form; default seconds
	ExpiresIn Offset       `yaml:"expires_in"`
	From      Offset       `yaml:"from"`
	Until     *Offset      `yaml:"until"`
	Streams   []StreamSpec `yaml:"streams"`
}

// StreamSpec is one stream of written items: Share of the writes from From
// until Until (default: the writes' span), each item's TTL attribute
// (default: the table's) holding its write time plus ExpiresIn in Class.
// The shares of the streams writing at any time sum to 1.
type StreamSpec struct {
	Share     float64 `yaml:"share"`
	Class     string  `yaml:"class"` // seconds (default), milliseconds, string or missing
	ExpiresIn Offset  `yaml:"expires_in"`
	Attribute string  `yaml:"attribute"`
	From      *Offset `yaml:"from"`
	Until     *Offset `yaml:"until"`
}

// Rewrite matches: the class of an item's current TTL value.
const (
	MatchAny = "any" // every item
)

// RewriteSpec rewrites the TTL value of the items existing at At (a
// backfill, a conversion): those whose FromAttribute (default: Attribute)
// holds a value of class Match (default any) get Attribute (default: the
// table's TTL attribute) set, in Class (default seconds), to At plus
// ExpiresIn or, without ExpiresIn, to the expiry time their value already
// held (items without a readable value are then left alone). Class
// missing removes the attribute.
type RewriteSpec struct {
	At            Offset  `yaml:"at"`
	Match         string  `yaml:"match"`
	FromAttribute string  `yaml:"from_attribute"`
	Attribute     string  `yaml:"attribute"`
	Class         string  `yaml:"class"`
	ExpiresIn     *Offset `yaml:"expires_in"`
}

// Fault kinds.
const (
	FaultThrottling   = "throttling"    // the service answers ThrottlingException / ProvisionedThroughputExceeded
	FaultServerError  = "server_error"  // HTTP 500 InternalError
	FaultSlow         = "slow"          // answers after Delay
	FaultAccessDenied = "access_denied" // AccessDenied for requests naming Table (or every request of Operation)
	FaultDeleteTable  = "delete_table"  // Table is deleted at At
)

// FaultSpec is a fault active from At for Duration (0: until the end).
// Every (optional) repeats it from At until Until, for Count occurrences,
// or up to the horizon; after validation Scenario.Faults holds every
// occurrence, with Every unset.
type FaultSpec struct {
	At        Offset   `yaml:"at"`
	Duration  Duration `yaml:"duration"`
	Every     Duration `yaml:"every"`
	Until     *Offset  `yaml:"until"`
	Count     int      `yaml:"count"`
	Kind      string   `yaml:"kind"`
	Service   string   `yaml:"service"` // dynamodb, cloudwatch, application-autoscaling, sts
	Operation string   `yaml:"operation"`
	Table     string   `yaml:"table"`
	Delay     Duration `yaml:"delay"`
}
