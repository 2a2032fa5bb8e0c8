package report

// The TTL audit as JSON (for scripts), Markdown (for a ticket) and one
// self-contained HTML file. docs/ttl-audit.md documents the JSON schema.

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
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// TTLAuditHead is what the audit knows of the table before sampling.
type TTLAuditHead struct {
	Account, Region, Table, Status, Attribute string
	TableItems                                int64
	Now                                       time.Time
	// TableClass is the table's class; StorageGBMonth its storage price
	// per GB-month in the region, 0 when there is none (StoragePriceErr
	// says why).
	TableClass      string
	StorageGBMonth  float64
	StoragePriceErr string
}

// ttlAuditDoc is the JSON document of `ttl audit --format json`.
type ttlAuditDoc struct {
	SchemaVersion  int                 `json:"schema_version"`
	GeneratedAt    time.Time           `json:"generated_at"`
	Account        string              `json:"account"`
	Region         string              `json:"region"`
	Table          string              `json:"table"`
	TTLStatus      string              `json:"ttl_status"`
	Attribute      string              `json:"attribute"`
	TableItems     int64               `json:"table_items"`
	Sample         ttlSampleJ          `json:"sample"`
	Classes        []ttlClassJ         `json:"classes"`
	Estimates      map[string]ttlEstJ  `json:"estimates"`
	OldestExpiredS *float64            `json:"oldest_expired_age_seconds"`
	ExpiredStorage *ttlStorageJ        `json:"expired_storage"`
	order          []string            // estimate names in display order
	labels         map[string]string   // estimate name → words
	counts         map[ttl.Class]int64 // for the chart
}

// ttlStorageJ is the storage the expired-but-undeleted items hold.
type ttlStorageJ struct {
	Indexes        []ttlIndexStorageJ `json:"indexes"`
	TableClass     string             `json:"table_class"`
	StorageGBMonth *float64           `json:"storage_gb_month"`
	MonthlyCost    *float64           `json:"monthly_cost"`
	PriceError     string             `json:"price_error,omitempty"`
}

type ttlIndexStorageJ struct {
	Index       string   `json:"index"`
	Bytes       float64  `json:"bytes"`
	MonthlyCost *float64 `json:"monthly_cost"`
}

// storageText is s in words for the Markdown and HTML audits.
func storageText(s *ttlStorageJ) string {
	if s == nil {
		return "unknown (no expired estimate, or no expired item read whole)"
	}
	var parts []string
	for _, x := range s.Indexes {
		name := "table"
		if x.Index != "" {
			name = "GSI " + x.Index
		}
		parts = append(parts, fmt.Sprintf("%s %.2f MiB", name, x.Bytes/(1<<20)))
	}
	if s.MonthlyCost == nil {
		return strings.Join(parts, ", ") + "; no price: " + s.PriceError
	}
	return fmt.Sprintf("%s; $%.2f a month at $%g per GB-month (%s)", strings.Join(parts, ", "), *s.MonthlyCost, *s.StorageGBMonth, s.TableClass)
}

// expiredStorage returns the expired backlog's storage, nil without an
// expired estimate or a measured size.
func expiredStorage(h TTLAuditHead, res collectors.SampleResult) *ttlStorageJ {
	est, err := res.Sample.Estimate(ttl.SetOf(ttl.Expired))
	if err != nil {
		return nil
	}
	b, ok := res.BacklogBytes(est.Items)
	if !ok {
		return nil
	}
	out := &ttlStorageJ{TableClass: h.TableClass, PriceError: h.StoragePriceErr}
	var total float64
	for i, v := range b {
		x := ttlIndexStorageJ{Bytes: math.Round(v)}
		if i > 0 {
			x.Index = res.Indexes[i-1]
		}
		if h.StorageGBMonth > 0 {
			x.MonthlyCost = finite(capacity.StorageMonthly(v, h.StorageGBMonth))
			total += *x.MonthlyCost
		}
		out.Indexes = append(out.Indexes, x)
	}
	if h.StorageGBMonth > 0 {
		out.StorageGBMonth, out.MonthlyCost = finite(h.StorageGBMonth), finite(total)
	}
	return out
}

type ttlSampleJ struct {
	ItemsRead         int64   `json:"items_read"`
	SegmentsRead      int     `json:"segments_read"`
	TotalSegments     int     `json:"total_segments"`
	PlannedSegments   int     `json:"planned_segments"`
	Complete          bool    `json:"complete"`
	ConsumedReadUnits float64 `json:"consumed_read_units"`
}

