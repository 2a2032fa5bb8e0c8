package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Landing describes the exporter's landing page.
type Landing struct {
	// Version is the exporter's version line.
	Version string
	// MetricsPath is where the metrics are served.
	MetricsPath string
	// Reports are the capacity collector's last figures; none before its
	// first run, or when it is disabled.
	Reports []collectors.TableReport
	// CapacityEnabled is false when the capacity collector is disabled.
	CapacityEnabled bool
	// Now is when the page is served.
	Now time.Time
}

var landingHTML = template.Must(template.New("landing").Funcs(template.FuncMap{"usd": usd, "storage": classStorage, "class": classCell, "sudden": suddenCell, "peaks": peaksCell, "ahead": aheadCell}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DynamoDB Exporter</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px; color: #1d2330; padding: 0 1rem; }
` + pageStyle + `.neg { color: #a0350f; }
.switch { color: #a0350f; font-weight: 600; }
</style>
</head>
<body>
<h1>DynamoDB Exporter</h1>
<p class="meta">Prometheus exporter for Amazon DynamoDB capacity and TTL health. {{.Version}}</p>
<p><a href="{{.MetricsPath}}">Metrics</a></p>
<h2>Fleet summary</h2>
{{if not .CapacityEnabled}}<p>The capacity collector is disabled (collectors.capacity): no cost figures.</p>
{{else if not .Tables}}<p>No capacity figures yet: the capacity collector has not completed its first run.</p>
{{else}}<p class="meta">Throughput cost per month from the last 30 days of actual consumption (provisioned simulates target-tracking auto-scaling; backups and streams are out of scope); storage at today's size and the table class's list price, and the table-class advice; the largest sudden peak the base table takes without throttling, in units per second (docs/capacity.md, "Warm throughput and sudden peaks"); the kind of the base table's peaks over the last 7 days, read / write, and what serves them (docs/capacity.md, "Serving a peak, four ways"); the monthly cost in each mode 24 months ahead at the traffic trend (growth applied only when its 99% interval excludes zero) and the month the cheaper mode changes (docs/capacity.md, "The cost a year or two ahead"). Largest saving first; page served {{.Generated}}. <code>dynamodb_exporter capacity report --format html</code> writes the full report with charts.</p>
<table>
<thead><tr><th>Table</th><th>Account / region</th><th>Mode</th><th>On-demand / month</th><th>Provisioned / month</th><th>Saving if switched / month</th><th>Recommendation</th><th>Reason</th><th>Storage / month</th><th>Table class</th><th>Sudden peak read / write (× 30-day peak)</th><th>Peaks: read / write (what serves them)</th><th>In 24 months: on-demand / provisioned</th></tr></thead>
<tbody>
{{range .Tables}}<tr><td>{{.Table}}</td><td>{{.Account}} / {{.Region}}</td><td>{{.Mode}}</td>{{with .Cost}}<td class="n">{{usd .MonthlyOnDemandUSD}}</td><td class="n">{{usd .MonthlyProvisionedUSD}}</td><td class="n{{if lt .MonthlySavingUSD 0.0}} neg{{end}}">{{usd .MonthlySavingUSD}}</td><td{{if and (ne .Recommendation "keep") (ne .Recommendation "undecided")}} class="switch"{{end}}>{{.Recommendation}} ({{.ReasonCode}})</td><td>{{.Reason}}</td>{{else}}<td colspan="5">no cost what-if yet{{with .Error}}: {{.}}{{end}}</td>{{end}}<td class="n">{{storage .Class}}</td><td>{{class .Class}}</td><td class="n">{{sudden .Warm}}</td><td>{{peaks .Peaks}}</td><td>{{ahead .Projection}}</td></tr>
{{end}}</tbody>
</table>{{end}}
</body>
</html>
`))

// LandingHTML writes the landing page: a link to the metrics and the fleet
// summary of the capacity report, the tables with the largest monthly saving
// first.
func LandingHTML(w io.Writer, l Landing) error {
	doc := capacityDoc(l.Reports, l.Now)
	var rows []htmlTable
	for _, t := range doc.Tables {
		rows = append(rows, htmlTable{capacityTableJ: t, Cost: t.readable.costs})
	}
	saving := func(r htmlTable) float64 {
		if r.Cost == nil {
			return -1e18
		}
		return r.Cost.MonthlySavingUSD
	}
	for i := 1; i < len(rows); i++ { // stable insertion sort, largest saving first
		for j := i; j > 0 && saving(rows[j]) > saving(rows[j-1]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	view := struct {
		Landing
		Tables    []htmlTable
		Generated string
	}{Landing: l, Tables: rows, Generated: doc.GeneratedAt.Format("2006-01-02 15:04 MST")}
	if err := landingHTML.Execute(w, view); err != nil {
		return fmt.Errorf("writing the landing page: %w", err)
	}
	return nil
}

// pageStyle is the part of the style sheet the report pages share: headings,
// the meta line and tables.
const pageStyle = `h1 { font-size: 1.6rem; margin-bottom: .2rem; }
.meta { color: #5a6270; margin-top: 0; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: .9rem; }
th, td { border-bottom: 1px solid #dde1e7; padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #f3f5f8; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
`

// classStorage is a table's storage cost a month (table and GSIs), "-"
// without one.
func classStorage(c *classJ) string {
	if c == nil || len(c.Storage) == 0 {
		return "-"
	}
	var sum float64
	for _, x := range c.Storage {
		if x.MonthlyUSD != nil {
			sum += *x.MonthlyUSD
		}
	}
	return usd(sum)
}

// classCell is a table's class and the class advice, "-" without one.
func classCell(c *classJ) string {
	switch {
	case c == nil || c.Recommendation == "":
		return "-"
	case c.StandardUSD == nil:
		return fmt.Sprintf("%s: %s (%s)", c.Class, c.Recommendation, c.ReasonCode)
	}
	return fmt.Sprintf("%s: %s (%s; %s a month if switched)", c.Class, c.Recommendation, c.ReasonCode, optUSD(c.SavingUSD))
}

// suddenCell is the base table's sudden peaks, read / write, with their
// multiples of the 30-day peak; "-" without figures.
func suddenCell(ws []warmJ) string {
	for _, w := range ws {
		if w.Index == "" {
			return warmCell(w.SuddenRead, w.HeadroomRead) + " / " + warmCell(w.SuddenWrt, w.HeadroomWrite)
		}
	}
	return "-"
}

// peaksCell is the base table's peak kinds, read / write, with the
// recommendation of each that asks for something; "-" without figures.
func peaksCell(ps []peakJ) string {
	var cells []string
	for _, p := range ps {
		if p.Index != "" {
			continue
		}
		c := p.Kind
		if p.Recommendation != string(capacity.PeakActionNone) {
			c += " (" + p.Recommendation + ")"
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return "-"
	}
	return strings.Join(cells, " / ")
}

// aheadCell is the projection at the last horizon with the trend and the
// crossover; "-" without a projection.
func aheadCell(p *projectionJ) string {
	switch {
	case p == nil:
		return "-"
	case len(p.Months) == 0:
		return p.Trend + ": no projection"
	}
	last := len(p.Months) - 1
	out := fmt.Sprintf("%s (trend %s", monthCell(p, last), p.Trend)
	if p.AppliedYearlyGrowth != nil && *p.AppliedYearlyGrowth != 0 {
		out += ", " + optPct(p.AppliedYearlyGrowth) + " a year"
	}
	out += ")"
	if p.CrossoverMonth != nil {
		out += fmt.Sprintf("; %s cheaper from month %d", modeName(p.CrossoverTo), *p.CrossoverMonth)
	}
	return out
}
