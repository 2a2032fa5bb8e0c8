package awssim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file holds the hooks a simulation engine (package sim) drives the
// account with: it changes tables at simulated times under DynamoDB's own
// rules, writes items with their true write times, runs before every
// request, and adds faults it can remove again.

// OnRequest registers f to run at the start of every request, before the
// request is authenticated or dispatched and with no server lock held, so
// that a lazily advancing simulation can bring the account up to the
// server clock first. Hooks run in registration order.
func (s *Server) OnRequest(f func()) {
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	s.hooks = append(s.hooks, f)
}

// runHooks runs the OnRequest hooks.
func (s *Server) runHooks() {
	s.srcMu.RLock()
	hooks := slices.Clone(s.hooks)
	s.srcMu.RUnlock()
	for _, f := range hooks {
		f()
	}
}

// ErrorKindOf returns the kind of an error answered by the simulated
// account (for instance ErrLimitExceeded from SetBillingMode) and its AWS
// message, or false for any other error.
func ErrorKindOf(err error) (kind ErrorKind, msg string, ok bool) {
	var ae *apiError
	if !errors.As(err, &ae) {
		return "", "", false
	}
	return ae.kind, ae.msg, true
}

// Capacity is a pair of provisioned capacities, in units per second.
type Capacity struct {
	Read, Write int64
}

// SetThroughput changes the provisioned capacity of a table (index "") or
// of one of its GSIs at time at, as UpdateTable does: AWS's decrease limits
// apply (the first four decreases of a UTC day at any time, then one per
// hour) and LastIncreaseDateTime, LastDecreaseDateTime and
// NumberOfDecreasesToday follow. A refused change returns the error
// UpdateTable would answer (see ErrorKindOf). Setting the current value is
// a no-op. at should not go backwards for a table.
func (s *Server) SetThroughput(region, table, index string, c Capacity, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.region(region).tables[table]
	if t == nil {
		return fmt.Errorf("awssim: set throughput: %w", tableNotFound(table))
	}
	if t.BillingMode != BillingProvisioned {
		return fmt.Errorf("awssim: set throughput of %s: %w", table, apiErr(ErrValidation, "the table is not in PROVISIONED billing mode"))
	}
	th, what := &t.Throughput, "table"
	if index != "" {
		g := findGSI(t, index)
		if g == nil {
			return fmt.Errorf("awssim: set throughput of %s: %w", table, apiErr(ErrResourceNotFound, "Requested resource not found: Index: "+index+" not found"))
		}
		th, what = &g.Throughput, "index "+index
	}
	if th.ReadCapacityUnits == c.Read && th.WriteCapacityUnits == c.Write {
		return nil
	}
	next := *th
	if err := changeThroughput(&next, ddbCapacity{ReadCapacityUnits: c.Read, WriteCapacityUnits: c.Write}, at.UTC(), what); err != nil {
		return err
	}
	*th = next
	return nil
}

// RaiseWarmThroughput raises the warm throughput of a table (index "") or
// one of its GSIs to at least read and write units per second: a
// simulation reports the on-demand peaks it served (AWS: warm throughput
// grows as usage increases and never decreases, "Understanding DynamoDB
// warm throughput"). It never lowers it.
func (s *Server) RaiseWarmThroughput(region, table, index string, read, write int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.region(region).tables[table]
	if t == nil {
		return fmt.Errorf("awssim: raise warm throughput: %w", tableNotFound(table))
	}
	w := &t.Warm
	if index != "" {
		g := findGSI(t, index)
		if g == nil {
			return fmt.Errorf("awssim: raise warm throughput of %s: %w", table, apiErr(ErrResourceNotFound, "Requested resource not found: Index: "+index+" not found"))
		}
		w = &g.Warm
	}
	w.ReadUnitsPerSecond, w.WriteUnitsPerSecond = max(w.ReadUnitsPerSecond, read), max(w.WriteUnitsPerSecond, write)
	return nil
}

