package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// projectionJ is a table's traffic trend and its projected monthly costs.
type projectionJ struct {
	// Trend is growing, declining, flat or history_too_short.
	Trend      string `json:"trend"`
	DaysFitted int    `json:"days_fitted"`
	// YearlyGrowth and its 99% interval are the fitted growth over 12
	// months as ratios minus 1, whatever the trend; null without a fit.
	YearlyGrowth      *float64 `json:"yearly_growth"`
	YearlyGrowthLower *float64 `json:"yearly_growth_lower"`
	YearlyGrowthUpper *float64 `json:"yearly_growth_upper"`
	// AppliedYearlyGrowth is what the projection applies: the fitted
	// growth when growing or declining, 0 when flat; null without a fit.
	AppliedYearlyGrowth *float64 `json:"applied_yearly_growth"`
	// Window is the cost window projected; empty without a projection.
	Window string `json:"window"`
	// Months holds month 0 (today) and each horizon; empty without a
	// projection.
	Months []projectedJ `json:"months"`
	// CrossoverMonth is the first month whose cheaper mode differs from
	// today's, null when it does not change within the last horizon;
	// CrossoverTo is that mode.
	CrossoverMonth *int   `json:"crossover_month"`
	CrossoverTo    string `json:"crossover_to,omitempty"`
	// DailyStart and DailyUnits are the daily consumed units fitted (a
	// zero: a day without traffic, left out of the fit).
	DailyStart time.Time `json:"daily_start"`
	DailyUnits []float64 `json:"daily_consumed_units"`
}

// projectedJ is the cost at one horizon, in USD a month.
type projectedJ struct {
	Months         int     `json:"months"`
	Factor         float64 `json:"growth_factor"`
	OnDemandUSD    float64 `json:"monthly_on_demand_usd"`
	ProvisionedUSD float64 `json:"monthly_provisioned_usd"`
	// Cheaper is the billing mode that costs less.
	Cheaper string `json:"cheaper_mode"`
	// StandardUSD and StandardIAUSD are the table's monthly cost in each
	// class in its current billing mode (throughput grown, storage today's);
	// null without class figures.
	StandardUSD   *float64 `json:"monthly_standard_usd"`
	StandardIAUSD *float64 `json:"monthly_standard_infrequent_access_usd"`
	// ThrottledRatio is the provisioned simulation's throttled share.
	ThrottledRatio float64 `json:"provisioned_throttled_ratio"`
}

// projectionDoc renders a table's projection; nil without one.
func projectionDoc(f *collectors.ProjectionFigures) *projectionJ {
	if f == nil {
		return nil
	}
	p := &projectionJ{Trend: string(f.Trend.Status), DaysFitted: f.Trend.Days, Window: f.Window, Months: []projectedJ{},
		DailyStart: f.From.UTC(), DailyUnits: rounded(float64s(f.Daily))}
	if p.DailyUnits == nil {
		p.DailyUnits = []float64{}
	}
	r4 := func(v float64) *float64 { return finite(math.Round(v*1e4) / 1e4) }
	est, lo, hi := f.Trend.Yearly()
	p.YearlyGrowth, p.YearlyGrowthLower, p.YearlyGrowthUpper = r4(est), r4(lo), r4(hi)
	if f.Trend.Status != capacity.TrendTooShort {
		p.AppliedYearlyGrowth = r4(f.Trend.Factor(12) - 1)
	}
	if len(f.At) == 0 {
		return p
	}
	for _, m := range append([]collectors.ProjectedCost{f.Today}, f.At...) {
		cheaper := capacity.OnDemand
		if m.Provisioned < m.OnDemand {
			cheaper = capacity.Provisioned
		}
		var std, ia *float64
		if v := finite(m.Standard); v != nil {
			std = finite(round2(*v))
		}
		if v := finite(m.StandardIA); v != nil {
			ia = finite(round2(*v))
		}
		p.Months = append(p.Months, projectedJ{Months: m.Months, Factor: math.Round(m.Factor*1e4) / 1e4,
			OnDemandUSD: round2(m.OnDemand), ProvisionedUSD: round2(m.Provisioned), Cheaper: string(cheaper),
			StandardUSD: std, StandardIAUSD: ia, ThrottledRatio: math.Round(m.ThrottledRatio*1e6) / 1e6})
	}
	if f.Crossover > 0 {
		c := f.Crossover
		p.CrossoverMonth, p.CrossoverTo = &c, string(f.CrossoverTo)
	}
	return p
}

