package sim

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Engine runs a Scenario against an awssim.Server: it installs the tables,
// simulates them minute by minute (lazily, up to the clock, whenever the
// server is asked anything) and serves the resulting CloudWatch data as an
// awssim.MetricSource. It is safe for concurrent use.
type Engine struct {
	sc      *Scenario
	srv     *awssim.Server
	clk     clock.Clock
	start   int64 // Unix minute of the scenario start
	h0      int64 // first simulated minute (hour-aligned)
	workers int

	mu      sync.RWMutex
	next    atomic.Int64 // every minute before it is simulated
	tables  []*tableSim
	regions map[string]*regionSim
	faults  []*faultSched
	series  map[string]map[string]*seriesRef // region -> metric key
	err     error
}

// Option configures an Engine.
type Option func(*Engine)

// regionSim holds the account-level metrics of one region.
type regionSim struct {
	name   string
	store  *tiered
	lastNZ int64
	rate   float64
	seed   uint64
	vals   [1]float32
}

// faultSched is a fault active during minutes [from, to).
type faultSched struct {
	from, to int64
	f        awssim.Fault
	remove   func()
}

// New installs sc into srv (tables, GSIs, TTL settings and items, scalable
// targets and policies, the fault schedule), registers the engine as a
// metric source and request hook of srv, and simulates the history up to
// clk's now. The scenario starts at its Start time or at clk's now
// (truncated to the minute).
func New(sc *Scenario, srv *awssim.Server, clk clock.Clock, opts ...Option) (*Engine, error) {
	if sc == nil || srv == nil {
		return nil, fmt.Errorf("sim: New needs a scenario and a server")
	}
	if clk == nil {
		clk = srv.Clock()
	}
	start := clk.Now().UTC().Truncate(time.Minute)
	if sc.Start != "" {
		t, err := time.Parse(time.RFC3339, sc.Start)
		if err != nil {
			return nil, fmt.Errorf("sim: scenario start: %w", err)
		}
		start = t.UTC().Truncate(time.Minute)
	}
	e := &Engine{sc: sc, srv: srv, clk: clk, workers: runtime.GOMAXPROCS(0), regions: map[string]*regionSim{}}
	for _, o := range opts {
		o(e)
	}
	e.start = start.Unix() / 60
	e.h0 = (e.start - minutesOf(sc.History.D())) / 60 * 60
	e.next.Store(e.h0)
	a := sc.Account
	for _, r := range a.Regions {
		srv.SetLimits(r, awssim.Limits{
			AccountMaxReadCapacityUnits: int64(a.AccountQuota.Read), AccountMaxWriteCapacityUnits: int64(a.AccountQuota.Write),
			TableMaxReadCapacityUnits: int64(a.TableQuota.Read), TableMaxWriteCapacityUnits: int64(a.TableQuota.Write),
		})
		e.regions[r] = &regionSim{name: r, store: newTiered(e.h0, []aggKind{aggSum}), lastNZ: -1 << 62,
			rate: sc.Account.UserErrorsPerMinute, seed: hashString(fmt.Sprintf("%d/%s/UserErrors", sc.Seed, r))}
	}
	for i := range sc.Tables {
		t := newTableSim(e, &sc.Tables[i], e.h0)
		reps := e.newReplicaSims(t)
		for _, x := range append([]*tableSim{t}, reps...) {
			if err := e.install(x); err != nil {
				return nil, fmt.Errorf("sim: %w", err)
			}
			e.tables = append(e.tables, x)
		}
	}
	if err := e.scheduleFaults(); err != nil {
		return nil, err
	}
	e.buildSeries()
	srv.AddMetricSource(e)
	srv.OnRequest(e.catchUp)
	if err := e.AdvanceTo(clk.Now()); err != nil {
		return nil, err
	}
	return e, nil
}