// SetBillingMode switches a table's billing mode at time at under
// UpdateTable's rules: a switch to PAY_PER_REQUEST beyond the fourth in a
// rolling 24 hours is refused with LimitExceededException and leaves the
// table unchanged; a switch to PROVISIONED needs the capacity of the table
// and of every GSI (gsis, by index name). Setting the current mode is a
// no-op. The replicas of a global table switch with it (replicas.go).
func (s *Server) SetBillingMode(region, table, mode string, c Capacity, gsis map[string]Capacity, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.region(region).tables[table]
	if cur == nil {
		return fmt.Errorf("awssim: set billing mode: %w", tableNotFound(table))
	}
	if cur.BillingMode == mode {
		return nil
	}
	in := ddbUpdateTableInput{TableName: table, BillingMode: mode}
	if mode == BillingProvisioned {
		in.ProvisionedThroughput = &ddbCapacity{ReadCapacityUnits: c.Read, WriteCapacityUnits: c.Write}
		for _, name := range slices.Sorted(maps.Keys(gsis)) {
			g := gsis[name]
			u := struct {
				Update *struct {
					IndexName             string
					ProvisionedThroughput *ddbCapacity
					OnDemandThroughput    *ddbOnDemandIn
					WarmThroughput        *ddbWarmIn
				}
			}{}
			u.Update = &struct {
				IndexName             string
				ProvisionedThroughput *ddbCapacity
				OnDemandThroughput    *ddbOnDemandIn
				WarmThroughput        *ddbWarmIn
			}{IndexName: name, ProvisionedThroughput: &ddbCapacity{ReadCapacityUnits: g.Read, WriteCapacityUnits: g.Write}}
			in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, u)
		}
	}
	next := cloneTable(*cur)
	if err := applyTableUpdate(&next, in, at.UTC()); err != nil {
		return err
	}
	others, err := s.replicaUpdates(region, cur, in, at.UTC(), false)
	if err != nil {
		return err
	}
	*cur = next
	for _, u := range others {
		*u.cur = u.next
	}
	return nil
}

// ItemWrite is one item written at a given time (see WriteItemsAt).
type ItemWrite struct {
	Item map[string]types.AttributeValue
	At   time.Time
}

// WriteItemsAt stores items as PutItems does, but each with its own write
// time, which may be in the past: the simulated TTL process then deletes
// them as if they had been written then (deletions that fell due before
// the server clock are counted in TimeToLiveDeletedItemCount at their due
// minutes on the next sweep). Validation and all-or-nothing semantics are
// those of PutItems. The table is settled only up to the earliest write
// (or the server clock, if earlier), so that a simulation writing its past
// in time order can still rewrite items at a later past time (see
// RewriteItemsAt) before their deletions are applied.
func (s *Server) WriteItemsAt(region, table string, writes []ItemWrite) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, true)
	if t == nil {
		return fmt.Errorf("awssim: write items: table %s not found in %s", table, region)
	}
	upTo := s.now()
	for _, w := range writes {
		upTo = minTime(upTo, w.At.UTC())
	}
	s.settleTable(region, t, upTo)
	type prepared struct {
		it   item
		size int64
		at   time.Time
	}
	ready := make([]prepared, len(writes))
	for i, w := range writes {
		it, size, err := prepareItem(ti.schema, itemFromSDKRaw(w.Item))
		if err != nil {
			return fmt.Errorf("awssim: write items into %s: item %d: %w", table, i, err)
		}
		ready[i] = prepared{it, size, w.At.UTC()}
	}
	for _, p := range ready {
		s.writeItem(t, ti, p.it, p.size, p.at)
	}
	return nil
}

// AddFault registers f like InjectFault and returns a function that removes
// it again (a no-op once it is gone), so that a schedule can end one fault
// without clearing the others.
func (s *Server) AddFault(f Fault) (remove func()) {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	af := &activeFault{f: f, left: left}
	s.faults.mu.Lock()
	s.faults.faults = append(s.faults.faults, af)
	s.faults.mu.Unlock()
	return func() {
		s.faults.mu.Lock()
		defer s.faults.mu.Unlock()
		if i := slices.Index(s.faults.faults, af); i >= 0 {
			s.faults.faults = slices.Delete(s.faults.faults, i, i+1)
		}
	}
}
