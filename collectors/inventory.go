package collectors

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table is what the exporter knows about one monitored table.
type Table struct {
	// Name is the table name.
	Name string
	// Description is the last DescribeTable answer.
	Description *types.TableDescription
	// TTL is the last DescribeTimeToLive answer; nil if it could not be read.
	TTL *types.TimeToLiveDescription
	// PITR is the last DescribeContinuousBackups answer's point-in-time
	// recovery description; nil if it could not be read.
	PITR *types.PointInTimeRecoveryDescription
	// PITRReadAt is when PITR was last asked for (answered or denied); zero
	// if never.
	PITRReadAt time.Time
	// Tags are the table's tags when tag filters are configured, else nil.
	Tags map[string]string
}

// IndexNames returns the names of the table's global secondary indexes, sorted.
func (t *Table) IndexNames() []string {
	if t.Description == nil {
		return nil
	}
	out := make([]string, 0, len(t.Description.GlobalSecondaryIndexes))
	for _, g := range t.Description.GlobalSecondaryIndexes {
		if g.IndexName != nil {
			out = append(out, *g.IndexName)
		}
	}
	sort.Strings(out)
	return out
}

// BuildingIndexNames returns, sorted, the names of the table's global
// secondary indexes that DescribeTable reports CREATING: indexes being
// added to the table, whose build (backfill) publishes the OnlineIndex
// CloudWatch metrics. An index without a status is not building.
func (t *Table) BuildingIndexNames() []string {
	if t.Description == nil {
		return nil
	}
	var out []string
	for _, g := range t.Description.GlobalSecondaryIndexes {
		if g.IndexName != nil && g.IndexStatus == types.IndexStatusCreating {
			out = append(out, *g.IndexName)
		}
	}
	sort.Strings(out)
	return out
}

// ReplicaRegions returns, sorted, the regions DescribeTable lists as the
// table's other replicas (a global table, version 2019.11.21); nil for a
// table of one region, a legacy global table (its DescribeTable lists no
// replicas) or a table not described yet.
func (t *Table) ReplicaRegions() []string {
	if t.Description == nil {
		return nil
	}
	var out []string
	for _, r := range t.Description.Replicas {
		if r.RegionName != nil && *r.RegionName != "" {
			out = append(out, *r.RegionName)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Unknown is the label value shown for an enum value AWS answers that the
// SDK the exporter was built with does not know (a billing mode or TTL
// status added later, or a malformed answer): the table stays monitored.
const Unknown = "unknown"

// BillingMode returns PROVISIONED or PAY_PER_REQUEST, or the mode AWS
// answered when the SDK does not know it (the capacity collector names it
// in its error).
func (t *Table) BillingMode() string {
	if t.Description != nil && t.Description.BillingModeSummary != nil && t.Description.BillingModeSummary.BillingMode != "" {
		return string(t.Description.BillingModeSummary.BillingMode)
	}
	// Tables created before billing modes existed report no summary: provisioned.
	return string(types.BillingModeProvisioned)
}

// BillingModeLabel is BillingMode as a label value: Unknown for a mode the
// SDK does not know.
func (t *Table) BillingModeLabel() string {
	m := types.BillingMode(t.BillingMode())
	if !slices.Contains(m.Values(), m) {
		return Unknown
	}
	return string(m)
}

// TTLStatus returns the table's TTL status (ENABLED, ENABLING, DISABLED,
// DISABLING) or Unknown; "" when it was never read.
func (t *Table) TTLStatus() string {
	if t.TTL == nil {
		return ""
	}
	s := t.TTL.TimeToLiveStatus
	if !slices.Contains(s.Values(), s) {
		return Unknown
	}
	return string(s)
}

// Inventory is the shared list of tables per target (account and region):
// discovery writes the names that pass the name filters, the table collector
// writes the described tables that pass every filter, and the other
// collectors read the latter.
type Inventory struct {
	mu    sync.RWMutex
	names map[string][]string
	// selected counts, per target, the names that passed the name filters
	// before sharding kept this replica's share.
	selected map[string]int
	tables   map[string][]*Table
	limits   map[string]Limits // per target: DescribeLimits (limits.go)
}

// NewInventory returns an empty inventory.
func NewInventory() *Inventory {
	return &Inventory{names: map[string][]string{}, selected: map[string]int{}, tables: map[string][]*Table{}}
}

// SetNames records the table names discovered for a target (this shard's
// share) and how many passed the name filters on every shard together.
func (i *Inventory) SetNames(target string, names []string, selected int) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.names[target] = sorted
	i.selected[target] = selected
}

// Selected returns how many table names of the target passed the name
// filters before sharding: the tables of every shard together.
func (i *Inventory) Selected(target string) int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.selected[target]
}

// Names returns the table names discovered for a target, sorted.
func (i *Inventory) Names(target string) []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.names[target]
}

// KnowsNames reports whether discovery has succeeded at least once for target.
func (i *Inventory) KnowsNames(target string) bool {
	i.mu.RLock()
	defer i.mu.RUnlock()
	_, ok := i.names[target]
	return ok
}

// SetTables records the monitored tables of a target.
func (i *Inventory) SetTables(target string, tables []*Table) {
	sorted := append([]*Table(nil), tables...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Name < sorted[b].Name })
	i.mu.Lock()
	defer i.mu.Unlock()
	i.tables[target] = sorted
}

// Tables returns the monitored tables of a target, sorted by name. The
// tables must be treated as read-only.
func (i *Inventory) Tables(target string) []*Table {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.tables[target]
}
