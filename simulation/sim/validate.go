package sim

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Limits of a scenario.
const (
	DefaultHistory = 90 * 24 * time.Hour
	MaxHistory     = 180 * 24 * time.Hour
	DefaultHorizon = 7 * 24 * time.Hour
	MaxHorizon     = 366 * 24 * time.Hour
	// MaxItemsPerTable bounds the generated TTL items of one table
	// (populations plus the history part of the write stream).
	MaxItemsPerTable = 200000
	defaultQuota     = 40000
	// defaultAccountQuota is AWS's default account-level quota on
	// provisioned capacity per region ("Quotas in Amazon DynamoDB").
	defaultAccountQuota = 80000
	defaultPeakHour     = 14
)

var (
	tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	regionRE    = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
)

// validator collects the context of one scenario's checks.
type validator struct {
	sc *Scenario
}

func (v *validator) errf(path, format string, args ...any) error {
	return fmt.Errorf("scenario %s: %s: %s", v.sc.source, v.sc.at(path), fmt.Sprintf(format, args...))
}

// inScenario checks that an offset lies within [-history, horizon].
func (v *validator) inScenario(path string, o Offset) error {
	h, z := v.sc.History.D(), v.sc.Horizon.D()
	if o.D() < -h || o.D() > z {
		return v.errf(path, "%s is outside the scenario (history %s, horizon %s)", formatOffset(o.D()), formatOffset(-h), formatOffset(z))
	}
	return nil
}

func (v *validator) number(path string, x, lo, hi float64, what string) error {
	if math.IsNaN(x) || x < lo || x > hi {
		return v.errf(path, "%s %v must be between %v and %v", what, x, lo, hi)
	}
	return nil
}

// validate applies defaults and checks sc, naming the key and line of the
// first problem.
func (sc *Scenario) validate() error {
	v := &validator{sc: sc}
	if !sc.has("history") {
		sc.History = Duration(DefaultHistory)
	}
	if !sc.has("horizon") {
		sc.Horizon = Duration(DefaultHorizon)
	}
	if sc.History.D() < time.Hour || sc.History.D() > MaxHistory {
		return v.errf("history", "history %s must be between 1h and %s", formatOffset(sc.History.D()), formatOffset(MaxHistory))
	}
	if sc.Horizon.D() < time.Hour || sc.Horizon.D() > MaxHorizon {
		return v.errf("horizon", "horizon %s must be between 1h and %s", formatOffset(sc.Horizon.D()), formatOffset(MaxHorizon))
	}
	if sc.Start != "" {
		if _, err := time.Parse(time.RFC3339, sc.Start); err != nil {
			return v.errf("start", "start %q is not an RFC 3339 time such as 2025-03-12T12:00:00Z", sc.Start)
		}
	}
	a := &sc.Account
	if len(a.Regions) == 0 {
		a.Regions = []string{"us-east-1"}
	}
	for i, r := range a.Regions {
		if !regionRE.MatchString(r) {
			return v.errf(fmt.Sprintf("account.regions[%d]", i), "invalid region %q", r)
		}
	}
	if a.TableQuota.Read == 0 {
		a.TableQuota.Read = defaultQuota
	}
	if a.TableQuota.Write == 0 {
		a.TableQuota.Write = defaultQuota
	}
	if err := v.number("account.table_quota", math.Min(a.TableQuota.Read, a.TableQuota.Write), 1, 1e7, "table quota"); err != nil {
		return err
	}
	if a.AccountQuota.Read == 0 {
		a.AccountQuota.Read = defaultAccountQuota
	}
	if a.AccountQuota.Write == 0 {
		a.AccountQuota.Write = defaultAccountQuota
	}
	if err := v.number("account.account_quota", math.Min(a.AccountQuota.Read, a.AccountQuota.Write), 1, 1e8, "account quota"); err != nil {
		return err
	}
	if err := v.number("account.user_errors_per_minute", a.UserErrorsPerMinute, 0, 1e6, "rate"); err != nil {
		return err
	}
	seen := map[string]string{}
	for i := range sc.Tables {
		p := fmt.Sprintf("tables[%d]", i)
		t := &sc.Tables[i]
		if err := v.table(p, t); err != nil {
			return err
		}
		key := t.Region + "/" + t.Name
		if prev, ok := seen[key]; ok {
			return v.errf(p+".name", "table %s in %s is defined twice (first at %s)", t.Name, t.Region, prev)
		}
		seen[key] = sc.at(p + ".name")
		for j, r := range t.Replicas {
			rp := fmt.Sprintf("%s.replicas[%d].region", p, j)
			key := r.Region + "/" + t.Name
			if prev, ok := seen[key]; ok {
				return v.errf(rp, "table %s in %s is defined twice (first at %s)", t.Name, r.Region, prev)
			}
			seen[key] = sc.at(rp)
		}
	}
	var faults []FaultSpec
	for i := range sc.Faults {
		p := fmt.Sprintf("faults[%d]", i)
		f := &sc.Faults[i]
		if err := v.fault(p, f); err != nil {
			return err
		}
		end, err := v.repeat(p, f.At, f.Every, f.Until, f.Count)
		if err != nil {
			return err
		}
		every := f.Every.D()
		if every > 0 {
			switch {
			case f.Kind == FaultDeleteTable:
				return v.errf(p+".every", "a %s fault cannot repeat", f.Kind)
			case f.Duration.D() <= 0 || f.Duration.D() > every:
				return v.errf(p+".duration", "a repeated fault needs a duration of at most every (%s)", formatOffset(every))
			}
		}
		o := *f
		o.Every, o.Until, o.Count = 0, nil, 0
		for at := f.At.D(); at <= end.D(); at += every {
			if len(faults) >= MaxFaults {
				return v.errf(p+".every", "the scenario has more than %d faults", MaxFaults)
			}
			o.At = Offset(at)
			faults = append(faults, o)
			if every == 0 {
				break
			}
		}
	}
	sc.Faults = faults
	return nil
}

