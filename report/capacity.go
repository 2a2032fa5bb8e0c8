// Package report writes the capacity report and the TTL audit for people and
// scripts that do not use Grafana: JSON (schemas in docs/capacity-report.md
// and docs/ttl-audit.md), Markdown for a ticket, and self-contained HTML
// files (inline styles and SVG charts, nothing loaded from anywhere), and the
// fleet summary of the exporter's landing page.
package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// SchemaVersion is the version of the JSON schemas of the capacity report
// and the TTL audit; it changes when a field is removed or changes meaning.
const SchemaVersion = 1

// capacityReportDoc is the JSON document of `capacity report --format json`.
type capacityReportDoc struct {
	SchemaVersion int              `json:"schema_version"`
	GeneratedAt   time.Time        `json:"generated_at"`
	Tables        []capacityTableJ `json:"tables"`
}

type capacityTableJ struct {
	Account   string       `json:"account"`
	Region    string       `json:"region"`
	Table     string       `json:"table"`
	Mode      string       `json:"billing_mode"`
	Traffic   []trafficJ   `json:"traffic"`
	Costs     []costJ      `json:"costs"`
	History   *historyJ    `json:"history"`
	Diagnosis []diagnosisJ `json:"diagnosis"`
	Error     string       `json:"error,omitempty"`
	Verdict   *verdictJ    `json:"verdict"`
	Class     *classJ      `json:"table_class"`
	Warm      []warmJ      `json:"warm_throughput"`
	// Peaks is how the peaks of the table and its GSIs are best served,
	// per dimension.
	Peaks []peakJ `json:"peaks"`
	// Projection is the trend and the cost 12 and 24 months ahead; null
	// without a cost window or prices.
	Projection *projectionJ `json:"projection"`
	// Global is the one decision of the global table the table is a
	// replica of; null for a table of one region.
	Global   *globalJ     `json:"global_table"`
	readable *capacityRow // for the HTML and Markdown views
}

// globalJ is the capacity decision of a global table
// (collectors.GlobalDecision): costs summed over its replicas, one
// recommendation for all; none while a replica's figures are missing.
type globalJ struct {
	Name    string   `json:"name"`
	Regions []string `json:"regions"`
	// Missing are the replica regions without figures here (not read by
	// this exporter, another shard's, or no cost window yet).
	Missing []string `json:"missing_regions"`
	Error   string   `json:"error,omitempty"`
	Costs   []costJ  `json:"costs"`
}

// globalDoc renders a global decision; nil for a table of one region.
func globalDoc(g *collectors.GlobalDecision) *globalJ {
	if g == nil {
		return nil
	}
	j := &globalJ{Name: g.Table, Regions: g.Regions, Missing: g.Missing, Costs: []costJ{}}
	if j.Missing == nil {
		j.Missing = []string{}
	}
	if g.Err != nil {
		j.Error = g.Err.Error()
	}
	for _, c := range g.Costs {
		j.Costs = append(j.Costs, costDoc(c))
	}
	return j
}

// globalCost is what the views show of a replica of a global table for
// its longest window c: the replica's own costs, and the global table's
// recommendation in place of the replica's (switching one replica's mode
// switches every replica), or no recommendation while the global table
// cannot be decided here.
func globalCost(g *globalJ, c costJ) costJ {
	part := fmt.Sprintf("part of global table %s (%s): one decision for every replica, on the costs summed over them", g.Name, strings.Join(g.Regions, ", "))
	for _, gc := range g.Costs {
		if gc.Window == c.Window {
			c.Recommendation, c.RecommendedMode, c.ReasonCode = gc.Recommendation, gc.RecommendedMode, gc.ReasonCode
			c.Reason = fmt.Sprintf("%s (%s a month if switched, all replicas): %s; this row's costs are this replica's", part, usd(gc.MonthlySavingUSD), gc.Reason)
			return c
		}
	}
	why := "not every replica has this window yet"
	switch {
	case g.Error != "":
		why = g.Error
	case len(g.Missing) > 0:
		why = "no figures here for the replica in " + strings.Join(g.Missing, ", ") + " (a region this exporter does not read, or another shard's): sum dynamodb_capacity_monthly_provisioned_saving_dollars over the replicas"
	}
	c.Recommendation, c.RecommendedMode, c.ReasonCode = GlobalUndecided, "", "global_table_incomplete"
	c.Reason = part + "; undecided here: " + why
	return c
}

// GlobalUndecided is the recommendation shown for a replica of a global
// table this report cannot decide (a replica's figures missing).
const GlobalUndecided = "undecided"

// classJ is a table's storage and table-class figures.
type classJ struct {
	Class          string     `json:"class"`
	LastChange     *time.Time `json:"last_change"`
	Storage        []storageJ `json:"storage"`
	Window         string     `json:"window"`
	StandardUSD    *classCost `json:"standard"`
	StandardIAUSD  *classCost `json:"standard_infrequent_access"`
	Recommendation string     `json:"recommendation"`
	ReasonCode     string     `json:"reason_code"`
	SavingUSD      *float64   `json:"monthly_saving_usd"`
	StorageShare   *float64   `json:"storage_share"`
	BreakEvenShare *float64   `json:"break_even_share"`
}

