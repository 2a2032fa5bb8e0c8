// The cost a year or two ahead, of the capacity collector: the trend of a
// table's daily consumed units (capacity.FitTrend) over the history held,
// and the longest cost window's figures with the traffic grown to each
// horizon (capacity.Project), in both billing modes and both table classes.
// Computed once per UTC day per table (or again when its mode, class,
// settings or prices change): the trend moves by the day, and the
// projection simulates the window's hourly shape at each growth factor.
package collectors

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// ProjectionHorizons are the horizons of the projection, in months, and
// their label values.
var ProjectionHorizons = []struct {
	Months int
	Label  string
}{{12, "12mo"}, {24, "24mo"}}

// ProjectedCost is a table's monthly cost at one horizon, in USD.
type ProjectedCost struct {
	// Months is the horizon (0: today, the window's own figures).
	Months int
	// Factor is the growth applied to the window's traffic.
	Factor float64
	// OnDemand and Provisioned are the monthly throughput costs of each
	// billing mode, at the prices of the table's class.
	OnDemand, Provisioned float64
	// Standard and StandardIA are the monthly costs of the table in each
	// class, in its current billing mode: throughput grown, storage today's;
	// NaN without class figures (no class, size or price).
	Standard, StandardIA float64
	// ThrottledRatio is the provisioned simulation's throttled share of
	// demand.
	ThrottledRatio float64
}

// ProjectionFigures are a table's trend and projected costs.
type ProjectionFigures struct {
	// Trend is the fit of the daily consumed units (reads plus writes of
	// the table and its GSIs) over the whole UTC days held.
	Trend capacity.Trend
	// From is the first day fitted; Daily holds each day's total
	// (float32: a relative error of at most 6e-8, kept for the report's
	// chart at half the memory).
	From  time.Time
	Daily []float32
	// Window is the cost window projected (30d, or 7d for a younger
	// table); empty without a projection.
	Window string
	// Today and At are the costs at month 0 and at each horizon.
	Today ProjectedCost
	At    []ProjectedCost
	// Crossover is the first month whose cheaper mode differs from
	// today's (0: none within the last horizon), CrossoverTo that mode.
	Crossover   int
	CrossoverTo capacity.Mode
	// Computed is when the figures were computed.
	Computed time.Time
}

// projectionCache holds a table's figures and what they were computed for.
type projectionCache struct {
	day time.Time
	key uint64
	f   *ProjectionFigures
}

// projectionKey hashes what a projection depends on besides the day.
func projectionKey(mode capacity.Mode, class capacity.TableClass, window string, p capacity.Prices, shapes []capacity.HourlyShape) uint64 {
	b := fnv.New64a()
	fmt.Fprintf(b, "%s|%s|%s|%v", mode, class, window, p)
	for _, s := range shapes {
		for _, d := range []capacity.Provisioning{s.Settings.Read, s.Settings.Write} {
			if d.AutoScaling != nil {
				fmt.Fprintf(b, "|%+v", *d.AutoScaling)
			} else {
				fmt.Fprintf(b, "|fixed %v", d.Fixed)
			}
		}
	}
	return b.Sum64()
}

// dailyTotals returns the consumed units (reads plus writes of the table and
// its GSIs) of each whole UTC day from from to to.
func dailyTotals(st *capacityState, tb *Table, from, to time.Time) []float64 {
	n := int(to.Sub(from) / day)
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		read, write := st.hist[historyKey{table: tb.Name, index: idx}], st.hist[historyKey{table: tb.Name, index: idx, write: true}]
		if read == nil || write == nil {
			return nil
		}
		for h, v := range hourlyBoth(read, write, from, from.Add(time.Duration(n)*day)) {
			out[h/24] += v
		}
	}
	return out
}

// ceilDay rounds t up to a UTC midnight.
func ceilDay(t time.Time) time.Time {
	if f := t.UTC().Truncate(day); !f.Equal(t) {
		return f.Add(day)
	}
	return t
}