func (v *validator) table(p string, t *TableSpec) error {
	sc := v.sc
	if !tableNameRE.MatchString(t.Name) {
		return v.errf(p+".name", "invalid table name %q (3 to 255 of a-z A-Z 0-9 _ . -)", t.Name)
	}
	if t.Region == "" {
		t.Region = sc.Account.Regions[0]
	} else if !slices.Contains(sc.Account.Regions, t.Region) {
		return v.errf(p+".region", "region %q is not one of the account's regions %v", t.Region, sc.Account.Regions)
	}
	switch t.Billing {
	case "":
		t.Billing = modeProvisioned
	case modeProvisioned, modeOnDemand:
	default:
		return v.errf(p+".billing", "billing %q must be provisioned or on_demand", t.Billing)
	}
	switch t.Class {
	case "", "standard", "standard_ia":
	default:
		return v.errf(p+".class", "class %q must be standard or standard_ia", t.Class)
	}
	if !sc.has(p + ".created") {
		t.Created = Offset(-sc.History.D())
	} else if t.Created.D() > 0 {
		return v.errf(p+".created", "a table must exist at the scenario start (created %s)", formatOffset(t.Created.D()))
	}
	if c := t.ClassChanged; c != nil && (c.D() > 0 || c.D() < t.Created.D()) {
		return v.errf(p+".class_changed", "the class changed at %s: must be between the table's creation (%s) and the start (0)", formatOffset(c.D()), formatOffset(t.Created.D()))
	}
	if err := v.capacity(p+".capacity", &t.Capacity); err != nil {
		return err
	}
	for _, x := range []struct {
		k string
		f float64
	}{{"read", t.OnDemandMax.Read}, {"write", t.OnDemandMax.Write}} {
		if err := v.number(p+".on_demand_max."+x.k, x.f, 0, 1e7, "maximum"); err != nil {
			return err
		}
	}
	if w := t.WarmThroughput; w != nil {
		for _, x := range []struct {
			k string
			f float64
		}{{"read", w.Read}, {"write", w.Write}} {
			if err := v.number(p+".warm_throughput."+x.k, x.f, 0, 1e7, "warm throughput"); err != nil {
				return err
			}
		}
		if w.Status != "" && w.Status != "ACTIVE" && w.Status != "UPDATING" {
			return v.errf(p+".warm_throughput.status", "status %q must be ACTIVE or UPDATING", w.Status)
		}
	}
	if t.Partitions < 0 || t.Partitions > 100000 {
		return v.errf(p+".partitions", "partitions %d must be between 0 (derived) and 100000", t.Partitions)
	}
	if err := v.number(p+".hot_key_share", t.HotKeyShare, 0, 1, "share"); err != nil {
		return err
	}
	if err := v.number(p+".system_errors_per_hour", t.SystemErrorsPerHour, 0, 1e6, "rate"); err != nil {
		return err
	}
	if t.ItemCount < 0 || t.SizeBytes < 0 {
		return v.errf(p+".item_count", "item_count and size_bytes must not be negative")
	}
	if err := v.scaling(p+".auto_scaling", t.AutoScaling); err != nil {
		return err
	}
	names := map[string]bool{}
	for j := range t.GSIs {
		gp := fmt.Sprintf("%s.gsis[%d]", p, j)
		g := &t.GSIs[j]
		if !tableNameRE.MatchString(g.Name) || names[g.Name] {
			return v.errf(gp+".name", "invalid or duplicate index name %q", g.Name)
		}
		names[g.Name] = true
		if err := v.capacity(gp+".capacity", &g.Capacity); err != nil {
			return err
		}
		if g.Share == nil {
			g.Share = &ReadWrite{Read: 0.2, Write: 1}
		}
		if err := v.number(gp+".share", math.Max(g.Share.Read, g.Share.Write), 0, 10, "share"); err != nil {
			return err
		}
		if err := v.number(gp+".hot_key_share", g.HotKeyShare, 0, 1, "share"); err != nil {
			return err
		}
		if err := v.scaling(gp+".auto_scaling", g.AutoScaling); err != nil {
			return err
		}
		if err := v.backfill(gp+".backfill", t, g); err != nil {
			return err
		}
	}
	if err := v.traffic(p+".traffic", &t.Traffic); err != nil {
		return err
	}
	if err := v.switches(p, t); err != nil {
		return err
	}
	if err := v.pitr(p+".pitr", t); err != nil {
		return err
	}
	if err := v.replicas(p, t); err != nil {
		return err
	}
	if t.TTL != nil {
		return v.ttl(p+".ttl", t)
	}
	return nil
}