// projectionIntro says how the projection is made.
const projectionIntro = "The trend is the seasonal Kendall slope (Theil–Sen within each day of the week, so that a weekly cycle is not taken for growth) of the logarithm " +
	"of the daily consumed units (reads plus writes of the table and its GSIs, whole UTC days with traffic, at least 14) with Sen's 99% interval. Growth is claimed only when that interval excludes zero; otherwise the " +
	"trend is flat and the projection is today's cost. The growth is compound and applied to every hour of the cost window; each mode is priced " +
	"by the same cost model as today's figures (provisioned: the auto-scaling simulation of the grown traffic); storage is kept at today's size. " +
	"An extrapolation of the last weeks' trend, not a forecast of events; the interval assumes independent days (see docs/capacity.md)."

// growthText is the fitted growth a year with its interval.
func growthText(p *projectionJ) string {
	if p.YearlyGrowth == nil {
		return fmt.Sprintf("%s (%d days with traffic)", p.Trend, p.DaysFitted)
	}
	return fmt.Sprintf("%s: %s a year (99%%: %s to %s, %d days)", p.Trend, optPct(p.YearlyGrowth), optPct(p.YearlyGrowthLower), optPct(p.YearlyGrowthUpper), p.DaysFitted)
}

// crossoverText says when the cheaper mode changes.
func crossoverText(p *projectionJ) string {
	if len(p.Months) == 0 {
		return "-"
	}
	if p.CrossoverMonth == nil {
		return fmt.Sprintf("no change within %d months (%s cheaper)", p.Months[len(p.Months)-1].Months, modeName(p.Months[0].Cheaper))
	}
	return fmt.Sprintf("month %d: %s becomes cheaper", *p.CrossoverMonth, modeName(p.CrossoverTo))
}

// modeName is a billing mode in words.
func modeName(m string) string {
	if m == string(capacity.Provisioned) {
		return "provisioned"
	}
	return "on-demand"
}

// monthCell is "on-demand / provisioned" at one horizon.
func monthCell(p *projectionJ, k int) string {
	if k >= len(p.Months) {
		return "-"
	}
	m := p.Months[k]
	return fmt.Sprintf("%s / %s", usd(m.OnDemandUSD), usd(m.ProvisionedUSD))
}

// projectionMarkdown writes the projection section.
func projectionMarkdown(b *strings.Builder, doc capacityReportDoc) {
	b.WriteString("\n## A year or two ahead\n\n" + projectionIntro + "\n\n")
	b.WriteString("| Table | Trend (growth a year) | Window | Today on-demand / provisioned | 12 months | 24 months | Cheaper mode |\n|---|---|---|---:|---:|---:|---|\n")
	for _, t := range doc.Tables {
		p := t.Projection
		if p == nil {
			continue
		}
		window := p.Window
		if window == "" {
			window = "-"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(t.Table), mdCell(growthText(p)), window,
			monthCell(p, 0), monthCell(p, 1), monthCell(p, 2), mdCell(crossoverText(p)))
	}
}

// barGroup is one horizon's bars.
type barGroup struct {
	Label string
	X     float64
	Bars  []bar
}

type bar struct {
	X, Y, W, H   float64
	Color, Title string
}

// barChart is an inline SVG bar chart: on-demand and provisioned a month at
// each horizon.
type barChart struct {
	Title         string
	Width, Height int
	Groups        []barGroup
	YMax          string
	Legend        []chartLine
	Marker        string
}

// projectionChart draws the projected monthly costs.
func projectionChart(p *projectionJ) *barChart {
	if p == nil || len(p.Months) == 0 {
		return nil
	}
	const w, h, pad, top = 560, 160, 4, 16
	top0 := 0.0
	for _, m := range p.Months {
		top0 = math.Max(top0, math.Max(m.OnDemandUSD, m.ProvisionedUSD))
	}
	c := &barChart{Title: "Projected monthly cost (USD), today and ahead at the trend", Width: w, Height: h, YMax: usd(top0),
		Legend: []chartLine{{Name: "on-demand", Color: "#1f77b4"}, {Name: "provisioned (simulated auto-scaling)", Color: "#ff7f0e"}}}
	if !(top0 > 0) {
		return c
	}
	slot := float64(w-2*pad) / float64(len(p.Months))
	bw := slot / 4
	for i, m := range p.Months {
		x0 := pad + float64(i)*slot
		g := barGroup{Label: fmt.Sprintf("month %d", m.Months), X: x0 + slot/4}
		if m.Months == 0 {
			g.Label = "today"
		}
		for k, v := range []float64{m.OnDemandUSD, m.ProvisionedUSD} {
			bh := v / top0 * float64(h-pad-top)
			g.Bars = append(g.Bars, bar{X: x0 + slot/4 + float64(k)*bw, Y: float64(h-pad) - bh, W: bw - 2, H: bh,
				Color: c.Legend[k].Color, Title: fmt.Sprintf("%s %s", c.Legend[k].Name, usd(v))})
		}
		c.Groups = append(c.Groups, g)
	}
	c.Marker = "Cheaper mode: " + crossoverText(p)
	return c
}

// float64s widens xs.
func float64s(xs []float32) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
