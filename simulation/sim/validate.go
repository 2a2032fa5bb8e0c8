package sim

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"
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
	defaultPeakHour  = 14
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
	}
	for i := range sc.Faults {
		if err := v.fault(fmt.Sprintf("faults[%d]", i), &sc.Faults[i]); err != nil {
			return err
		}
	}
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
	}
	if err := v.traffic(p+".traffic", &t.Traffic); err != nil {
		return err
	}
	last := time.Duration(math.MinInt64)
	for j := range t.BillingSwitches {
		sp := fmt.Sprintf("%s.billing_switches[%d]", p, j)
		s := &t.BillingSwitches[j]
		if err := v.inScenario(sp+".at", s.At); err != nil {
			return err
		}
		if s.At.D() <= last {
			return v.errf(sp+".at", "billing switches must be in time order")
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
	}
	if t.TTL != nil {
		return v.ttl(p+".ttl", t)
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
	if e.Every != 0 && e.Every.D() < time.Minute {
		return v.errf(p+".every", "every must be at least 1m")
	}
	if e.Every != 0 && e.Every.D() < e.Duration.D() {
		return v.errf(p+".every", "every %s is shorter than the event's duration %s", formatOffset(e.Every.D()), formatOffset(e.Duration.D()))
	}
	return nil
}

var ttlClasses = []string{ClassLive, ClassExpired, ClassSeconds, ClassString, ClassMilliseconds, ClassMissing}

func (v *validator) ttl(p string, t *TableSpec) error {
	tt := t.TTL
	if tt.Attribute == "" {
		return v.errf(p+".attribute", "a TTL setting needs the attribute name")
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
		wp := p + ".writes"
		if w.Class == "" {
			w.Class = ClassSeconds
		}
		if !slices.Contains(ttlClasses, w.Class) || w.Class == ClassLive || w.Class == ClassExpired {
			return v.errf(wp+".class", "class %q must be seconds, string, milliseconds or missing", w.Class)
		}
		if err := v.number(wp+".per_minute", w.PerMinute, 0, 1000, "rate"); err != nil {
			return err
		}
		if !v.sc.has(wp + ".from") {
			w.From = Offset(-v.sc.History.D())
		}
		if err := v.inScenario(wp+".from", w.From); err != nil {
			return err
		}
		if w.Until != nil {
			if err := v.inScenario(wp+".until", *w.Until); err != nil {
				return err
			}
		}
		if w.From.D() < 0 {
			total += int(w.PerMinute * (-w.From.D()).Minutes())
		}
	}
	if total > MaxItemsPerTable {
		return v.errf(p, "the TTL items of table %s (%d before the start) exceed %d", t.Name, total, MaxItemsPerTable)
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