// replicas applies the defaults of a global table's replicas and checks
// them: each in another of the account's regions, once; a latency profile
// of a positive base (default 1s) below an hour, noise in [0, 1), lags
// within the scenario peaking between the base and 7 days. A global table
// must be on-demand or provisioned with write auto-scaling (AWS, "Best
// practices and requirements for managing global tables", Requirements for
// managing capacity).
func (v *validator) replicas(p string, t *TableSpec) error {
	if len(t.Replicas) == 0 {
		return nil
	}
	if t.Billing == modeProvisioned && (t.AutoScaling == nil || t.AutoScaling.Write == nil) {
		return v.errf(p+".replicas", "a provisioned global table needs write auto-scaling (auto_scaling.write)")
	}
	regions := map[string]bool{t.Region: true}
	for i := range t.Replicas {
		rp := fmt.Sprintf("%s.replicas[%d]", p, i)
		r := &t.Replicas[i]
		if !slices.Contains(v.sc.Account.Regions, r.Region) {
			return v.errf(rp+".region", "region %q is not one of the account's regions %v", r.Region, v.sc.Account.Regions)
		}
		if regions[r.Region] {
			return v.errf(rp+".region", "region %q already holds the table or another replica", r.Region)
		}
		regions[r.Region] = true
		switch r.Status {
		case "":
			r.Status = "ACTIVE"
		case "ACTIVE", "CREATING", "UPDATING", "DELETING", "REGION_DISABLED", "INACCESSIBLE_ENCRYPTION_CREDENTIALS":
		default:
			return v.errf(rp+".status", "status %q must be ACTIVE, CREATING, UPDATING, DELETING, REGION_DISABLED or INACCESSIBLE_ENCRYPTION_CREDENTIALS", r.Status)
		}
		if err := v.number(rp+".read", r.Read, 0, 1e7, "read demand"); err != nil {
			return err
		}
		l := &r.ReplicationLatency
		lp := rp + ".replication_latency"
		if !v.sc.has(lp + ".base") {
			l.Base = Duration(time.Second)
		}
		if l.Base.D() <= 0 || l.Base.D() > time.Hour {
			return v.errf(lp+".base", "base %s must be above 0 and at most 1h", l.Base.D())
		}
		if err := v.number(lp+".noise", l.Noise, 0, 0.99, "noise"); err != nil {
			return err
		}
		for k := range l.Lags {
			gp := fmt.Sprintf("%s.lags[%d]", lp, k)
			g := &l.Lags[k]
			if err := v.inScenario(gp+".at", g.At); err != nil {
				return err
			}
			if g.Ramp == nil {
				d := Duration(10 * time.Minute)
				g.Ramp = &d
			}
			if g.Ramp.D() < 0 || g.Ramp.D() > 7*24*time.Hour {
				return v.errf(gp+".ramp", "ramp %s must be between 0 and 7d", g.Ramp.D())
			}
			if g.Peak.D() < l.Base.D() || g.Peak.D() > 7*24*time.Hour {
				return v.errf(gp+".peak", "peak %s must be between the base (%s) and 7d", g.Peak.D(), l.Base.D())
			}
			if g.Duration.D() < 0 {
				return v.errf(gp+".duration", "duration must not be negative")
			}
		}
	}
	return nil
}

// backfill applies the defaults of an index build and checks it: a pace
// above 0, units above 0 (default the table's item count), a start within
// the scenario, and a provisioned index (an on-demand index is capped only
// by the table-level quota, which the simulated build does not model
// against the table's traffic).
func (v *validator) backfill(p string, t *TableSpec, g *GSISpec) error {
	b := g.Backfill
	if b == nil {
		return nil
	}
	if t.Billing == modeOnDemand {
		return v.errf(p, "a backfill is simulated on a provisioned table only")
	}
	if err := v.inScenario(p+".start", b.Start); err != nil {
		return err
	}
	if b.Units == 0 {
		b.Units = float64(t.ItemCount)
	}
	if err := v.number(p+".units", b.Units, 1, 1e12, "units"); err != nil {
		return err
	}
	return v.number(p+".pace", b.Pace, 1, 1e6, "pace")
}

