package dashboards

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/heatmap"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// kind is a Grafana panel type.
type kind int

const (
	timeSeries kind = iota
	statPanel
	tablePanel
	heatmapPanel
)

// query is one PromQL target of a panel.
type query struct {
	expr   string
	legend string
	// instant asks for the value at the end of the range (stat and table
	// panels); otherwise a range query.
	instant bool
	// column names the value column of a table panel's query ("-" hides
	// it: the query brings labels only, its value is always 1).
	column string
	// unit, when set, is the unit of this query's column or series, where
	// it differs from the panel's.
	unit string
}

// panel describes a panel before it is built: what it shows and how to read
// it. Every panel has a title, a unit and a description (checked by the
// tests on the generated JSON).
type panel struct {
	kind        kind
	title       string
	description string
	unit        string
	// width and height in grid units (24 columns); 0 picks the defaults.
	width, height uint32
	queries       []query
	// lines are threshold values drawn as dashed lines, in the panel's
	// unit: the alert pack's default thresholds.
	lines []float64
	// stack draws the series stacked (parts of a whole).
	stack bool
	// sortBy orders a table panel by this column, descending.
	sortBy string
	// merge joins a table panel's queries into one row per label set.
	merge bool
	// id, when not 0, is the panel's fixed ID (alert panels, linked from
	// runbooks); others are numbered in order.
	id uint32
}

// datasourceRef points every panel and query at the dashboard's datasource
// variable: no datasource UID is written in a dashboard.
func datasourceRef() common.DataSourceRef {
	t, uid := "prometheus", "${datasource}"
	return common.DataSourceRef{Type: &t, Uid: &uid}
}

func (q query) builder(refID string, format prometheus.PromQueryFormat) *prometheus.DataqueryBuilder {
	b := prometheus.NewDataqueryBuilder().
		Datasource(datasourceRef()).
		RefId(refID).
		Expr(q.expr).
		EditorMode(prometheus.QueryEditorModeCode).
		Format(format)
	if q.legend != "" {
		b = b.LegendFormat(q.legend)
	}
	if q.instant {
		b = b.Instant()
	} else {
		b = b.Range()
	}
	return b
}

// thresholds turns the panel's lines into Grafana thresholds: green below
// the first line, then orange and red.
func (p panel) thresholds() *dashboard.ThresholdsConfigBuilder {
	steps := []dashboard.Threshold{{Value: nil, Color: "green"}}
	colors := []string{"orange", "red"}
	for i, v := range p.lines {
		v := v
		steps = append(steps, dashboard.Threshold{Value: &v, Color: colors[min(i, len(colors)-1)]})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(steps)
}

// build returns the SDK builder of the panel with the given ID.
func (p panel) build(id uint32) (cog.Builder[dashboard.Panel], error) {
	if p.title == "" || p.description == "" || p.unit == "" || len(p.queries) == 0 {
		return nil, fmt.Errorf("panel %q: a panel needs a title, a description, a unit and a query", p.title)
	}
	w, h := p.width, p.height
	if w == 0 {
		w = 12
	}
	if h == 0 {
		h = 8
	}
	format := prometheus.PromQueryFormatTimeSeries
	switch p.kind {
	case tablePanel:
		format = prometheus.PromQueryFormatTable
	case heatmapPanel:
		format = prometheus.PromQueryFormatHeatmap
	}
	var targets []cog.Builder[variants.Dataquery]
	for i, q := range p.queries {
		targets = append(targets, q.builder(string(rune('A'+i)), format))
	}
	switch p.kind {
	case timeSeries:
		b := timeseries.NewPanelBuilder().Id(id).Title(p.title).Description(p.description).
			Unit(p.unit).Datasource(datasourceRef()).Span(w).Height(h).Targets(targets).
			LineWidth(1).FillOpacity(10).ShowPoints(common.VisibilityModeNever).
			Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeTable).
				Placement(common.LegendPlacementBottom).ShowLegend(true).Calcs([]string{"lastNotNull", "max"}))
		if len(p.lines) > 0 {
			b = b.Thresholds(p.thresholds()).
				ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeDashed))
		}
		if p.stack {
			b = b.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))
		}
		return b, nil
	case statPanel:
		b := stat.NewPanelBuilder().Id(id).Title(p.title).Description(p.description).
			Unit(p.unit).Datasource(datasourceRef()).Span(w).Height(h).Targets(targets).
			GraphMode(common.BigValueGraphModeNone).
			ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}))
		if len(p.lines) > 0 {
			b = b.Thresholds(p.thresholds()).ColorMode(common.BigValueColorModeValue)
		}
		return b, nil
	case tablePanel:
		b := table.NewPanelBuilder().Id(id).Title(p.title).Description(p.description).
			Unit(p.unit).Datasource(datasourceRef()).Span(w).Height(h).Targets(targets)
		if p.merge {
			exclude := map[string]any{"Time": true}
			rename := map[string]any{}
			for i, q := range p.queries {
				col := "Value #" + string(rune('A'+i))
				if len(p.queries) == 1 {
					col = "Value"
				}
				switch q.column {
				case "":
				case "-":
					exclude[col] = true
				default:
					rename[col] = q.column
				}
				if q.unit != "" && q.column != "-" {
					name := q.column
					if name == "" {
						name = col
					}
					b = b.OverrideByName(name, []dashboard.DynamicConfigValue{{Id: "unit", Value: q.unit}})
				}
			}
			b = b.WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
				WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
					"excludeByName": exclude, "renameByName": rename,
				}})
		}
		if p.sortBy != "" {
			b = b.SortBy([]cog.Builder[common.TableSortByFieldState]{
				common.NewTableSortByFieldStateBuilder().DisplayName(p.sortBy).Desc(true),
			})
		}
		return b, nil
	case heatmapPanel:
		b := heatmap.NewPanelBuilder().Id(id).Title(p.title).Description(p.description).
			Unit(p.unit).Datasource(datasourceRef()).Span(w).Height(h).Targets(targets).
			Calculate(false).
			YAxis(heatmap.NewYAxisConfigBuilder().Unit(p.unit))
		return b, nil
	}
	return nil, fmt.Errorf("panel %q: unknown kind %d", p.title, p.kind)
}
