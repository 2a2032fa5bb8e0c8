package awssim

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// regionState is everything the account holds in one region.
type regionState struct {
	tables   map[string]*Table
	targets  map[string]*ScalableTarget  // key: resourceID + " " + dimension
	policies map[string]*ScalingPolicy   // key: resourceID + " " + dimension + " " + name
	actions  map[string]*ScheduledAction // key: resourceID + " " + dimension + " " + name
	items    map[string]*tableItems      // key: table name; see items.go
	limits   *Limits                     // nil: DefaultLimits
}

// region returns the state of name, creating it. s.mu must be held.
func (s *Server) region(name string) *regionState {
	r := s.regions[name]
	if r == nil {
		r = &regionState{
			tables:   make(map[string]*Table),
			targets:  make(map[string]*ScalableTarget),
			policies: make(map[string]*ScalingPolicy),
			actions:  make(map[string]*ScheduledAction),
			items:    make(map[string]*tableItems),
		}
		s.regions[name] = r
	}
	return r
}

var (
	tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	regionRE    = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
)

// PutTable creates or replaces table t in region. Missing fields get AWS's
// defaults (ACTIVE, PROVISIONED, STANDARD, TTL DISABLED, creation time now,
// a HASH key "pk" of type S). Replacing a table keeps its stored items if
// the primary key is unchanged (TTL deletions due under the old setting are
// applied first) and drops them otherwise.
func (s *Server) PutTable(region string, t Table) error {
	if !regionRE.MatchString(region) {
		return fmt.Errorf("awssim: put table: invalid region %q", region)
	}
	if !tableNameRE.MatchString(t.Name) {
		return fmt.Errorf("awssim: put table: invalid table name %q", t.Name)
	}
	t = cloneTable(t)
	if t.Status == "" {
		t.Status = StatusActive
	}
	if t.BillingMode == "" {
		t.BillingMode = BillingProvisioned
	}
	if t.BillingMode != BillingProvisioned && t.BillingMode != BillingPayPerRequest {
		return fmt.Errorf("awssim: put table %s: invalid billing mode %q", t.Name, t.BillingMode)
	}
	if t.TableClass == "" {
		t.TableClass = TableClassStandard
	}
	if t.TTL.Status == "" {
		t.TTL.Status = TTLDisabled
	}
	if t.CreationDateTime.IsZero() {
		t.CreationDateTime = s.now()
	}
	if t.PITR.RecoveryPeriodDays == 0 {
		t.PITR.RecoveryPeriodDays = DefaultRecoveryPeriodDays
	}
	if t.PITR.RecoveryPeriodDays < 1 || t.PITR.RecoveryPeriodDays > 35 {
		return fmt.Errorf("awssim: put table %s: PITR recovery period %d days is not between 1 and 35", t.Name, t.PITR.RecoveryPeriodDays)
	}
	if t.PITR.EnabledAt.IsZero() {
		t.PITR.EnabledAt = t.CreationDateTime
	}
	if len(t.KeySchema) == 0 {
		t.KeySchema = []KeyElement{{AttributeName: "pk", KeyType: "HASH"}}
	}
	if len(t.AttributeDefinitions) == 0 {
		for _, k := range t.KeySchema {
			t.AttributeDefinitions = append(t.AttributeDefinitions, AttributeDefinition{AttributeName: k.AttributeName, AttributeType: "S"})
		}
	}
	if err := validReplicas(region, &t); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range t.GSIs {
		g := &t.GSIs[i]
		if !tableNameRE.MatchString(g.IndexName) || seen[g.IndexName] {
			return fmt.Errorf("awssim: put table %s: invalid or duplicate index name %q", t.Name, g.IndexName)
		}
		seen[g.IndexName] = true
		if g.Status == "" {
			g.Status = StatusActive
		}
		if g.ProjectionType == "" {
			g.ProjectionType = "ALL"
		}
		if b := g.Backfill; b != nil && (b.Units <= 0 || b.Pace <= 0 || b.Writes < 0) {
			return fmt.Errorf("awssim: put table %s: index %s: a backfill needs units and a pace above 0 and writes of at least 0", t.Name, g.IndexName)
		}
		if len(g.KeySchema) == 0 {
			g.KeySchema = []KeyElement{{AttributeName: g.IndexName + "_pk", KeyType: "HASH"}}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(region)
	if old := r.tables[t.Name]; old != nil {
		s.settleTable(region, old, s.now())
	}
	r.tables[t.Name] = &t
	s.resetSweep(region, t.Name)
	s.tableData(region, t.Name, false) // drops items of a changed key schema
	return nil
}

// Table returns a copy of the table name in region, after applying the TTL
// status transitions and deletions that are due.
func (s *Server) Table(region, name string) (Table, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regions[region]
	if r == nil || r.tables[name] == nil {
		return Table{}, false
	}
	s.settleTable(region, r.tables[name], s.now())
	return cloneTable(*r.tables[name]), true
}

// TableNames returns the sorted names of the tables in region.
func (s *Server) TableNames(region string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regions[region]
	if r == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(r.tables))
}

// DeleteTable removes a table and reports whether it existed. Its items,
// scalable targets, policies and scheduled actions are removed too.
func (s *Server) DeleteTable(region, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regions[region]
	if r == nil || r.tables[name] == nil {
		return false
	}
	delete(r.tables, name)
	delete(r.items, name)
	prefix := "table/" + name
	for k, t := range r.targets {
		if t.ResourceID == prefix || strings.HasPrefix(t.ResourceID, prefix+"/") {
			delete(r.targets, k)
		}
	}
	for k, p := range r.policies {
		if p.ResourceID == prefix || strings.HasPrefix(p.ResourceID, prefix+"/") {
			delete(r.policies, k)
		}
	}
	for k, a := range r.actions {
		if a.ResourceID == prefix || strings.HasPrefix(a.ResourceID, prefix+"/") {
			delete(r.actions, k)
		}
	}
	return true
}

// cloneTable deep-copies t so callers never share state with the server.
func cloneTable(t Table) Table {
	t.KeySchema = slices.Clone(t.KeySchema)
	t.AttributeDefinitions = slices.Clone(t.AttributeDefinitions)
	t.GSIs = slices.Clone(t.GSIs)
	for i := range t.GSIs {
		t.GSIs[i].KeySchema = slices.Clone(t.GSIs[i].KeySchema)
		if b := t.GSIs[i].Backfill; b != nil {
			c := *b
			t.GSIs[i].Backfill = &c
		}
	}
	t.Tags = maps.Clone(t.Tags)
	t.Replicas = slices.Clone(t.Replicas)
	t.PayPerRequestSwitches = slices.Clone(t.PayPerRequestSwitches)
	t.TableClassUpdates = slices.Clone(t.TableClassUpdates)
	return t
}

// tableARN is the ARN of table name in region.
func (s *Server) tableARN(region, name string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, s.account, name)
}