// install creates t's table, auto-scaling and TTL items in the server.
func (e *Engine) install(t *tableSim) error {
	s := t.spec
	created := minuteTime(e.start).Add(s.Created.D())
	tb := awssim.Table{
		Name: s.Name, CreationDateTime: created, ItemCount: s.ItemCount, SizeBytes: s.SizeBytes,
		BillingMode: awssim.BillingProvisioned,
		Throughput:  awssim.Throughput{ReadCapacityUnits: int64(t.ents[0].dirs[0].cap), WriteCapacityUnits: int64(t.ents[0].dirs[1].cap)},
		OnDemand:    awssim.OnDemandThroughput{MaxReadRequestUnits: int64(s.OnDemandMax.Read), MaxWriteRequestUnits: int64(s.OnDemandMax.Write)},
		TableClass:  awssim.TableClassStandard,
		Tags:        s.Tags,
		Replicas:    t.peers,
	}
	if s.Class == "standard_ia" {
		tb.TableClass = awssim.TableClassStandardIA
	}
	if w := s.WarmThroughput; w != nil {
		tb.Warm = awssim.WarmThroughput{ReadUnitsPerSecond: int64(w.Read), WriteUnitsPerSecond: int64(w.Write), Status: w.Status, Omit: w.Omitted}
	}
	if s.ClassChanged != nil {
		tb.TableClassUpdates = []time.Time{minuteTime(e.start).Add(s.ClassChanged.D())}
	}
	if t.onDemand {
		tb.BillingMode, tb.LastUpdateToPayPerRequestDateTime = awssim.BillingPayPerRequest, created
	}
	for i, en := range t.ents[1:] {
		g := awssim.GlobalSecondaryIndex{IndexName: en.index,
			Throughput: awssim.Throughput{ReadCapacityUnits: int64(en.dirs[0].cap), WriteCapacityUnits: int64(en.dirs[1].cap)}}
		if b := s.GSIs[i].Backfill; b != nil {
			g.Backfill = &awssim.Backfill{Start: minuteTime(e.start).Add(b.Start.D()), Units: b.Units, Pace: b.Pace,
				Writes: s.Traffic.Write * s.GSIs[i].Share.Write}
		}
		tb.GSIs = append(tb.GSIs, g)
	}
	if tt := s.TTL; tt != nil {
		enabledAt := created
		if tt.EnabledAt != nil {
			enabledAt = minuteTime(e.start).Add(tt.EnabledAt.D())
		}
		tb.TTL = awssim.TimeToLive{Status: awssim.TTLDisabled, AttributeName: tt.Attribute}
		if *tt.Enabled {
			tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: tt.Attribute, LastModified: enabledAt}
		}
		tb.TTLDeletionDelay, tb.TTLDeletionJitter = tt.DeletionDelay.D(), tt.DeletionJitter.D()
	}
	if pt := s.PITR; pt != nil && *pt.Enabled {
		tb.PITR = awssim.PointInTimeRecovery{Enabled: true, RecoveryPeriodDays: pt.RecoveryPeriodDays, EnabledAt: created}
		if pt.EnabledAt != nil {
			tb.PITR.EnabledAt = minuteTime(e.start).Add(pt.EnabledAt.D())
		}
	}
	if err := e.srv.PutTable(t.region, tb); err != nil {
		return fmt.Errorf("table %s: %w", s.Name, err)
	}
	for _, en := range t.ents {
		id := "table/" + s.Name
		dims := [2]string{awssim.DimTableRead, awssim.DimTableWrite}
		if en.index != "" {
			id += "/index/" + en.index
			dims = [2]string{awssim.DimIndexRead, awssim.DimIndexWrite}
		}
		metrics := [2]string{awssim.MetricReadUtilization, awssim.MetricWriteUtilization}
		for d := range en.dirs {
			p := en.dirs[d].policy
			if p == nil {
				continue
			}
			if err := e.srv.PutScalableTarget(t.region, awssim.ScalableTarget{ResourceID: id, ScalableDimension: dims[d],
				MinCapacity: int32(p.min), MaxCapacity: int32(p.max), CreationTime: created}); err != nil {
				return fmt.Errorf("table %s: %w", s.Name, err)
			}
			if err := e.srv.PutScalingPolicy(t.region, awssim.ScalingPolicy{PolicyName: metrics[d] + ":" + id, ResourceID: id,
				ScalableDimension: dims[d], TargetValue: p.target * 100, PredefinedMetricType: metrics[d],
				ScaleOutCooldown: int32(p.outCooldown * 60), ScaleInCooldown: int32(p.inCooldown * 60),
				DisableScaleIn: p.noScaleIn, CreationTime: created}); err != nil {
				return fmt.Errorf("table %s: %w", s.Name, err)
			}
			for _, a := range scheduledSpecs(s, en.index, d == 0) {
				sa := awssim.ScheduledAction{ScheduledActionName: a.Name, ResourceID: id, ScalableDimension: dims[d],
					Schedule: a.Schedule, Timezone: a.Timezone, CreationTime: created}
				if a.Start != nil {
					sa.StartTime = minuteTime(e.start).Add(a.Start.D())
				}
				if a.End != nil {
					sa.EndTime = minuteTime(e.start).Add(a.End.D())
				}
				if a.Min > 0 {
					sa.MinCapacity = aws32(a.Min)
				}
				if a.Max > 0 {
					sa.MaxCapacity = aws32(a.Max)
				}
				if err := e.srv.PutScheduledAction(t.region, sa); err != nil {
					return fmt.Errorf("table %s: scheduled action %s: %w", s.Name, a.Name, err)
				}
			}
		}
	}
	return t.populations(minuteTime(e.start))
}

// scheduledSpecs returns the scheduled actions of a table's (index "") or
// GSI's read or write dimension.
func scheduledSpecs(s *TableSpec, index string, read bool) []ScheduledSpec {
	sc := s.AutoScaling
	if index != "" {
		sc = nil
		for i := range s.GSIs {
			if s.GSIs[i].Name == index {
				sc = s.GSIs[i].AutoScaling
			}
		}
	}
	if sc == nil {
		return nil
	}
	ps := sc.Write
	if read {
		ps = sc.Read
	}
	if ps == nil {
		return nil
	}
	return ps.Scheduled
}