type storageJ struct {
	Index      string   `json:"index"`
	Bytes      int64    `json:"bytes"`
	MonthlyUSD *float64 `json:"monthly_usd"`
}

type classCost struct {
	ThroughputUSD float64 `json:"monthly_throughput_usd"`
	StorageUSD    float64 `json:"monthly_storage_usd"`
}

// classText is a table's class figures in one sentence.
func classText(c *classJ) string {
	var storage float64
	for _, x := range c.Storage {
		if x.MonthlyUSD != nil {
			storage += *x.MonthlyUSD
		}
	}
	out := "Table class " + c.Class
	if c.Class == "" {
		out = "Table class not reported"
	}
	if len(c.Storage) > 0 {
		out += fmt.Sprintf("; storage %s a month (table and GSIs, list price)", usd(storage))
	}
	if c.StandardUSD == nil {
		if c.Recommendation != "" {
			out += fmt.Sprintf("; no class comparison (%s)", c.ReasonCode)
		}
		return out + "."
	}
	return out + fmt.Sprintf("; a month in Standard %s, in Standard-IA %s (storage %s of the Standard cost, break-even %s): %s (%s), saving %s a month if switched.",
		usd(c.StandardUSD.ThroughputUSD+c.StandardUSD.StorageUSD), usd(c.StandardIAUSD.ThroughputUSD+c.StandardIAUSD.StorageUSD),
		optShare(c.StorageShare), optShare(c.BreakEvenShare), c.Recommendation, c.ReasonCode, optUSD(c.SavingUSD))
}

// optShare is *p as an unsigned percentage, "-" for nil.
func optShare(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100**p)
}

// optUSD is usd of *p, "-" for nil.
func optUSD(p *float64) string {
	if p == nil {
		return "-"
	}
	return usd(*p)
}

// classDoc renders a report's class figures; nil without them.
func classDoc(f *collectors.ClassFigures) *classJ {
	if f == nil {
		return nil
	}
	c := &classJ{Class: string(f.Class), Storage: []storageJ{}, Window: f.Window}
	if !f.LastChange.IsZero() {
		at := f.LastChange.UTC()
		c.LastChange = &at
	}
	for _, x := range f.Storage {
		c.Storage = append(c.Storage, storageJ{Index: x.Index, Bytes: x.Bytes, MonthlyUSD: finite(round2(x.Monthly))})
	}
	if f.Missing != "" {
		c.Recommendation, c.ReasonCode = collectors.ClassRecommendationNone, string(f.Missing)
		return c
	}
	if f.Window == "" {
		return c
	}
	c.StandardUSD = &classCost{round2(f.Standard.Throughput), round2(f.Standard.Storage)}
	c.StandardIAUSD = &classCost{round2(f.StandardIA.Throughput), round2(f.StandardIA.Storage)}
	c.Recommendation, c.ReasonCode = string(f.Advice.Action), string(f.Advice.Code)
	c.SavingUSD, c.StorageShare, c.BreakEvenShare = finite(round2(f.Advice.Saving)), finite(f.Advice.StorageShare), finite(f.Advice.BreakEven)
	return c
}

type trafficJ struct {
	Index               string   `json:"index"`
	ReadWriteRatio1d    *float64 `json:"read_write_ratio_1d"`
	ReadWriteRatio7d    *float64 `json:"read_write_ratio_7d"`
	ReadWriteDrift      *float64 `json:"read_write_drift"`
	PeakToAverageRead   *float64 `json:"peak_to_average_read"`
	PeakToAverageWrite  *float64 `json:"peak_to_average_write"`
	Baseline1wUnits     *float64 `json:"baseline_1w_units_per_second"`
	Baseline4wUnits     *float64 `json:"baseline_4w_units_per_second"`
	SurgeRetention      *float64 `json:"surge_retention"`
	SecondsSinceSurgePk *float64 `json:"seconds_since_surge_peak"`
}

type costJ struct {
	Window                string  `json:"window"`
	CoveredSeconds        float64 `json:"covered_seconds"`
	OnDemandUSD           float64 `json:"on_demand_usd"`
	ProvisionedUSD        float64 `json:"provisioned_usd"`
	MonthlyOnDemandUSD    float64 `json:"monthly_on_demand_usd"`
	MonthlyProvisionedUSD float64 `json:"monthly_provisioned_usd"`
	MonthlySavingUSD      float64 `json:"monthly_saving_usd"`
	ThrottledUnits        float64 `json:"throttled_units"`
	Recommendation        string  `json:"recommendation"`
	RecommendedMode       string  `json:"recommended_mode"`
	ReasonCode            string  `json:"reason_code"`
	Reason                string  `json:"reason"`
	// WithEngineering adds the team's time to the bill; absent unless
	// collectors.capacity.engineering is set.
	WithEngineering *engineeringJ `json:"with_engineering,omitempty"`
}

