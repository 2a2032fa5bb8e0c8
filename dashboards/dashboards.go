// Package dashboards generates the Grafana dashboards of the exporter from Go
// with the Grafana Foundation SDK: fleet overview, table detail, TTL health,
// exporter health and one panel per alert of the pack. The JSON committed in
// this directory is its output (`go generate ./dashboards`); a test fails when
// it differs from what the code generates.
//
// Every query names its metrics through the catalogue's constants or the
// alert pack's recording rules (rec), so that a renamed metric breaks the
// build or the generation, never silently a panel. Every panel reads the
// datasource variable; no datasource UID is written anywhere.
package dashboards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/common/model"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// Dashboard UIDs: stable, so that links (runbooks, alert annotations) keep
// working across regenerations.
const (
	FleetUID    = "dynamodb-fleet"
	TableUID    = "dynamodb-table"
	TTLUID      = "dynamodb-ttl"
	ExporterUID = "dynamodb-exporter"
	AlertsUID   = "dynamodb-alerts"
)

// ProvisionedPath is where provisioning/dashboards/dynamodb.yml has Grafana
// read the dashboards' JSON files from.
const ProvisionedPath = "/var/lib/grafana/dashboards/dynamodb"

// tag marks every dashboard of the exporter (and the dashboard links).
const tag = "dynamodb-exporter"

// row is a titled group of panels.
type row struct {
	title  string
	panels []panel
}

// annotation is a query whose results Grafana marks on every time axis.
type annotation struct {
	name, expr, color, title, text string
}

// board describes one dashboard.
type board struct {
	uid, title, file, description string
	rows                          []row
	annotations                   []annotation
}

// boards returns every dashboard, in the order of the files.
func boards() ([]board, error) {
	problems = nil
	al, err := alertsBoard()
	if err != nil {
		return nil, err
	}
	bs := []board{fleetBoard(), tableBoard(), ttlBoard(), exporterBoard(), al}
	for name := range usedRecords {
		if !recorded[name] {
			problems = append(problems, "no recording rule "+name)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("dashboards out of step with the alert pack: %s", strings.Join(problems, "; "))
	}
	return bs, nil
}

// Generate returns the content of every generated file of this directory by
// name: one JSON file per dashboard and panels.md, the alert-to-panel map.
func Generate() (map[string][]byte, error) {
	bs, err := boards()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, b := range bs {
		d, err := b.build()
		if err != nil {
			return nil, fmt.Errorf("dashboard %s: %w", b.uid, err)
		}
		j, err := marshal(d)
		if err != nil {
			return nil, fmt.Errorf("dashboard %s: %w", b.uid, err)
		}
		out[b.file] = j
	}
	md, err := panelsMarkdown()
	if err != nil {
		return nil, err
	}
	out["panels.md"] = []byte(md)
	return out, nil
}

// marshal writes a dashboard as indented JSON without HTML escaping (PromQL
// holds < and >), ending in a newline.
func marshal(d dashboard.Dashboard) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	return buf.Bytes(), nil
}

// build turns a board into the SDK's dashboard. Panels without a fixed ID
// are numbered from 1 in order; rows take the next numbers.
func (b board) build() (dashboard.Dashboard, error) {
	db := dashboard.NewDashboardBuilder(b.title).
		Uid(b.uid).
		Description(b.description).
		Tags([]string{tag}).
		// Generated from code: edits made in Grafana would be lost at the
		// next provisioning, so the dashboards are read-only there.
		Readonly().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("1m").
		Time("now-24h", "now").
		Timezone(common.TimeZoneBrowser).
		Link(dashboard.NewDashboardLinkBuilder("DynamoDB dashboards").
			Type(dashboard.DashboardLinkTypeDashboards).Tags([]string{tag}).
			AsDropdown(true).IncludeVars(true).KeepTime(true)).
		Variables(variables())
	annotations := []cog.Builder[dashboard.AnnotationQuery]{
		dashboard.NewAnnotationQueryBuilder().Name("Annotations & Alerts").
			Datasource(common.DataSourceRef{Type: ptr("grafana"), Uid: ptr("-- Grafana --")}).
			Enable(true).Hide(true).IconColor("rgba(0, 211, 255, 1)").Type("dashboard").BuiltIn(1),
	}
	for _, a := range b.annotations {
		annotations = append(annotations, dashboard.NewAnnotationQueryBuilder().Name(a.name).
			Datasource(datasourceRef()).Enable(true).IconColor(a.color).
			Target(prometheus.NewDataqueryBuilder().Datasource(datasourceRef()).RefId("Anno").Expr(a.expr).Range()).
			Expr(a.expr).Step("60s").TitleFormat(a.title).TextFormat(a.text))
	}
	db = db.Annotations(annotations)
	next := uint32(1)
	used := map[uint32]string{}
	take := func(fixed uint32, title string) (uint32, error) {
		id := fixed
		if id == 0 {
			for used[next] != "" {
				next++
			}
			id = next
		}
		if other, ok := used[id]; ok {
			return 0, fmt.Errorf("panels %q and %q share the ID %d", other, title, id)
		}
		used[id] = title
		return id, nil
	}
	// Fixed IDs first, so that numbering never lands on one.
	for _, r := range b.rows {
		for _, p := range r.panels {
			if p.id != 0 {
				if _, err := take(p.id, p.title); err != nil {
					return dashboard.Dashboard{}, err
				}
			}
		}
	}
	for _, r := range b.rows {
		rid, err := take(0, "row "+r.title)
		if err != nil {
			return dashboard.Dashboard{}, err
		}
		db = db.WithRow(dashboard.NewRowBuilder(r.title).Id(rid))
		for _, p := range r.panels {
			id := p.id
			if id == 0 {
				if id, err = take(0, p.title); err != nil {
					return dashboard.Dashboard{}, err
				}
			}
			pb, err := p.build(id)
			if err != nil {
				return dashboard.Dashboard{}, err
			}
			db = db.WithPanel(pb)
		}
	}
	return db.Build()
}