func aws32(x float64) *int32 { v := int32(x); return &v }

// scheduleFaults turns the scenario's faults into a schedule.
func (e *Engine) scheduleFaults() error {
	for _, f := range e.sc.Faults {
		from := e.start + minutesOf(f.At.D())
		to := int64(1<<62 - 1)
		if f.Duration > 0 {
			to = from + max(1, minutesOf(f.Duration.D()))
		}
		fs := &faultSched{from: from, to: to, f: awssim.Fault{Service: f.Service, Operation: f.Operation, Table: f.Table, Delay: f.Delay.D()}}
		switch f.Kind {
		case FaultDeleteTable:
			for _, t := range e.tables {
				if t.name == f.Table {
					t.deleteAt = min(t.deleteAt, from)
				}
			}
			continue
		case FaultThrottling:
			fs.f.Error = awssim.ErrThrottling
		case FaultServerError:
			fs.f.Error = awssim.ErrInternal
		case FaultAccessDenied:
			fs.f.Error = awssim.ErrAccessDenied
		}
		e.faults = append(e.faults, fs)
	}
	return nil
}

// catchUp is the server's request hook: it simulates up to the clock.
func (e *Engine) catchUp() {
	now := e.clk.Now()
	if now.Unix()/60 > e.next.Load() {
		_ = e.AdvanceTo(now)
	}
}

// AdvanceTo simulates every minute that has ended by t (minutes before
// t's minute) and applies what happens at the start of t's minute
// (capacity changes, billing switches, faults). Going backwards is a
// no-op. It returns the first unexpected error of the server, if any.
func (e *Engine) AdvanceTo(t time.Time) error {
	target := t.Unix() / 60
	e.mu.Lock()
	defer e.mu.Unlock()
	from := e.next.Load()
	if target <= from {
		return e.err
	}
	live := make([]*tableSim, 0, len(e.tables))
	var sources, replicas []*tableSim
	for _, ts := range e.tables {
		ts.sync(from)
		if !ts.deleted {
			live = append(live, ts)
			if ts.source != nil {
				replicas = append(replicas, ts)
			} else {
				sources = append(sources, ts)
			}
		}
	}
	// The replicas of global tables after every source: they receive the
	// writes their source accepted (replicas.go).
	e.runTables(sources, from, target)
	e.runTables(replicas, from, target)
	for _, ts := range live {
		ts.noteWarm()
	}
	for _, r := range e.regions {
		r.run(from, target)
	}
	e.next.Store(target)
	e.updateFaults(target)
	for _, ts := range e.tables {
		if ts.err != nil && e.err == nil {
			e.err = fmt.Errorf("sim: %w", ts.err)
		}
	}
	return e.err
}

// runTables simulates minutes [from, target) of tables, in parallel when
// there is much to do.
func (e *Engine) runTables(tables []*tableSim, from, target int64) {
	if n := min(e.workers, len(tables)); n > 1 && (target-from)*int64(len(tables)) > 50000 {
		work := make(chan *tableSim)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				for ts := range work {
					ts.run(from, target)
				}
			})
		}
		for _, ts := range tables {
			work <- ts
		}
		close(work)
		wg.Wait()
		return
	}
	for _, ts := range tables {
		ts.run(from, target)
	}
}

// run simulates the account metrics of minutes [a, b).
func (r *regionSim) run(a, b int64) {
	for m := a; m < b; m++ {
		r.vals[0] = 0
		if r.rate > 0 {
			r.vals[0] = float32(int(r.rate + unit(r.seed, m)))
		}
		if r.vals[0] != 0 {
			r.lastNZ = m
		}
		r.store.push(r.vals[:])
	}
}

// updateFaults activates the faults whose window holds minute m and
// removes the others.
func (e *Engine) updateFaults(m int64) {
	for _, f := range e.faults {
		on := f.from <= m && m < f.to
		switch {
		case on && f.remove == nil:
			f.remove = e.srv.AddFault(f.f)
		case !on && f.remove != nil:
			f.remove()
			f.remove = nil
		}
	}
}

// Start returns the scenario start.
func (e *Engine) Start() time.Time { return minuteTime(e.start) }

// HistoryStart returns the first simulated minute.
func (e *Engine) HistoryStart() time.Time { return minuteTime(e.h0) }

// Now returns the end of the simulated time: every minute before it is
// simulated.
func (e *Engine) Now() time.Time { return minuteTime(e.next.Load()) }

// Scenario returns the engine's scenario.
func (e *Engine) Scenario() *Scenario { return e.sc }

// Tables returns the names of the scenario's tables ("region/name" when
// the account has several regions), sorted.
func (e *Engine) Tables() []string {
	out := make([]string, 0, len(e.tables))
	for _, t := range e.tables {
		if len(e.sc.Account.Regions) > 1 {
			out = append(out, t.region+"/"+t.name)
		} else {
			out = append(out, t.name)
		}
	}
	slices.Sort(out)
	return out
}