// engineeringJ is one window's monthly cost in each mode with the team's
// time added (capacity.Engineering).
type engineeringJ struct {
	HourlyRateUSD         float64 `json:"hourly_rate_usd"`
	HoursOnDemand         float64 `json:"hours_per_month_on_demand"`
	HoursProvisioned      float64 `json:"hours_per_month_provisioned"`
	MonthlyOnDemandUSD    float64 `json:"monthly_on_demand_usd"`
	MonthlyProvisionedUSD float64 `json:"monthly_provisioned_usd"`
	// CheaperMode is the mode of the lower total, empty when equal.
	CheaperMode string `json:"cheaper_mode"`
	// Reverses is true when the bill alone favours the other mode.
	Reverses bool `json:"reverses_bill"`
}

// engineeringDoc is ev's totals with e's time, nil when e is off.
func engineeringDoc(e capacity.Engineering, ev capacity.Evaluation) *engineeringJ {
	if !e.On() {
		return nil
	}
	t := e.Total(ev)
	billCheaper := capacity.Mode("")
	switch {
	case ev.MonthlyOnDemand < ev.MonthlyProvisioned:
		billCheaper = capacity.OnDemand
	case ev.MonthlyProvisioned < ev.MonthlyOnDemand:
		billCheaper = capacity.Provisioned
	}
	return &engineeringJ{HourlyRateUSD: e.HourlyRate, HoursOnDemand: e.OnDemandHours, HoursProvisioned: e.ProvisionedHours,
		MonthlyOnDemandUSD: round2(t.OnDemand), MonthlyProvisionedUSD: round2(t.Provisioned), CheaperMode: string(t.Cheaper),
		Reverses: billCheaper != "" && t.Cheaper != "" && billCheaper != t.Cheaper}
}

// engineeringText says a window's totals with the team's time in a sentence.
func engineeringText(x *engineeringJ) string {
	if x == nil {
		return ""
	}
	s := fmt.Sprintf("With the team's time (%g h a month on demand, %g h provisioned, at %s an hour): %s on demand, %s provisioned a month",
		x.HoursOnDemand, x.HoursProvisioned, usd(x.HourlyRateUSD), usd(x.MonthlyOnDemandUSD), usd(x.MonthlyProvisionedUSD))
	if x.Reverses {
		s += "; the team's time makes " + modeName(x.CheaperMode) + " the cheaper mode, unlike the bill alone"
	}
	return s + "."
}

// diagnosisJ is the diagnosis of one dimension of the base table or a GSI
// over one window (collectors.IndexDiagnosis).
type diagnosisJ struct {
	Index          string   `json:"index"`
	Window         string   `json:"window"`
	Dimension      string   `json:"dimension"`
	TargetCompared bool     `json:"target_compared"`
	Causes         []causeJ `json:"causes"`
	ScalingPerDay  *float64 `json:"scaling_events_per_day"`
	Utilization    *float64 `json:"simulated_utilization"`
}

// causeJ is the throttled units and saturated minutes of one cause, and
// when, in a window.
type causeJ struct {
	Cause            string    `json:"cause"`
	ThrottledUnits   float64   `json:"throttled_units"`
	SaturatedMinutes int       `json:"saturated_minutes"`
	LastThrottled    time.Time `json:"last_throttled"`
}

type verdictJ struct {
	Window         string `json:"window"`
	Recommendation string `json:"recommendation"`
	ReasonCode     string `json:"reason_code"`
	Reason         string `json:"reason"`
}

type historyJ struct {
	Start            time.Time `json:"start"`
	StepSeconds      int       `json:"step_seconds"`
	ConsumedRead     []float64 `json:"consumed_read_units_per_second"`
	ConsumedWrite    []float64 `json:"consumed_write_units_per_second"`
	ProvisionedRead  []float64 `json:"provisioned_read_units_per_second"`
	ProvisionedWrite []float64 `json:"provisioned_write_units_per_second"`
}

// capacityRow is what the Markdown and HTML views show of a table.
type capacityRow struct {
	costs *costJ // the longest window's
}