// pitr applies the defaults of a point-in-time recovery setting and checks
// it: AWS accepts a recovery period of 1 to 35 days (UpdateContinuousBackups
// API reference, RecoveryPeriodInDays).
func (v *validator) pitr(p string, t *TableSpec) error {
	pt := t.PITR
	if pt == nil {
		return nil
	}
	if pt.Enabled == nil {
		on := true
		pt.Enabled = &on
	}
	if pt.RecoveryPeriodDays == 0 {
		pt.RecoveryPeriodDays = 35
	}
	if pt.RecoveryPeriodDays < 1 || pt.RecoveryPeriodDays > 35 {
		return v.errf(p+".recovery_period_days", "recovery period %d days must be between 1 and 35", pt.RecoveryPeriodDays)
	}
	if pt.EnabledAt != nil {
		if err := v.inScenario(p+".enabled_at", *pt.EnabledAt); err != nil {
			return err
		}
		if pt.EnabledAt.D() < t.Created.D() {
			return v.errf(p+".enabled_at", "PITR enabled at %s, before the table was created (%s)", formatOffset(pt.EnabledAt.D()), formatOffset(t.Created.D()))
		}
		if pt.EnabledAt.D() > 0 {
			return v.errf(p+".enabled_at", "PITR enabled at %s: the setting is fixed at the scenario start (changes are not simulated)", formatOffset(pt.EnabledAt.D()))
		}
	}
	return nil
}

func (v *validator) capacity(p string, c *ReadWrite) error {
	if c.Read == 0 {
		c.Read = 5
	}
	if c.Write == 0 {
		c.Write = 5
	}
	if c.Read < 1 || c.Write < 1 || c.Read > 1e6 || c.Write > 1e6 || c.Read != math.Trunc(c.Read) || c.Write != math.Trunc(c.Write) {
		return v.errf(p, "capacity read %v / write %v must be whole numbers between 1 and 1000000", c.Read, c.Write)
	}
	return nil
}

func (v *validator) scaling(p string, s *ScalingSpec) error {
	if s == nil {
		return nil
	}
	for _, x := range []struct {
		k  string
		ps *PolicySpec
	}{{"read", s.Read}, {"write", s.Write}} {
		pp := p + "." + x.k
		ps := x.ps
		if ps == nil {
			continue
		}
		if !v.sc.has(pp + ".target") {
			ps.Target = defaultTargetPercent
		}
		if !v.sc.has(pp + ".min") {
			ps.Min = defaultMinCapacity
		}
		if !v.sc.has(pp + ".max") {
			ps.Max = defaultMaxCapacity
		}
		if ps.Delay == nil {
			d := Duration(defaultScaleOutDelay)
			ps.Delay = &d
		}
		if err := v.number(pp+".target", ps.Target, minTargetPercent, maxTargetPercent, "target utilization (percent)"); err != nil {
			return err
		}
		if err := v.number(pp+".min", ps.Min, 1, 1e6, "minimum capacity"); err != nil {
			return err
		}
		if err := v.number(pp+".max", ps.Max, ps.Min, 1e6, "maximum capacity (at least min)"); err != nil {
			return err
		}
		if err := v.scheduled(pp+".scheduled", ps.Scheduled); err != nil {
			return err
		}
	}
	return nil
}

// scheduled checks a dimension's scheduled actions with the simulated
// Application Auto Scaling's own rules (awssim.ParseSchedule).
func (v *validator) scheduled(p string, as []ScheduledSpec) error {
	names := map[string]bool{}
	for i := range as {
		a := &as[i]
		ap := fmt.Sprintf("%s[%d]", p, i)
		if a.Name == "" || strings.ContainsAny(a.Name, ":/|") || len(a.Name) > 256 {
			return v.errf(ap+".name", "scheduled action name %q must be 1 to 256 characters without ':', '/' or '|'", a.Name)
		}
		if names[a.Name] {
			return v.errf(ap+".name", "scheduled action name %q is used twice on this dimension", a.Name)
		}
		names[a.Name] = true
		var start, end time.Time
		base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, x := range []struct {
			k string
			o *Offset
			t *time.Time
		}{{"start", a.Start, &start}, {"end", a.End, &end}} {
			if x.o == nil {
				continue
			}
			if err := v.inScenario(ap+"."+x.k, *x.o); err != nil {
				return err
			}
			*x.t = base.Add(x.o.D())
		}
		if _, err := awssim.ParseSchedule(a.Schedule, a.Timezone, start, end, base); err != nil {
			field := "schedule"
			if strings.Contains(err.Error(), "'timezone'") {
				field = "timezone"
			} else if strings.Contains(err.Error(), "EndTime") {
				field = "end"
			}
			return v.errf(ap+"."+field, "%s", errMessage(err))
		}
		if a.Min == 0 && a.Max == 0 {
			return v.errf(ap, "scheduled action %q needs min, max or both", a.Name)
		}
		if err := v.number(ap+".min", a.Min, 0, 1e6, "minimum capacity"); err != nil {
			return err
		}
		if err := v.number(ap+".max", a.Max, 0, 1e6, "maximum capacity"); err != nil {
			return err
		}
		if a.Min > 0 && a.Max > 0 && a.Max < a.Min {
			return v.errf(ap+".max", "maximum capacity %v must be at least min %v", a.Max, a.Min)
		}
	}
	return nil
}