// projectionFigures derives a table's trend and projection; nil without a
// cost window (r.classResults) or a price. dataStart is the first moment of
// the table's data.
func (c *Capacity) projectionFigures(region string, st *capacityState, tb *Table, r *TableReport, b bounds, dataStart time.Time) *ProjectionFigures {
	if len(r.classResults) == 0 || r.Mode.Validate() != nil {
		return nil
	}
	prices, err := capacity.PricesForClass(region, tableClass(tb), c.settings.Prices...)
	if err != nil {
		return nil
	}
	// The window's hourly shape: its whole hours.
	span := time.Duration(r.classResults[0].Hours * float64(time.Hour))
	from, to := ceilHour(b.end.Add(-span)), b.end.Truncate(time.Hour)
	idxs := append([]string{""}, tb.IndexNames()...)
	if len(idxs) != len(r.classResults) || !from.Before(to) {
		return nil
	}
	// The settings first: a projection of the day is not computed again,
	// and its shapes are read only to compute it.
	shapes := make([]capacity.HourlyShape, len(idxs))
	for i, idx := range idxs {
		if st.hist[historyKey{table: tb.Name, index: idx}] == nil || st.hist[historyKey{table: tb.Name, index: idx, write: true}] == nil {
			return nil
		}
		shapes[i] = capacity.HourlyShape{Start: from, Settings: settingsFor(tb, idx, st.scaling, c.settings.ScaleOutDelay)}
	}
	today := b.end.UTC().Truncate(day)
	key := projectionKey(r.Mode, tableClass(tb), r.classWindow, prices, shapes)
	if st.projections == nil {
		st.projections = map[string]*projectionCache{}
	}
	if pc := st.projections[tb.Name]; pc != nil && pc.day.Equal(today) && pc.key == key {
		return pc.f
	}
	for i, idx := range idxs {
		shapes[i].Read = st.hist[historyKey{table: tb.Name, index: idx}].hourly(from, to)
		shapes[i].Write = st.hist[historyKey{table: tb.Name, index: idx, write: true}].hourly(from, to)
	}
	f := &ProjectionFigures{Computed: b.end}
	f.From = ceilDay(maxTime(c.keepFrom(b), dataStart, b.h0))
	daily := dailyTotals(st, tb, f.From, today)
	f.Trend = capacity.FitTrend(daily)
	f.Daily = make([]float32, len(daily))
	for i, v := range daily {
		f.Daily[i] = float32(v)
	}
	st.projections[tb.Name] = &projectionCache{day: today, key: key, f: f}
	if f.Trend.Status == capacity.TrendTooShort {
		return f
	}
	proj, err := capacity.NewProjector(r.classResults, shapes, c.settings.Options.DefaultAutoScaling)
	if err != nil {
		return f
	}
	months := make([]int, len(ProjectionHorizons))
	for k, h := range ProjectionHorizons {
		months[k] = h.Months
	}
	p, err := capacity.Project(r.Mode, prices, c.settings.Options, f.Trend, proj, months...)
	if err != nil {
		return f
	}
	f.Window, f.Crossover, f.CrossoverTo = r.classWindow, p.Crossover, p.CrossoverTo
	f.Today = c.projectedCost(region, r.Mode, 0, 1, r.classResults, p.Today, r.Class)
	for _, m := range p.At {
		f.At = append(f.At, c.projectedCost(region, r.Mode, m.Months, m.Factor, m.Results, m.Evaluation, r.Class))
	}
	return f
}

// projectedCost prices one horizon's results in both classes.
func (c *Capacity) projectedCost(region string, mode capacity.Mode, months int, factor float64, results []capacity.WorkloadResult, e capacity.Evaluation, class *ClassFigures) ProjectedCost {
	pc := ProjectedCost{Months: months, Factor: factor, OnDemand: e.MonthlyOnDemand, Provisioned: e.MonthlyProvisioned,
		ThrottledRatio: e.ThrottledRatio, Standard: math.NaN(), StandardIA: math.NaN()}
	if class == nil || class.Window == "" {
		return pc
	}
	for k, cl := range []capacity.TableClass{capacity.Standard, capacity.StandardIA} {
		prices, err := capacity.PricesForClass(region, cl, c.settings.Prices...)
		if err != nil {
			return pc
		}
		ce, err := capacity.EvaluateResults(mode, prices, c.settings.Options, results)
		if err != nil {
			return pc
		}
		storage := class.Standard.Storage
		if k == 1 {
			storage = class.StandardIA.Storage
		}
		if k == 0 {
			pc.Standard = ce.MonthlyCurrent + storage
		} else {
			pc.StandardIA = ce.MonthlyCurrent + storage
		}
	}
	return pc
}

func maxTime(ts ...time.Time) time.Time {
	var m time.Time
	for _, t := range ts {
		if t.After(m) {
			m = t
		}
	}
	return m
}