// finite returns a pointer to v, or nil for NaN and infinities (JSON null).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// usd writes dollars with the sign first: -$1.03.
func usd(v float64) string {
	if v < 0 {
		return fmt.Sprintf("-$%.2f", -v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// capacityDoc turns the collector's reports into the report document.
func capacityDoc(reports []collectors.TableReport, now time.Time) capacityReportDoc {
	doc := capacityReportDoc{SchemaVersion: SchemaVersion, GeneratedAt: now.UTC(), Tables: []capacityTableJ{}}
	for _, r := range reports {
		t := capacityTableJ{Account: r.Account, Region: r.Region, Table: r.Table, Mode: string(r.Mode),
			Traffic: []trafficJ{}, Costs: []costJ{}, Diagnosis: diagnosisRows(r), readable: &capacityRow{}}
		if r.Err != nil {
			t.Error = r.Err.Error()
		}
		for _, f := range r.Traffic {
			tj := trafficJ{Index: f.Index, ReadWriteRatio1d: finite(f.Ratio1d), ReadWriteRatio7d: finite(f.Ratio7d),
				ReadWriteDrift: finite(f.Drift), PeakToAverageRead: finite(f.PeakToAverage[0]), PeakToAverageWrite: finite(f.PeakToAverage[1]),
				Baseline1wUnits: finite(f.Baseline1w), Baseline4wUnits: finite(f.Baseline4w)}
			if f.Surge != nil {
				tj.SurgeRetention = finite(f.Surge.Retention)
				tj.SecondsSinceSurgePk = finite(f.Surge.SincePeak.Seconds())
			}
			t.Traffic = append(t.Traffic, tj)
		}
		for _, c := range r.Costs {
			if c.Unpriced {
				continue // the diagnosis only: no cost figure (t.Error says why)
			}
			cj := costDoc(c)
			cj.WithEngineering = engineeringDoc(r.Engineering, c.Evaluation)
			t.Costs = append(t.Costs, cj)
		}
		t.Global = globalDoc(r.Global)
		if n := len(t.Costs); n > 0 {
			last := t.Costs[n-1]
			t.readable.costs = &t.Costs[n-1]
			if t.Global != nil {
				last = globalCost(t.Global, last)
				t.readable.costs = &last
			}
			t.Verdict = &verdictJ{Window: last.Window, Recommendation: last.Recommendation, ReasonCode: last.ReasonCode, Reason: last.Reason}
		}
		t.Class = classDoc(r.Class)
		t.Warm = warmDoc(r.Warm)
		t.Peaks = peakDoc(r.Table, r.Peaks)
		t.Projection = projectionDoc(r.Projection)
		if h := r.Hourly; len(h.ConsumedRead) > 0 {
			t.History = &historyJ{Start: h.Start.UTC(), StepSeconds: 3600,
				ConsumedRead: rounded(h.ConsumedRead), ConsumedWrite: rounded(h.ConsumedWrite),
				ProvisionedRead: rounded(h.ProvisionedRead), ProvisionedWrite: rounded(h.ProvisionedWrite)}
		}
		doc.Tables = append(doc.Tables, t)
	}
	return doc
}

// costDoc renders one window's cost what-if.
func costDoc(c collectors.WindowCost) costJ {
	e := c.Evaluation
	return costJ{Window: c.Window, CoveredSeconds: c.Covered.Seconds(),
		OnDemandUSD: round2(e.OnDemand.Total()), ProvisionedUSD: round2(e.Provisioned.Total()),
		MonthlyOnDemandUSD: round2(e.MonthlyOnDemand), MonthlyProvisionedUSD: round2(e.MonthlyProvisioned),
		MonthlySavingUSD: round2(e.MonthlySaving), ThrottledUnits: math.Round(e.Throttled.Total()),
		Recommendation: string(e.Recommendation.Action), RecommendedMode: string(e.Recommendation.Mode),
		ReasonCode: string(e.Recommendation.Code), Reason: e.Recommendation.Reason}
}

// diagnosisRows lists the diagnosis of a report: per table or GSI (in
// the order of Traffic), window and dimension, the dimensions its own
// policy scales on a provisioned table; each with the causes that have
// throttled units or saturated minutes.
func diagnosisRows(r collectors.TableReport) []diagnosisJ {
	out := []diagnosisJ{}
	for _, f := range r.Traffic {
		for _, c := range r.Costs {
			for _, d := range c.Diagnosis {
				if d.Index != f.Index {
					continue
				}
				for k, dd := range []*capacity.Diagnosis{&d.Read, &d.Write} {
					if []capacity.Method{d.ReadMethod, d.WriteMethod}[k] != capacity.MethodAutoScaling {
						continue
					}
					row := diagnosisJ{Index: d.Index, Window: c.Window, Dimension: capacity.Dimension(k).String(), TargetCompared: dd.Compared,
						Causes: []causeJ{}, ScalingPerDay: finite(round2(dd.ScalingDecisionsPerDay())), Utilization: finite(math.Round(dd.Utilization()*1000) / 1000)}
					for _, cause := range capacity.Causes() {
						if v, n := dd.Throttled[cause], dd.SaturatedMinutes[cause]; v > 0 || n > 0 {
							row.Causes = append(row.Causes, causeJ{Cause: cause.String(), ThrottledUnits: round2(v), SaturatedMinutes: int(n),
								LastThrottled: dd.Last[cause].UTC()})
						}
					}
					out = append(out, row)
				}
			}
		}
	}
	return out
}

// causeText says a cause's units, saturated minutes and when, or "-".
func causeText(row diagnosisJ, cause capacity.Cause) string {
	for _, c := range row.Causes {
		if c.Cause != cause.String() {
			continue
		}
		var parts []string
		if c.ThrottledUnits > 0 {
			parts = append(parts, units(c.ThrottledUnits)+" units")
		}
		switch {
		case c.SaturatedMinutes == 1:
			parts = append(parts, "1 saturated minute")
		case c.SaturatedMinutes > 1:
			parts = append(parts, fmt.Sprintf("%d saturated minutes", c.SaturatedMinutes))
		}
		return strings.Join(append(parts, "last "+c.LastThrottled.Format("2006-01-02 15:04 UTC")), ", ")
	}
	return "-"
}

// units writes request units: whole above 10, two decimals below.
func units(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// indexName names the base table "(table)".
func indexName(index string) string {
	if index == "" {
		return "(table)"
	}
	return index
}

// rounded keeps three significant decimals: the JSON stays readable and
// the charts lose nothing.
func rounded(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

// CapacityJSON writes the capacity report as JSON.
func CapacityJSON(w io.Writer, reports []collectors.TableReport, now time.Time) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(capacityDoc(reports, now)); err != nil {
		return fmt.Errorf("writing the report as JSON: %w", err)
	}
	return nil
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func optNum(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g", *p)
}

func optPct(p *float64) string {
	if p == nil {
		return "-"
	}
	if math.Abs(100**p) < 0.5 {
		return "0%" // not -0%
	}
	return fmt.Sprintf("%+.0f%%", 100**p)
}

// CapacityMarkdown writes the capacity report as Markdown.
func CapacityMarkdown(w io.Writer, reports []collectors.TableReport, now time.Time) error {
	doc := capacityDoc(reports, now)
	var b strings.Builder
	fmt.Fprintf(&b, "# DynamoDB capacity review\n\nGenerated %s by `dynamodb_exporter capacity report`. Mode costs are throughput only "+
		"(storage is in the table-class section; backups and streams are out of scope), from the window's actual consumption; provisioned simulates target-tracking auto-scaling.\n\n",
		doc.GeneratedAt.Format(time.RFC3339))
	b.WriteString("## Recommendations\n\n| Account | Region | Table | Mode | Window | On-demand / month | Provisioned / month | Saving if switched / month | Recommendation | Reason |\n|---|---|---|---|---|---:|---:|---:|---|---|\n")
	for _, t := range doc.Tables {
		c := t.readable.costs
		if c == nil {
			reason := "less than an hour of history"
			if t.Error != "" {
				reason = t.Error
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | - | - | - | - | - | %s |\n", mdCell(t.Account), mdCell(t.Region), mdCell(t.Table), t.Mode, mdCell(reason))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s |\n", mdCell(t.Account), mdCell(t.Region), mdCell(t.Table), t.Mode,
			c.Window, usd(c.MonthlyOnDemandUSD), usd(c.MonthlyProvisionedUSD), usd(c.MonthlySavingUSD), c.Recommendation, c.ReasonCode, mdCell(c.Reason))
	}
	engineeringMarkdown(&b, doc)
	b.WriteString("\n## Table class and storage\n\nMonthly cost in each class: the longest window's throughput in the current billing mode, and today's storage " +
		"(list price per GB-month of the class; free tier not deducted). Standard-IA is cheaper exactly when storage exceeds the break-even share of the Standard cost " +
		"(5/17 at list prices); a switch needs the minimum monthly saving and no class change within 30 days (AWS allows two in 30 days). The switch is online.\n\n")
	b.WriteString("| Table | Class | Storage / month | Standard / month | Standard-IA / month | Storage share (break-even) | Saving if switched / month | Recommendation |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, t := range doc.Tables {
		c := t.Class
		if c == nil {
			continue
		}
		storage := 0.0
		for _, x := range c.Storage {
			if x.MonthlyUSD != nil {
				storage += *x.MonthlyUSD
			}
		}
		storageCell := "-"
		if len(c.Storage) > 0 {
			storageCell = usd(storage)
		}
		if c.StandardUSD == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | - | - | - | - | %s (%s) |\n", mdCell(t.Table), c.Class, storageCell, c.Recommendation, c.ReasonCode)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s (%s) | %s | %s (%s) |\n", mdCell(t.Table), c.Class, storageCell,
			usd(c.StandardUSD.ThroughputUSD+c.StandardUSD.StorageUSD), usd(c.StandardIAUSD.ThroughputUSD+c.StandardIAUSD.StorageUSD),
			optShare(c.StorageShare), optShare(c.BreakEvenShare), optUSD(c.SavingUSD), c.Recommendation, c.ReasonCode)
	}
	projectionMarkdown(&b, doc)
	peakMarkdown(&b, doc)
	b.WriteString("\n## Warm throughput and sudden peaks\n\n" + warmIntro + "\n\n")
	b.WriteString("| Table | Index | Warm throughput read / write (status) | 30-day peak read | 30-day peak write | Sudden peak read | Sudden peak write |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, t := range doc.Tables {
		for _, w := range t.Warm {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(t.Table), mdCell(indexName(w.Index)), mdCell(warmUnits(w)),
				optRate(w.PeakRead), optRate(w.PeakWrite), warmCell(w.SuddenRead, w.HeadroomRead), warmCell(w.SuddenWrt, w.HeadroomWrite))
		}
	}
	b.WriteString("\n## Traffic\n\nRatios over 1 day and the rolling 7 days (review beyond ±30% drift); peak-to-average over 7 days; baselines are median hourly read+write units/s.\n\n")
	b.WriteString("| Table | Index | R/W 1d | R/W 7d | Drift | Peak/avg read | Peak/avg write | Baseline 1w | Baseline 4w | Surge retention |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range doc.Tables {
		for _, f := range t.Traffic {
			index := f.Index
			if index == "" {
				index = "(table)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(t.Table), mdCell(index),
				optNum(f.ReadWriteRatio1d), optNum(f.ReadWriteRatio7d), optPct(f.ReadWriteDrift), optNum(f.PeakToAverageRead),
				optNum(f.PeakToAverageWrite), optNum(f.Baseline1wUnits), optNum(f.Baseline4wUnits), optNum(f.SurgeRetention))
		}
	}
	b.WriteString("\n## Diagnosis\n\n" + diagnosisIntro + "\n\n")
	b.WriteString("| Table | Index | Window | Dimension | At the maximum | Target above 70% | Reaction | Scalings / day | Utilization |\n|---|---|---|---|---|---|---|---:|---:|\n")
	rows := 0
	for _, t := range doc.Tables {
		for _, d := range t.Diagnosis {
			rows++
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(t.Table), mdCell(indexName(d.Index)), d.Window, d.Dimension,
				causeText(d, capacity.CauseAtMax), targetText(d), causeText(d, capacity.CauseReaction), optNum(d.ScalingPerDay), optNum(d.Utilization))
		}
	}
	if rows == 0 {
		b.WriteString("| - | - | - | - | no provisioned table with an auto-scaling policy | - | - | - | - |\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// diagnosisIntro says what the diagnosis holds.
const diagnosisIntro = "For provisioned tables, per table or GSI and dimension that its own auto-scaling policy scales: the request units the " +
	"simulation of the current policy throttles over the window, and its saturated minutes (consumed demand at or above the simulated capacity), " +
	"by cause, with the latest throttled or saturated minute. The history is consumed capacity, capped by the table's real throttling: where " +
	"the table refused demand, the simulation throttles little or nothing, but the minutes at capacity show it. At the maximum: capacity held at " +
	"the auto-scaling maximum below what the policy wanted. Target above 70%: units the same policy at a 70% target would not throttle, minutes " +
	"it would not saturate. Reaction: demand rising faster than auto-scaling reacts, even at 70%. The current policy is simulated over the whole " +
	"window; a minute without data counts as no traffic. Scalings per day and utilization (consumed ÷ simulated capacity) over 7 days."

// targetText is the target cause's cell: "-" when the target is not
// above 70% (not compared), "none" when compared and nothing found.
func targetText(d diagnosisJ) string {
	if !d.TargetCompared {
		return "(target ≤ 70%)"
	}
	return causeText(d, capacity.CauseTarget)
}

// chart is an inline SVG line chart.
type chart struct {
	Title  string
	Width  int
	Height int
	Lines  []chartLine
	YMax   string
	Ticks  []chartTick
	Empty  bool
}

type chartLine struct {
	Name, Color, Points string
	Dashed              bool
}

type chartTick struct {
	X     float64
	Label string
}

// lineChart draws series (hourly values from start) on one y axis from 0.
func lineChart(title string, start time.Time, step time.Duration, names, colors []string, dashed []bool, series [][]float64) chart {
	const w, h, pad = 560, 160, 4
	c := chart{Title: title, Width: w, Height: h}
	n, top := 0, 0.0
	for _, s := range series {
		n = max(n, len(s))
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				top = math.Max(top, v)
			}
		}
	}
	if n < 2 || top <= 0 {
		c.Empty = true
		return c
	}
	c.YMax = fmt.Sprintf("%.3g", top)
	for i, s := range series {
		var pts []string
		for j, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			x := pad + float64(j)*float64(w-2*pad)/float64(n-1)
			y := float64(h-pad) - v/top*float64(h-2*pad)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		c.Lines = append(c.Lines, chartLine{Name: names[i], Color: colors[i], Points: strings.Join(pts, " "), Dashed: dashed[i]})
	}
	// A tick at each week boundary from the start.
	for j := 0; j < n; j++ {
		t := start.Add(time.Duration(j) * step)
		if t.Weekday() == time.Monday && (step >= 24*time.Hour || t.Hour() == 0) {
			c.Ticks = append(c.Ticks, chartTick{X: pad + float64(j)*float64(w-2*pad)/float64(n-1), Label: t.Format("Jan 2")})
		}
	}
	return c
}

// dailyRatio is consumed reads over writes day by day from the hourly rates.
func dailyRatio(read, write []float64) []float64 {
	var out []float64
	for d := 0; d*24 < len(read); d++ {
		var r, w float64
		for i := d * 24; i < min((d+1)*24, len(read), len(write)); i++ {
			r += read[i]
			w += write[i]
		}
		if w > 0 {
			out = append(out, r/w)
		} else {
			out = append(out, math.NaN())
		}
	}
	return out
}

type htmlTable struct {
	capacityTableJ
	Cost      *costJ
	Charts    []chart
	Notes     []string
	CostAhead *barChart
}

var capacityHTML = template.Must(template.New("report").Funcs(template.FuncMap{
	"usd":  usd,
	"num":  optNum,
	"pct":  optPct,
	"time": func(t time.Time) string { return t.Format("2006-01-02 15:04 MST") },
	"days": func(s float64) string { return fmt.Sprintf("%.1f days", s/86400) },
	"neg":  func(v float64) bool { return v < 0 },
	"cause": func(d diagnosisJ, name string) string {
		for _, c := range capacity.Causes() {
			if c.String() == name {
				return causeText(d, c)
			}
		}
		return "-"
	},
	"diagnosisIntro":  func() string { return diagnosisIntro },
	"classText":       classText,
	"engineeringText": engineeringText,
	"warmText":        warmText,
	"peakText":        peakText,
	"growthText":      growthText,
	"projectionIntro": func() string { return projectionIntro },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DynamoDB capacity review</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px; color: #1d2330; padding: 0 1rem; }
` + pageStyle + `section.table { border: 1px solid #dde1e7; border-radius: 6px; padding: .5rem 1rem 1rem; margin: 1.5rem 0; }
section.table h2 { font-size: 1.2rem; }
.verdict { font-weight: 600; }
.switch { color: #a0350f; }
.keep { color: #1f6f3f; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
figure { margin: 0; }
figcaption { font-size: .85rem; color: #5a6270; }
.legend span { margin-right: 1rem; font-size: .8rem; }
.legend i { display: inline-block; width: 18px; height: 0; vertical-align: middle; margin-right: 4px; }
svg { background: #fbfcfd; border: 1px solid #e5e8ec; }
.neg { color: #a0350f; }
</style>
</head>
<body>
<h1>DynamoDB capacity review</h1>
<p class="meta">Generated {{time .GeneratedAt}} by <code>dynamodb_exporter capacity report</code>. Costs are throughput only (storage, backups and streams are out of scope), from actual consumption; "provisioned" simulates target-tracking auto-scaling.</p>
<table>
<thead><tr><th>Table</th><th>Account / region</th><th>Mode</th><th>Window</th><th>On-demand / month</th><th>Provisioned / month</th><th>Saving if switched / month</th><th>Recommendation</th></tr></thead>
<tbody>
{{range .Tables}}<tr><td><a href="#t-{{.Account}}-{{.Region}}-{{.Table}}">{{.Table}}</a></td><td>{{.Account}} / {{.Region}}</td><td>{{.Mode}}</td>{{with .Cost}}<td>{{.Window}}</td><td class="n">{{usd .MonthlyOnDemandUSD}}</td><td class="n">{{usd .MonthlyProvisionedUSD}}</td><td class="n{{if neg .MonthlySavingUSD}} neg{{end}}">{{usd .MonthlySavingUSD}}</td><td>{{.Recommendation}} ({{.ReasonCode}})</td>{{else}}<td colspan="5">no cost what-if{{with .Error}}: {{.}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{range .Tables}}
<section class="table" id="t-{{.Account}}-{{.Region}}-{{.Table}}">
<h2>{{.Table}} <small>({{.Account}}, {{.Region}}, {{.Mode}})</small></h2>
{{with .Cost}}<p class="verdict {{if eq .Recommendation "keep"}}keep{{else}}switch{{end}}">{{.Recommendation}} ({{.ReasonCode}}): {{.Reason}}</p>
<p>Over {{days .CoveredSeconds}} of actual consumption: on demand {{usd .OnDemandUSD}}, provisioned with auto-scaling {{usd .ProvisionedUSD}}; a month: {{usd .MonthlyOnDemandUSD}} on demand, {{usd .MonthlyProvisionedUSD}} provisioned.{{if gt .ThrottledUnits 0.0}} Provisioned capacity would have throttled {{printf "%.0f" .ThrottledUnits}} request units.{{end}}</p>{{with .WithEngineering}}
<p>{{engineeringText .}}</p>{{end}}{{end}}
{{with .Error}}<p class="switch">No cost what-if: {{.}}</p>{{end}}
{{with .Class}}<p>{{classText .}}</p>{{end}}
{{with .Warm}}<p>{{warmText .}}</p>{{end}}
{{with peakText .Peaks}}<p>{{.}}</p>{{end}}
{{with .Projection}}<p>A year or two ahead: trend {{growthText .}}.{{if not .Months}} No projection.{{end}}</p>{{end}}
{{range .Notes}}<p>{{.}}</p>{{end}}
<div class="charts">
{{range .Charts}}{{$c := .}}<figure>
<figcaption>{{.Title}}{{if not .Empty}} (0 to {{.YMax}}){{end}}</figcaption>
{{if .Empty}}<p>No data to chart.</p>{{else}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Ticks}}<line x1="{{.X}}" y1="0" x2="{{.X}}" y2="{{$c.Height}}" stroke="#e3e6ea"/><text x="{{.X}}" y="12" font-size="10" fill="#8a919c">{{.Label}}</text>
{{end}}{{range .Lines}}<polyline fill="none" stroke="{{.Color}}" stroke-width="1.5"{{if .Dashed}} stroke-dasharray="4 3"{{end}} points="{{.Points}}"/>
{{end}}</svg>
<div class="legend">{{range .Lines}}<span><i style="border-top: 3px {{if .Dashed}}dashed{{else}}solid{{end}} {{.Color}}"></i>{{.Name}}</span>{{end}}</div>{{end}}
</figure>
{{end}}{{with .CostAhead}}<figure>
<figcaption>{{.Title}} (0 to {{.YMax}})</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Groups}}<text x="{{.X}}" y="12" font-size="10" fill="#8a919c">{{.Label}}</text>
{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Color}}"><title>{{.Title}}</title></rect>
{{end}}{{end}}</svg>
<div class="legend">{{range .Legend}}<span><i style="border-top: 3px solid {{.Color}}"></i>{{.Name}}</span>{{end}}</div>
<p class="meta">{{.Marker}}. {{projectionIntro}}</p>
</figure>
{{end}}</div>
<table>
<thead><tr><th>Index</th><th>R/W 1d</th><th>R/W 7d</th><th>Drift</th><th>Peak/avg read</th><th>Peak/avg write</th><th>Baseline 1w</th><th>Baseline 4w</th><th>Surge retention</th></tr></thead>
<tbody>
{{range .Traffic}}<tr><td>{{if .Index}}{{.Index}}{{else}}(table){{end}}</td><td class="n">{{num .ReadWriteRatio1d}}</td><td class="n">{{num .ReadWriteRatio7d}}</td><td class="n">{{pct .ReadWriteDrift}}</td><td class="n">{{num .PeakToAverageRead}}</td><td class="n">{{num .PeakToAverageWrite}}</td><td class="n">{{num .Baseline1wUnits}}</td><td class="n">{{num .Baseline4wUnits}}</td><td class="n">{{num .SurgeRetention}}</td></tr>
{{end}}</tbody>
</table>
{{with .Diagnosis}}<h3>Diagnosis</h3>
<p class="meta">{{diagnosisIntro}}</p>
<table>
<thead><tr><th>Index</th><th>Window</th><th>Dimension</th><th>At the maximum</th><th>Target above 70%</th><th>Reaction</th><th>Scalings / day</th><th>Utilization</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{if .Index}}{{.Index}}{{else}}(table){{end}}</td><td>{{.Window}}</td><td>{{.Dimension}}</td><td>{{cause . "at_max"}}</td><td>{{if .TargetCompared}}{{cause . "target"}}{{else}}(target ≤ 70%){{end}}</td><td>{{cause . "reaction"}}</td><td class="n">{{num .ScalingPerDay}}</td><td class="n">{{num .Utilization}}</td></tr>
{{end}}</tbody>
</table>{{end}}
</section>
{{end}}
</body>
</html>
`))

// CapacityHTML writes the capacity report as one self-contained HTML file.
func CapacityHTML(w io.Writer, reports []collectors.TableReport, now time.Time) error {
	doc := capacityDoc(reports, now)
	view := struct {
		GeneratedAt time.Time
		Tables      []htmlTable
	}{GeneratedAt: doc.GeneratedAt}
	for _, t := range doc.Tables {
		ht := htmlTable{capacityTableJ: t, Cost: t.readable.costs, CostAhead: projectionChart(t.Projection)}
		if p := t.Projection; p != nil && len(p.DailyUnits) > 1 {
			ht.Charts = append(ht.Charts, lineChart("Daily consumed units (reads + writes, table and GSIs): the history the trend is fitted on", p.DailyStart, 24*time.Hour,
				[]string{"consumed units a day"}, []string{"#2ca02c"}, []bool{false}, [][]float64{p.DailyUnits}))
		}
		if h := t.History; h != nil {
			ht.Charts = append(ht.Charts,
				lineChart("Capacity, last 30 days (units/s, hourly means)", h.Start, time.Hour,
					[]string{"consumed read", "provisioned read (simulated)", "consumed write", "provisioned write (simulated)"},
					[]string{"#1f77b4", "#1f77b4", "#d62728", "#d62728"}, []bool{false, true, false, true},
					[][]float64{h.ConsumedRead, h.ProvisionedRead, h.ConsumedWrite, h.ProvisionedWrite}),
				lineChart("Read/write ratio, last 30 days (daily)", h.Start, 24*time.Hour,
					[]string{"consumed reads / writes"}, []string{"#6a3d9a"}, []bool{false},
					[][]float64{dailyRatio(h.ConsumedRead, h.ConsumedWrite)}))
		} else if t.Error == "" {
			ht.Notes = append(ht.Notes, "Less than an hour of history: no cost what-if and no chart yet.")
		}
		view.Tables = append(view.Tables, ht)
	}
	if err := capacityHTML.Execute(w, view); err != nil {
		return fmt.Errorf("writing the report as HTML: %w", err)
	}
	return nil
}

// engineeringMarkdown writes the totals with the team's time of each
// table's longest window, when collectors.capacity.engineering is set.
func engineeringMarkdown(b *strings.Builder, doc capacityReportDoc) {
	header := false
	for _, t := range doc.Tables {
		c := t.readable.costs
		if c == nil || c.WithEngineering == nil {
			continue
		}
		x := c.WithEngineering
		if !header {
			fmt.Fprintf(b, "\n## Total cost with the team's time\n\nThe bill plus the hours a month one table takes the team in each mode (%g on demand, %g provisioned, at %s an hour; `collectors.capacity.engineering`).\n\n"+
				"| Account | Region | Table | Window | On-demand + team / month | Provisioned + team / month | Cheaper in total | Unlike the bill |\n|---|---|---|---|---:|---:|---|---|\n",
				x.HoursOnDemand, x.HoursProvisioned, usd(x.HourlyRateUSD))
			header = true
		}
		reverses := ""
		if x.Reverses {
			reverses = "yes"
		}
		cheaper := "equal"
		if x.CheaperMode != "" {
			cheaper = modeName(x.CheaperMode)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(t.Account), mdCell(t.Region), mdCell(t.Table), c.Window,
			usd(x.MonthlyOnDemandUSD), usd(x.MonthlyProvisionedUSD), cheaper, reverses)
	}
}