type ttlClassJ struct {
	Class   string `json:"class"`
	Items   int64  `json:"items"`
	Meaning string `json:"meaning"`
	never   bool   // TTL never deletes items of this class
}

type ttlEstJ struct {
	Items      *float64 `json:"items"`
	ItemsLower *float64 `json:"items_lower"`
	ItemsUpper *float64 `json:"items_upper"`
	Fraction   *float64 `json:"fraction"`
	TableItems *float64 `json:"table_items"`
	Exact      bool     `json:"exact"`
	Error      string   `json:"error,omitempty"`
}

func ttlDoc(h TTLAuditHead, res collectors.SampleResult) ttlAuditDoc {
	counts := res.Counts()
	var read int64
	for _, n := range counts {
		read += n
	}
	d := ttlAuditDoc{SchemaVersion: SchemaVersion, GeneratedAt: h.Now.UTC(), Account: h.Account, Region: h.Region, Table: h.Table,
		TTLStatus: h.Status, Attribute: h.Attribute, TableItems: h.TableItems,
		Sample: ttlSampleJ{ItemsRead: read, SegmentsRead: len(res.Sample.Segments), TotalSegments: res.Sample.TotalSegments,
			PlannedSegments: res.Planned, Complete: res.Complete, ConsumedReadUnits: math.Round(res.ConsumedReadUnits*10) / 10},
		Classes: []ttlClassJ{}, Estimates: map[string]ttlEstJ{},
		order:  []string{"expired", "never_expiring"},
		labels: map[string]string{"expired": "Expired, not yet deleted", "never_expiring": "Never expiring"},
	}
	for _, c := range ttl.Classes() {
		d.Classes = append(d.Classes, ttlClassJ{Class: c.String(), Items: counts[c], Meaning: c.Description(), never: ttl.NeverExpiring.Has(c)})
	}
	for name, set := range map[string]ttl.ClassSet{"expired": ttl.SetOf(ttl.Expired), "never_expiring": ttl.NeverExpiring} {
		est, err := res.Sample.Estimate(set)
		if err != nil {
			d.Estimates[name] = ttlEstJ{Error: err.Error()}
			continue
		}
		d.Estimates[name] = ttlEstJ{Items: finite(math.Round(est.Items)), ItemsLower: finite(math.Round(est.ItemsLower)),
			ItemsUpper: finite(math.Round(est.ItemsUpper)), Fraction: finite(est.Fraction), TableItems: finite(est.TableItems), Exact: est.Exact}
	}
	if res.OldestExpiredAge > 0 {
		d.OldestExpiredS = finite(res.OldestExpiredAge.Round(time.Second).Seconds())
	}
	d.ExpiredStorage = expiredStorage(h, res)
	return d
}

// TTLJSON writes the TTL audit as JSON.
func TTLJSON(w io.Writer, h TTLAuditHead, res collectors.SampleResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ttlDoc(h, res)); err != nil {
		return fmt.Errorf("writing the audit as JSON: %w", err)
	}
	return nil
}

// estimateText is one estimate in words.
func estimateText(e ttlEstJ) string {
	if e.Error != "" {
		return "no estimate (" + e.Error + ")"
	}
	exact := ""
	if e.Exact {
		exact = " (every segment read: exact)"
	}
	return fmt.Sprintf("%s items (95%% interval %s to %s), %s of %s items%s", optNum(e.Items), optNum(e.ItemsLower), optNum(e.ItemsUpper),
		optPct1(e.Fraction), optNum(e.TableItems), exact)
}

func optPct1(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100**p)
}

func oldestText(s *float64) string {
	if s == nil {
		return "no expired item seen"
	}
	return "the oldest expired item seen expired " + (time.Duration(*s) * time.Second).String() + " ago (deletion lag)"
}

// TTLMarkdown writes the TTL audit as Markdown.
func TTLMarkdown(w io.Writer, h TTLAuditHead, res collectors.SampleResult) error {
	d := ttlDoc(h, res)
	var b strings.Builder
	fmt.Fprintf(&b, "# TTL audit of %s\n\n%s, %s. TTL %s on attribute `%s`; %d items reported by DynamoDB. Generated %s by `dynamodb_exporter ttl audit`.\n\n",
		mdCell(d.Table), mdCell(d.Account), mdCell(d.Region), d.TTLStatus, mdCell(d.Attribute), d.TableItems, d.GeneratedAt.Format(time.RFC3339))
	fmt.Fprintf(&b, "Sample: %d items in %d of %d segments (%d planned), %.1f read capacity units", d.Sample.ItemsRead, d.Sample.SegmentsRead,
		d.Sample.TotalSegments, d.Sample.PlannedSegments, d.Sample.ConsumedReadUnits)
	if !d.Sample.Complete {
		b.WriteString("; the read budget ran out: the segments read form the sample")
	}
	b.WriteString(".\n\n| Estimate | Value |\n|---|---|\n")
	for _, name := range d.order {
		fmt.Fprintf(&b, "| %s | %s |\n", d.labels[name], mdCell(estimateText(d.Estimates[name])))
	}
	fmt.Fprintf(&b, "| Deletion lag | %s |\n| Expired items' storage | %s |\n\n| Class | Items | Meaning |\n|---|---:|---|\n", oldestText(d.OldestExpiredS), storageText(d.ExpiredStorage))
	for _, c := range d.Classes {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", c.Class, c.Items, mdCell(c.Meaning))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the audit: %w", err)
	}
	return nil
}

