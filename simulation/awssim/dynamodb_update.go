package awssim

import (
	"fmt"
	"time"
)

// AWS limits on capacity changes.
const (
	// maxPayPerRequestSwitches is how often a table may switch to on-demand
	// within a rolling 24 hours.
	maxPayPerRequestSwitches = 4
	// freeDecreasesPerDay is how many decreases a UTC day allows at any
	// time; after that one decrease per hour is allowed.
	freeDecreasesPerDay = 4
	// maxClassUpdates is how many table-class updates a table may have in
	// a trailing classUpdateWindow: "no more than two table class updates
	// on your table are allowed in a 30-day trailing period" (DynamoDB
	// Developer Guide, "Considerations when choosing a table class", as
	// remembered: the excerpts at hand did not show the sentence).
	maxClassUpdates   = 2
	classUpdateWindow = 30 * 24 * time.Hour
)

// lastClassUpdate is the time of t's latest class update; zero if none.
func lastClassUpdate(t *Table) time.Time {
	if n := len(t.TableClassUpdates); n > 0 {
		return t.TableClassUpdates[n-1]
	}
	return time.Time{}
}

// decreasesToday is th.NumberOfDecreasesToday if the last decrease happened
// on now's UTC day, else 0 (the counter resets at midnight UTC).
func decreasesToday(th Throughput, now time.Time) int64 {
	if th.LastDecreaseDateTime.IsZero() {
		return 0
	}
	ly, lm, ld := th.LastDecreaseDateTime.UTC().Date()
	ny, nm, nd := now.UTC().Date()
	if ly == ny && lm == nm && ld == nd {
		return th.NumberOfDecreasesToday
	}
	return 0
}

type ddbCapacity struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

type ddbOnDemandIn struct {
	MaxReadRequestUnits  int64
	MaxWriteRequestUnits int64
}

type ddbUpdateTableInput struct {
	TableName                   string
	BillingMode                 string
	ProvisionedThroughput       *ddbCapacity
	OnDemandThroughput          *ddbOnDemandIn
	WarmThroughput              *ddbWarmIn
	TableClass                  string
	GlobalSecondaryIndexUpdates []struct {
		Update *struct {
			IndexName             string
			ProvisionedThroughput *ddbCapacity
			OnDemandThroughput    *ddbOnDemandIn
			WarmThroughput        *ddbWarmIn
		}
	}
}

// ddbWarmIn is UpdateTable's WarmThroughput: the read and write units per
// second to pre-warm to (0: unchanged).
type ddbWarmIn struct {
	ReadUnitsPerSecond  int64
	WriteUnitsPerSecond int64
}

// raiseWarm applies a pre-warming request to w. AWS: warm throughput can
// only be increased ("Understanding DynamoDB warm throughput": once
// increased, it cannot be decreased); a value below the current one is
// refused (the simulator's reading and wording: AWS documents the rule,
// not the message). The raise is reported ACTIVE at once (AWS reports
// UPDATING until the asynchronous raise ends; a scenario can set that
// status).
func raiseWarm(w *WarmThroughput, in ddbWarmIn, what string) error {
	if in.ReadUnitsPerSecond < 0 || in.WriteUnitsPerSecond < 0 ||
		(in.ReadUnitsPerSecond > 0 && in.ReadUnitsPerSecond < w.ReadUnitsPerSecond) ||
		(in.WriteUnitsPerSecond > 0 && in.WriteUnitsPerSecond < w.WriteUnitsPerSecond) {
		return apiErr(ErrValidation, fmt.Sprintf("One or more parameter values were invalid: the warm throughput of %s can only be increased (now %d read, %d write units per second)", what, w.ReadUnitsPerSecond, w.WriteUnitsPerSecond))
	}
	w.ReadUnitsPerSecond = max(w.ReadUnitsPerSecond, in.ReadUnitsPerSecond)
	w.WriteUnitsPerSecond = max(w.WriteUnitsPerSecond, in.WriteUnitsPerSecond)
	return nil
}

func (c *call) ddbUpdateTable() (any, error) {
	var in ddbUpdateTableInput
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := c.table(in.TableName)
	if err != nil {
		return nil, err
	}
	next := cloneTable(*cur)
	if err := applyTableUpdate(&next, in, s.now()); err != nil {
		return nil, err
	}
	if err := s.checkLimits(c.region, &next); err != nil {
		return nil, err
	}
	others, err := s.replicaUpdates(c.region, cur, in, s.now(), true)
	if err != nil {
		return nil, err
	}
	*cur = next
	for _, u := range others {
		*u.cur = u.next
	}
	return struct{ TableDescription ddbTableDescription }{s.describeTable(c.region, cur)}, nil
}