func ptr[T any](v T) *T { return &v }

// Selectors of the dashboard variables. Every variable is a regular
// expression (multi-value, "All" is .+ for job and instance, .* for the
// others), so that every matcher is =~. Every selector of every query
// carries selTarget: the scrape target's job and instance, which Prometheus
// gives every series of the exporter and which the alert pack keeps on its
// recorded series and alerts, so that a user can pick one exporter, a shard
// or one of an HA pair.
const (
	selTarget = `job=~"$job", instance=~"$instance"`
	selAR     = selTarget + `, account=~"$account", region=~"$region"`
	selT      = selAR + `, table=~"$table"`
	selTI     = selT + `, index=~"$index"`
	byT       = "account, region, table"
	byTI      = "account, region, table, index"
	// allTarget is All of job and instance: any value, but one (every
	// scraped series has both labels).
	allTarget = ".+"
	// allVal is All of the AWS variables: index is empty on the base
	// table's series.
	allVal = ".*"
)

// targetMatchers are selTarget's matchers, which narrow adds to the alert
// pack's expressions.
var targetMatchers = []Matcher{{"job", "=~", "$job"}, {"instance", "=~", "$instance"}}

// variables are the same on every dashboard: datasource, job, instance,
// account, region, table and index, each narrowing the next.
func variables() []cog.Builder[dashboard.VariableModel] {
	q := func(name, label, expr, all, desc string) *dashboard.QueryVariableBuilder {
		return dashboard.NewQueryVariableBuilder(name).Label(label).Description(desc).
			Datasource(datasourceRef()).
			Query(dashboard.StringOrMap{Map: map[string]any{"query": expr, "refId": "PrometheusVariableQueryEditor-VariableQuery", "qryType": 1}}).
			Definition(expr).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Sort(dashboard.VariableSortAlphabeticalAsc).
			Multi(true).IncludeAll(true).AllValue(all).
			Current(dashboard.VariableOption{Selected: ptr(true), Text: dashboard.StringOrArrayOfString{String: ptr("All")}, Value: dashboard.StringOrArrayOfString{String: ptr("$__all")}})
	}
	return []cog.Builder[dashboard.VariableModel]{
		dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus").
			Description("The Prometheus that scrapes the exporter."),
		q("job", "Job", fmt.Sprintf("label_values(%s, job)", catalogue.ExporterBuildInfo), allTarget,
			"Prometheus scrape job of the exporter (every exporter serves its build info, whatever it watches)."),
		q("instance", "Instance", fmt.Sprintf(`label_values(%s{job=~"$job"}, instance)`, catalogue.ExporterBuildInfo), allTarget,
			"Exporter instance: one shard, or one of an HA pair watching the same tables (with both twins selected, panels that sum count their figures twice)."),
		q("account", "Account", fmt.Sprintf("label_values(%s{%s}, account)", catalogue.TableInfo, selTarget), allVal,
			"AWS account, by the name given in the exporter's configuration."),
		q("region", "Region", fmt.Sprintf(`label_values(%s{%s, account=~"$account"}, region)`, catalogue.TableInfo, selTarget), allVal,
			"AWS region."),
		q("table", "Table", fmt.Sprintf(`label_values(%s{%s}, table)`, catalogue.TableInfo, selAR), allVal,
			"DynamoDB table."),
		q("index", "Index", fmt.Sprintf(`label_values(%s{%s}, index)`, catalogue.ConsumedReadCapacityUnitsTotal, selT), allVal,
			"Global secondary index; All includes the base table (empty index)."),
	}
}

// recorded holds the names the alert pack records; rec refuses any other.
var recorded = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Record != "" {
				m[r.Record] = true
			}
		}
	}
	return m
}()

// problems collects what rec and param could not find in the alert pack
// while the boards are built; boards fails on any.
var problems []string

// usedRecords are the recorded series the dashboards read (rec).
var usedRecords = map[string]bool{}

// rec returns name, a series recorded by the alert pack. A name the pack does
// not record (renamed, removed) makes generation fail.
func rec(name string) string {
	usedRecords[name] = true
	return name
}

// param returns the default value of a parameter of an alert of the pack,
// the threshold a panel draws. An alert or parameter the pack lacks makes
// generation fail.
func param(alert, name string) string {
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert != alert {
				continue
			}
			for _, p := range r.Params {
				if p.Name == name {
					return p.Default
				}
			}
		}
	}
	problems = append(problems, fmt.Sprintf("no parameter %s in alert %s", name, alert))
	return "0"
}

// number is param as a float (thresholds drawn as lines).
func number(alert, name string) float64 {
	v, err := strconv.ParseFloat(param(alert, name), 64)
	if err != nil {
		problems = append(problems, fmt.Sprintf("parameter %s of %s is not a number", name, alert))
	}
	return v
}

// seconds is a duration param in seconds.
func seconds(alert, name string) float64 {
	d, err := model.ParseDuration(param(alert, name))
	if err != nil {
		problems = append(problems, fmt.Sprintf("parameter %s of %s is not a duration", name, alert))
	}
	return time.Duration(d).Seconds()
}