func (v *validator) traffic(p string, tr *TrafficSpec) error {
	checks := []struct {
		k      string
		x      float64
		lo, hi float64
	}{
		{"read", tr.Read, 0, 1e7}, {"write", tr.Write, 0, 1e7},
		{"daily", tr.Daily, 0, 0.99}, {"weekly", tr.Weekly, 0, 0.99}, {"noise", tr.Noise, 0, 0.99},
		{"growth", tr.Growth, -0.5, 2},
	}
	for _, c := range checks {
		if err := v.number(p+"."+c.k, c.x, c.lo, c.hi, c.k); err != nil {
			return err
		}
	}
	if !v.sc.has(p + ".peak_hour") {
		tr.PeakHour = defaultPeakHour
	}
	if err := v.number(p+".peak_hour", tr.PeakHour, 0, 24, "peak hour (UTC)"); err != nil {
		return err
	}
	for i := range tr.Events {
		if err := v.event(fmt.Sprintf("%s.events[%d]", p, i), &tr.Events[i]); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) event(p string, e *EventSpec) error {
	if !v.sc.has(p + ".at") {
		return v.errf(p, "an event needs an at time")
	}
	if err := v.inScenario(p+".at", e.At); err != nil {
		return err
	}
	if e.Until != nil {
		if err := v.inScenario(p+".until", *e.Until); err != nil {
			return err
		}
	}
	switch e.Direction {
	case "":
		e.Direction = "both"
	case "read", "write", "both":
	default:
		return v.errf(p+".direction", "direction %q must be read, write or both", e.Direction)
	}
	needDuration := false
	needFactor := true
	switch e.Type {
	case EventSpike:
		needDuration = true
		if e.Ramp == nil {
			d := Duration(time.Minute)
			e.Ramp = &d
		}
	case EventFlashSale:
		needDuration = true
	case EventStep:
	case EventSurge:
		if e.Ramp == nil {
			d := Duration(2 * time.Hour)
			e.Ramp = &d
		}
		if err := v.number(p+".retain", e.Retain, 0, 1, "retained fraction"); err != nil {
			return err
		}
		if e.Decay.D() <= 0 {
			e.Decay = Duration(24 * time.Hour)
		}
	case EventMix:
		needFactor = false
		if e.Read == 0 {
			e.Read = 1
		}
		if e.Write == 0 {
			e.Write = 1
		}
		if err := v.number(p+".read", math.Min(e.Read, e.Write), 1e-6, 1e6, "factor"); err != nil {
			return err
		}
		if err := v.number(p+".write", math.Max(e.Read, e.Write), 1e-6, 1e6, "factor"); err != nil {
			return err
		}
	case EventHotKey:
		needDuration, needFactor = true, false
		if err := v.number(p+".share", e.Share, 1e-6, 1, "hot-key share"); err != nil {
			return err
		}
	default:
		return v.errf(p+".type", "unknown event type %q (spike, flash_sale, step, surge, mix, hot_key)", e.Type)
	}
	if needDuration && e.Duration.D() < time.Minute {
		return v.errf(p+".duration", "a %s needs a duration of at least 1m", e.Type)
	}
	if needFactor {
		if err := v.number(p+".factor", e.Factor, 1e-6, 1e6, "factor"); err != nil {
			return err
		}
	}
	if e.AtUTC != "" {
		if _, ok := timeOfDay(e.AtUTC); !ok {
			return v.errf(p+".at_utc", "at_utc %q must be a UTC time of day HH:MM", e.AtUTC)
		}
	}
	until, err := v.repeat(p, e.At, e.Every, e.Until, e.Count)
	if err != nil {
		return err
	}
	if e.Every != 0 && e.Every.D() < e.Duration.D() {
		return v.errf(p+".every", "every %s is shorter than the event's duration %s", formatOffset(e.Every.D()), formatOffset(e.Duration.D()))
	}
	if e.Count > 0 {
		e.Until = &until
	}
	return nil
}

// repeat checks the every, until and count keys of a repeated item at p
// starting at at, and returns its last occurrence: until, the count-th
// occurrence, or the last one before the horizon.
func (v *validator) repeat(p string, at Offset, every Duration, until *Offset, count int) (Offset, error) {
	if !v.sc.has(p+".every") && every == 0 {
		if until != nil {
			return 0, v.errf(p+".until", "until needs every")
		}
		if v.sc.has(p + ".count") {
			return 0, v.errf(p+".count", "count needs every")
		}
		return at, nil
	}
	if every.D() < time.Minute {
		return 0, v.errf(p+".every", "every %s must be at least 1m", formatOffset(every.D()))
	}
	last := Offset(v.sc.Horizon.D())
	switch {
	case until != nil && v.sc.has(p+".count"):
		return 0, v.errf(p+".count", "give until or count, not both")
	case until != nil:
		if err := v.inScenario(p+".until", *until); err != nil {
			return 0, err
		}
		if *until < at {
			return 0, v.errf(p+".until", "until %s is before at %s", formatOffset(until.D()), formatOffset(at.D()))
		}
		last = *until
	case v.sc.has(p + ".count"):
		if count < 1 {
			return 0, v.errf(p+".count", "count %d must be at least 1", count)
		}
		last = Offset(at.D() + time.Duration(count-1)*every.D())
		if last.D() > v.sc.Horizon.D() {
			return 0, v.errf(p+".count", "the last of %d occurrences every %s from %s, at %s, is after the horizon %s",
				count, formatOffset(every.D()), formatOffset(at.D()), formatOffset(last.D()), formatOffset(v.sc.Horizon.D()))
		}
	}
	return last, nil
}

// MaxFaults bounds the faults of a scenario once repeated faults are
// expanded.
const MaxFaults = 10000

// MaxSwitchesPerTable bounds the billing-mode switches of one table once
// repeated switches are expanded.
const MaxSwitchesPerTable = 10000

// switches checks the billing switches of table t and expands the repeated
// ones: after it, t.BillingSwitches holds every occurrence in time order.
func (v *validator) switches(p string, t *TableSpec) error {
	type occurrence struct {
		s    SwitchSpec
		path string
	}
	var all []occurrence
	last := time.Duration(math.MinInt64)
	for j := range t.BillingSwitches {
		sp := fmt.Sprintf("%s.billing_switches[%d]", p, j)
		s := t.BillingSwitches[j]
		if !v.sc.has(sp+".at") && v.sc.has(sp+".every") {
			return v.errf(sp, "a repeated billing switch needs an at time")
		}
		if err := v.inScenario(sp+".at", s.At); err != nil {
			return err
		}
		if s.At.D() <= last {
			return v.errf(sp+".at", "billing switches must be in time order (of their first occurrence)")
		}
		last = s.At.D()
		if s.Mode != modeOnDemand && s.Mode != modeProvisioned {
			return v.errf(sp+".mode", "mode %q must be provisioned or on_demand", s.Mode)
		}
		if s.Capacity == (ReadWrite{}) {
			s.Capacity = t.Capacity
		} else if err := v.capacity(sp+".capacity", &s.Capacity); err != nil {
			return err
		}
		end, err := v.repeat(sp, s.At, s.Every, s.Until, s.Count)
		if err != nil {
			return err
		}
		every := s.Every.D()
		s.Every, s.Until, s.Count = 0, nil, 0
		for at := s.At.D(); at <= end.D(); at += every {
			if len(all) >= MaxSwitchesPerTable {
				return v.errf(sp+".every", "table %s has more than %d billing switches", t.Name, MaxSwitchesPerTable)
			}
			o := s
			o.At = Offset(at)
			all = append(all, occurrence{o, sp})
			if every == 0 {
				break
			}
		}
	}
	slices.SortStableFunc(all, func(a, b occurrence) int { return cmp.Compare(a.s.At, b.s.At) })
	t.BillingSwitches = t.BillingSwitches[:0]
	for i, o := range all {
		if i > 0 && minutesOf(all[i-1].s.At.D()) == minutesOf(o.s.At.D()) {
			return v.errf(o.path, "two billing switches at %s (%s and %s)", formatOffset(o.s.At.D()), v.sc.at(all[i-1].path), v.sc.at(o.path))
		}
		t.BillingSwitches = append(t.BillingSwitches, o.s)
	}
	return nil
}

var ttlClasses = []string{ClassLive, ClassExpired, ClassSeconds, ClassString, ClassMilliseconds, ClassMissing}

func (v *validator) ttl(p string, t *TableSpec) error {
	tt := t.TTL
	if tt.Attribute == "" {
		return v.errf(p+".attribute", "a TTL setting needs the attribute name")
	}
	if err := v.attribute(p+".attribute", tt.Attribute); err != nil {
		return err
	}
	if tt.Enabled == nil {
		on := true
		tt.Enabled = &on
	}
	if tt.EnabledAt != nil {
		if err := v.inScenario(p+".enabled_at", *tt.EnabledAt); err != nil {
			return err
		}
	}
	if tt.ItemSize == 0 {
		tt.ItemSize = 200
	}
	if tt.ItemSize < 0 || tt.ItemSize > 300000 {
		return v.errf(p+".item_size", "item_size %d must be between 1 and 300000 bytes", tt.ItemSize)
	}
	total := 0
	for i := range tt.Items {
		ip := fmt.Sprintf("%s.items[%d]", p, i)
		it := &tt.Items[i]
		if !slices.Contains(ttlClasses, it.Class) {
			return v.errf(ip+".class", "unknown class %q (one of %v)", it.Class, ttlClasses)
		}
		if it.Count < 0 {
			return v.errf(ip+".count", "count %d must not be negative", it.Count)
		}
		total += it.Count
		if err := v.inScenario(ip+".written", it.Written); err != nil {
			return err
		}
		if it.Written.D() > 0 {
			return v.errf(ip+".written", "populations are written at or before the start; use writes for later items")
		}
		exp := it.Written.D() + it.ExpiresIn.D()
		if it.Class == ClassLive && exp <= 0 {
			return v.errf(ip+".expires_in", "live items must expire after the start (written %s + expires_in %s)", formatOffset(it.Written.D()), formatOffset(it.ExpiresIn.D()))
		}
		if it.Class == ClassExpired && exp-0 > 0 {
			return v.errf(ip+".expires_in", "expired items must expire before the start (written %s + expires_in %s)", formatOffset(it.Written.D()), formatOffset(it.ExpiresIn.D()))
		}
	}
	if w := tt.Writes; w != nil {
		n, err := v.writes(p+".writes", tt)
		if err != nil {
			return err
		}
		total += n
	}
	for i := range tt.Rewrites {
		if err := v.rewrite(fmt.Sprintf("%s.rewrites[%d]", p, i), tt, &tt.Rewrites[i]); err != nil {
			return err
		}
	}
	slices.SortStableFunc(tt.Rewrites, func(a, b RewriteSpec) int { return cmp.Compare(a.At, b.At) })
	if total > MaxItemsPerTable {
		return v.errf(p, "the TTL items of table %s (%d before the start) exceed %d", t.Name, total, MaxItemsPerTable)
	}
	return nil
}

// streamClasses are the classes a write stream or a rewrite may write.
var streamClasses = []string{ClassSeconds, ClassString, ClassMilliseconds, ClassMissing}

// attribute checks a TTL attribute name at path.
func (v *validator) attribute(path, name string) error {
	if name == "" || len(name) > 255 {
		return v.errf(path, "attribute name %q must be 1 to 255 characters", name)
	}
	if name == keyAttribute || name == padAttribute {
		return v.errf(path, "attribute name %q is taken by the simulated items' %s", name, map[string]string{keyAttribute: "key", padAttribute: "padding"}[name])
	}
	return nil
}

// writes checks the write streams of tt at p, turns the single-stream form
// into one stream, and returns how many items they write before the start.
func (v *validator) writes(p string, tt *TTLSpec) (int, error) {
	w := tt.Writes
	if err := v.number(p+".per_minute", w.PerMinute, 0, 1000, "rate"); err != nil {
		return 0, err
	}
	if !v.sc.has(p + ".from") {
		w.From = Offset(-v.sc.History.D())
	}
	if err := v.inScenario(p+".from", w.From); err != nil {
		return 0, err
	}
	if w.Until != nil {
		if err := v.inScenario(p+".until", *w.Until); err != nil {
			return 0, err
		}
		if *w.Until <= w.From {
			return 0, v.errf(p+".until", "until %s is not after from %s", formatOffset(w.Until.D()), formatOffset(w.From.D()))
		}
	}
	if len(w.Streams) == 0 {
		if w.Class == "" {
			w.Class = ClassSeconds
		}
		if !slices.Contains(streamClasses, w.Class) {
			return 0, v.errf(p+".class", "class %q must be one of %v", w.Class, streamClasses)
		}
		from, until := w.From, w.Until
		w.Streams = []StreamSpec{{Share: 1, Class: w.Class, ExpiresIn: w.ExpiresIn, Attribute: tt.Attribute, From: &from, Until: until}}
	} else {
		for _, k := range []string{"class", "expires_in"} {
			if v.sc.has(p + "." + k) {
				return 0, v.errf(p+"."+k, "with streams, %s is set per stream", k)
			}
		}
		for i := range w.Streams {
			if err := v.stream(fmt.Sprintf("%s.streams[%d]", p, i), tt, &w.Streams[i]); err != nil {
				return 0, err
			}
		}
		if err := v.shares(p+".streams", w.Streams); err != nil {
			return 0, err
		}
	}
	n := 0.0
	for _, st := range w.Streams {
		end := time.Duration(0)
		if st.Until != nil {
			end = min(end, st.Until.D())
		}
		if d := end - st.From.D(); d > 0 {
			n += w.PerMinute * st.Share * d.Minutes()
		}
	}
	return int(n), nil
}

// stream checks one write stream at p and sets its defaults.
func (v *validator) stream(p string, tt *TTLSpec, st *StreamSpec) error {
	w := tt.Writes
	if err := v.number(p+".share", st.Share, 1e-6, 1, "share"); err != nil {
		return err
	}
	if st.Class == "" {
		st.Class = ClassSeconds
	}
	if !slices.Contains(streamClasses, st.Class) {
		return v.errf(p+".class", "unknown class %q (one of %v)", st.Class, streamClasses)
	}
	if st.Attribute == "" {
		st.Attribute = tt.Attribute
	} else if err := v.attribute(p+".attribute", st.Attribute); err != nil {
		return err
	}
	if st.From == nil {
		from := w.From
		st.From = &from
	} else if err := v.inScenario(p+".from", *st.From); err != nil {
		return err
	}
	if st.Until == nil {
		st.Until = w.Until
	} else if err := v.inScenario(p+".until", *st.Until); err != nil {
		return err
	}
	if st.Until != nil && *st.Until <= *st.From {
		return v.errf(p+".until", "until %s is not after from %s", formatOffset(st.Until.D()), formatOffset(st.From.D()))
	}
	return nil
}

// shares checks that the shares of the streams writing at any time sum to
// 1 (or that none writes).
func (v *validator) shares(p string, streams []StreamSpec) error {
	const open = time.Duration(math.MaxInt64)
	until := func(st StreamSpec) time.Duration {
		if st.Until == nil {
			return open
		}
		return st.Until.D()
	}
	var cuts []time.Duration
	for _, st := range streams {
		cuts = append(cuts, st.From.D(), until(st))
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for k := 0; k+1 < len(cuts); k++ {
		var sum float64
		var who []string
		for i, st := range streams {
			if st.From.D() <= cuts[k] && until(st) > cuts[k] {
				sum += st.Share
				who = append(who, fmt.Sprintf("streams[%d]", i))
			}
		}
		if len(who) > 0 && math.Abs(sum-1) > 1e-9 {
			to := "on"
			if cuts[k+1] != open {
				to = "to " + formatOffset(cuts[k+1])
			}
			return v.errf(p, "from %s %s the shares of the streams writing (%s) sum to %v, not 1",
				formatOffset(cuts[k]), to, strings.Join(who, ", "), math.Round(sum*1e6)/1e6)
		}
	}
	return nil
}

// rewriteMatches are the classes a rewrite may select items by.
var rewriteMatches = []string{MatchAny, ClassSeconds, ClassMilliseconds, ClassString, ClassMissing}

// rewrite checks one rewrite at p and sets its defaults.
func (v *validator) rewrite(p string, tt *TTLSpec, rw *RewriteSpec) error {
	if !v.sc.has(p + ".at") {
		return v.errf(p, "a rewrite needs an at time")
	}
	if err := v.inScenario(p+".at", rw.At); err != nil {
		return err
	}
	if rw.Match == "" {
		rw.Match = MatchAny
	}
	if !slices.Contains(rewriteMatches, rw.Match) {
		return v.errf(p+".match", "unknown match %q (one of %v)", rw.Match, rewriteMatches)
	}
	if rw.Class == "" {
		rw.Class = ClassSeconds
	}
	if !slices.Contains(streamClasses, rw.Class) {
		return v.errf(p+".class", "unknown class %q (one of %v)", rw.Class, streamClasses)
	}
	if rw.Attribute == "" {
		rw.Attribute = tt.Attribute
	} else if err := v.attribute(p+".attribute", rw.Attribute); err != nil {
		return err
	}
	if rw.FromAttribute == "" {
		rw.FromAttribute = rw.Attribute
	} else if err := v.attribute(p+".from_attribute", rw.FromAttribute); err != nil {
		return err
	}
	if rw.ExpiresIn == nil && rw.Match == ClassMissing && rw.Class != ClassMissing {
		return v.errf(p, "items without a TTL value (match %s) need expires_in to be given one", rw.Match)
	}
	return nil
}

var faultKinds = []string{FaultThrottling, FaultServerError, FaultSlow, FaultAccessDenied, FaultDeleteTable}
var faultServices = []string{"dynamodb", "cloudwatch", "application-autoscaling", "sts"}

func (v *validator) fault(p string, f *FaultSpec) error {
	if !slices.Contains(faultKinds, f.Kind) {
		return v.errf(p+".kind", "unknown fault kind %q (one of %v)", f.Kind, faultKinds)
	}
	if err := v.inScenario(p+".at", f.At); err != nil {
		return err
	}
	if f.Kind == FaultDeleteTable || f.Kind == FaultAccessDenied {
		if f.Table == "" && f.Kind == FaultDeleteTable {
			return v.errf(p+".table", "a %s fault needs a table", f.Kind)
		}
		if f.Table != "" && !slices.ContainsFunc(v.sc.Tables, func(t TableSpec) bool { return t.Name == f.Table }) {
			return v.errf(p+".table", "table %q is not in the scenario", f.Table)
		}
	}
	if f.Kind == FaultDeleteTable {
		return nil
	}
	if f.Service == "" {
		f.Service = "dynamodb"
		if f.Kind != FaultAccessDenied {
			return v.errf(p+".service", "a %s fault needs a service (one of %v)", f.Kind, faultServices)
		}
	}
	if !slices.Contains(faultServices, f.Service) {
		return v.errf(p+".service", "unknown service %q (one of %v)", f.Service, faultServices)
	}
	if f.Kind == FaultSlow && f.Delay.D() <= 0 {
		return v.errf(p+".delay", "a slow fault needs a delay")
	}
	if f.Delay.D() > time.Minute {
		return v.errf(p+".delay", "delay %s is longer than 1m", formatOffset(f.Delay.D()))
	}
	return nil
}

// Billing modes in scenario files.
const (
	modeProvisioned = "provisioned"
	modeOnDemand    = "on_demand"
)

// timeOfDay reads "HH:MM" as minutes into the day.
func timeOfDay(s string) (int64, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, false
	}
	return int64(t.Hour()*60 + t.Minute()), true
}