// applyTableUpdate applies in to t (a private copy) or explains why AWS
// would refuse it. t is left unusable on error.
func applyTableUpdate(t *Table, in ddbUpdateTableInput, now time.Time) error {
	if in.BillingMode == "" && in.ProvisionedThroughput == nil && in.OnDemandThroughput == nil &&
		in.TableClass == "" && in.WarmThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		return apiErr(ErrValidation, "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	switch in.BillingMode {
	case "", BillingProvisioned, BillingPayPerRequest:
	default:
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode))
	}
	mode := t.BillingMode
	if in.BillingMode != "" {
		mode = in.BillingMode
	}
	gsiCap := map[string]*ddbCapacity{}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update == nil {
			return apiErr(ErrValidation, "awssim: only GlobalSecondaryIndexUpdates.Update is simulated")
		}
		g := findGSI(t, u.Update.IndexName)
		if g == nil {
			return apiErr(ErrResourceNotFound, "Requested resource not found: Index: "+u.Update.IndexName+" not found")
		}
		if u.Update.ProvisionedThroughput != nil {
			gsiCap[g.IndexName] = u.Update.ProvisionedThroughput
		}
		if o := u.Update.OnDemandThroughput; o != nil {
			g.OnDemand = OnDemandThroughput(*o)
		}
		if w := u.Update.WarmThroughput; w != nil {
			if err := raiseWarm(&g.Warm, *w, "index "+g.IndexName); err != nil {
				return err
			}
		}
	}
	if mode == BillingPayPerRequest && (in.ProvisionedThroughput != nil || len(gsiCap) > 0) {
		return apiErr(ErrValidation, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}

	switch {
	case mode == BillingPayPerRequest && t.BillingMode == BillingProvisioned:
		if err := switchToPayPerRequest(t, now); err != nil {
			return err
		}
	case mode == BillingProvisioned && t.BillingMode == BillingPayPerRequest:
		if err := switchToProvisioned(t, in.ProvisionedThroughput, gsiCap); err != nil {
			return err
		}
	case mode == BillingProvisioned:
		if in.ProvisionedThroughput != nil {
			if err := changeThroughput(&t.Throughput, *in.ProvisionedThroughput, now, "table"); err != nil {
				return err
			}
		}
		for name, capa := range gsiCap {
			if err := changeThroughput(&findGSI(t, name).Throughput, *capa, now, "index "+name); err != nil {
				return err
			}
		}
	}
	if o := in.OnDemandThroughput; o != nil {
		t.OnDemand = OnDemandThroughput(*o)
	}
	if w := in.WarmThroughput; w != nil {
		if err := raiseWarm(&t.Warm, *w, "table "+t.Name); err != nil {
			return err
		}
	}
	if in.TableClass != "" {
		if in.TableClass != TableClassStandard && in.TableClass != TableClassStandardIA {
			return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'tableClass' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, STANDARD_INFREQUENT_ACCESS]", in.TableClass))
		}
		if in.TableClass != t.TableClass { // the same class: no update (undocumented; the simulator's reading)
			if err := updateClass(t, in.TableClass, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// updateClass changes t's class at now within the limit of
// maxClassUpdates per classUpdateWindow. The refusal's wording is the
// simulator's (AWS documents the limit, not the message).
func updateClass(t *Table, class string, now time.Time) error {
	recent := t.TableClassUpdates[:0:0]
	for _, at := range t.TableClassUpdates {
		if now.Sub(at) < classUpdateWindow {
			recent = append(recent, at)
		}
	}
	if len(recent) >= maxClassUpdates {
		return apiErr(ErrLimitExceeded, fmt.Sprintf(
			"Subscriber limit exceeded: Updates to TableClass are limited to %d times within 30 days period. Table: %s. Next update can be made at %s",
			maxClassUpdates, t.Name, recent[0].Add(classUpdateWindow).UTC().Format(time.RFC3339)))
	}
	t.TableClassUpdates = append(recent, now)
	t.TableClass = class
	return nil
}

func findGSI(t *Table, name string) *GlobalSecondaryIndex {
	for i := range t.GSIs {
		if t.GSIs[i].IndexName == name {
			return &t.GSIs[i]
		}
	}
	return nil
}

// switchToPayPerRequest enforces the 4-switches-per-rolling-24h limit.
func switchToPayPerRequest(t *Table, now time.Time) error {
	recent := t.PayPerRequestSwitches[:0:0]
	for _, at := range t.PayPerRequestSwitches {
		if now.Sub(at) < 24*time.Hour {
			recent = append(recent, at)
		}
	}
	if len(recent) >= maxPayPerRequestSwitches {
		return apiErr(ErrLimitExceeded, fmt.Sprintf(
			"Subscriber limit exceeded: Update to PayPerRequest mode are limited to %d times within 24 hours period. Table: %s. Next switch can be made at %s",
			maxPayPerRequestSwitches, t.Name, recent[0].Add(24*time.Hour).UTC().Format(time.RFC3339)))
	}
	t.PayPerRequestSwitches = append(recent, now)
	t.BillingMode = BillingPayPerRequest
	t.LastUpdateToPayPerRequestDateTime = now
	return nil
}

// switchToProvisioned sets the new capacities; AWS requires them for the
// table and every GSI.
func switchToProvisioned(t *Table, table *ddbCapacity, gsis map[string]*ddbCapacity) error {
	if table == nil {
		return apiErr(ErrValidation, "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	if err := validCapacity(*table); err != nil {
		return err
	}
	t.Throughput.ReadCapacityUnits, t.Throughput.WriteCapacityUnits = table.ReadCapacityUnits, table.WriteCapacityUnits
	for i := range t.GSIs {
		g := &t.GSIs[i]
		capa := gsis[g.IndexName]
		if capa == nil {
			return apiErr(ErrValidation, "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: "+g.IndexName)
		}
		if err := validCapacity(*capa); err != nil {
			return err
		}
		g.Throughput.ReadCapacityUnits, g.Throughput.WriteCapacityUnits = capa.ReadCapacityUnits, capa.WriteCapacityUnits
	}
	t.BillingMode = BillingProvisioned
	return nil
}

func validCapacity(c ddbCapacity) error {
	if c.ReadCapacityUnits < 1 || c.WriteCapacityUnits < 1 {
		return apiErr(ErrValidation, "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be greater than 0")
	}
	return nil
}

// changeThroughput applies a capacity change to th under AWS's decrease
// limits: the first four decreases of a UTC day at any time, then one per
// hour.
func changeThroughput(th *Throughput, want ddbCapacity, now time.Time, what string) error {
	if err := validCapacity(want); err != nil {
		return err
	}
	if want.ReadCapacityUnits == th.ReadCapacityUnits && want.WriteCapacityUnits == th.WriteCapacityUnits {
		return apiErr(ErrValidation, fmt.Sprintf(
			"The provisioned throughput for the %s will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the %s: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the %s: %d. Requested WriteCapacityUnits: %d.",
			what, what, th.ReadCapacityUnits, want.ReadCapacityUnits, what, th.WriteCapacityUnits, want.WriteCapacityUnits))
	}
	decrease := want.ReadCapacityUnits < th.ReadCapacityUnits || want.WriteCapacityUnits < th.WriteCapacityUnits
	increase := want.ReadCapacityUnits > th.ReadCapacityUnits || want.WriteCapacityUnits > th.WriteCapacityUnits
	if decrease {
		today := decreasesToday(*th, now)
		if today >= freeDecreasesPerDay && now.Sub(th.LastDecreaseDateTime) < time.Hour {
			return apiErr(ErrLimitExceeded, fmt.Sprintf(
				"Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. After the first %d decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. Number of decreases today: %d. Last decrease at %s. Next decrease can be made at %s",
				freeDecreasesPerDay, today, th.LastDecreaseDateTime.UTC().Format(time.RFC3339), th.LastDecreaseDateTime.Add(time.Hour).UTC().Format(time.RFC3339)))
		}
		th.NumberOfDecreasesToday = today + 1
		th.LastDecreaseDateTime = now
	}
	if increase {
		th.LastIncreaseDateTime = now
	}
	th.ReadCapacityUnits, th.WriteCapacityUnits = want.ReadCapacityUnits, want.WriteCapacityUnits
	return nil
}