type ttlBar struct {
	Class, Meaning string
	Items          int64
	Y, Width       float64
	Bad            bool
}

var ttlHTML = template.Must(template.New("ttl").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TTL audit of {{.D.Table}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1000px; color: #1d2330; padding: 0 1rem; }
` + pageStyle + `svg { background: #fbfcfd; border: 1px solid #e5e8ec; }
</style>
</head>
<body>
<h1>TTL audit of {{.D.Table}}</h1>
<p class="meta">{{.D.Account}}, {{.D.Region}}: TTL {{.D.TTLStatus}} on attribute <code>{{.D.Attribute}}</code>, {{.D.TableItems}} items reported by DynamoDB. Generated {{.Generated}} by <code>dynamodb_exporter ttl audit</code>.</p>
<p>Sample: {{.D.Sample.ItemsRead}} items in {{.D.Sample.SegmentsRead}} of {{.D.Sample.TotalSegments}} segments ({{.D.Sample.PlannedSegments}} planned), {{printf "%.1f" .D.Sample.ConsumedReadUnits}} read capacity units{{if not .D.Sample.Complete}}; the read budget ran out: the segments read form the sample{{end}}.</p>
<table>
<thead><tr><th>Estimate</th><th>Value</th></tr></thead>
<tbody>
{{range .Estimates}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}<tr><td>Deletion lag</td><td>{{.Oldest}}</td></tr>
<tr><td>Expired items' storage</td><td>{{.Storage}}</td></tr>
</tbody>
</table>
<figure>
<figcaption>Items read by class (red: values TTL ignores, counted as never expiring)</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="640" height="{{.Height}}" viewBox="0 0 640 {{.Height}}" role="img" aria-label="Items read by class">
{{range .Bars}}<text x="4" y="{{.Y}}" dy="13" font-size="12">{{.Class}}</text><rect x="130" y="{{.Y}}" width="{{.Width}}" height="16" fill="{{if .Bad}}#c0392b{{else}}#2e86c1{{end}}"/><text x="{{.Width}}" dx="136" y="{{.Y}}" dy="13" font-size="12">{{.Items}}</text>
{{end}}</svg>
</figure>
<table>
<thead><tr><th>Class</th><th>Items</th><th>Meaning</th></tr></thead>
<tbody>
{{range .D.Classes}}<tr><td>{{.Class}}</td><td class="n">{{.Items}}</td><td>{{.Meaning}}</td></tr>
{{end}}</tbody>
</table>
</body>
</html>
`))

// TTLHTML writes the TTL audit as one self-contained HTML file.
func TTLHTML(w io.Writer, h TTLAuditHead, res collectors.SampleResult) error {
	d := ttlDoc(h, res)
	var top int64 = 1
	for _, c := range d.Classes {
		top = max(top, c.Items)
	}
	view := struct {
		D         ttlAuditDoc
		Generated string
		Estimates [][2]string
		Oldest    string
		Storage   string
		Bars      []ttlBar
		Height    int
	}{D: d, Generated: d.GeneratedAt.Format(time.RFC3339), Oldest: oldestText(d.OldestExpiredS), Storage: storageText(d.ExpiredStorage)}
	for _, name := range d.order {
		view.Estimates = append(view.Estimates, [2]string{d.labels[name], estimateText(d.Estimates[name])})
	}
	for i, c := range d.Classes {
		view.Bars = append(view.Bars, ttlBar{Class: c.Class, Meaning: c.Meaning, Items: c.Items, Y: float64(4 + 22*i),
			Width: math.Round(440 * float64(c.Items) / float64(top)), Bad: c.never})
	}
	view.Height = 8 + 22*len(d.Classes)
	if err := ttlHTML.Execute(w, view); err != nil {
		return fmt.Errorf("writing the audit as HTML: %w", err)
	}
	return nil
}
