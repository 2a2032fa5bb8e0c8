package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// The rules of grafana's dashboard-linter (github.com/grafana/dashboard-linter)
// as `dashboard-linter lint --strict` applies them (kubernetes-mixin's CI),
// written here from the rules' documentation: the linter's module is not a
// dependency. Strict turns warnings into failures, so a rule's warning is a
// finding here too. Where the linter looks at some panel types only, or at
// panel targets only, these checks look at every panel and at annotation
// queries as well: stricter, never looser.
//
// Rules that do not apply: target-logql-rule and target-logql-auto-rule
// check Loki queries, and the dashboards have none (noLoki below fails if one
// appears); target-required-matchers-rule and template-required-variables-rule
// take their matchers from a linter configuration, and job and instance are
// covered by the four rules that require them.

// lintDashboard is a generated dashboard, decoded generically.
type lintDashboard struct {
	file string
	d    map[string]any
}

func (ld lintDashboard) String() string {
	title, _ := ld.d["title"].(string)
	return fmt.Sprintf("%s (%q)", ld.file, title)
}

// lintQuery is one PromQL query of a dashboard: a panel's target or an
// annotation's query.
type lintQuery struct {
	panel  map[string]any // nil for an annotation
	where  string         // `panel 3 "Title" query A` or `annotation "Name"`
	expr   string
	legend string
}

func (ld lintDashboard) queries() []lintQuery {
	var out []lintQuery
	for _, p := range panelsOf(ld.d) {
		targets, _ := p["targets"].([]any)
		for _, tg := range targets {
			tm, _ := tg.(map[string]any)
			expr, _ := tm["expr"].(string)
			legend, _ := tm["legendFormat"].(string)
			out = append(out, lintQuery{panel: p, where: fmt.Sprintf("panel %v %q query %v", p["id"], p["title"], tm["refId"]), expr: expr, legend: legend})
		}
	}
	annotations, _ := ld.d["annotations"].(map[string]any)
	list, _ := annotations["list"].([]any)
	for _, a := range list {
		am, _ := a.(map[string]any)
		if ds, _ := am["datasource"].(map[string]any); ds["type"] == "grafana" {
			continue // Grafana's built-in annotations: no query
		}
		expr, _ := am["expr"].(string)
		out = append(out, lintQuery{where: fmt.Sprintf("annotation %q", am["name"]), expr: expr})
	}
	return out
}

func (ld lintDashboard) variables() []map[string]any {
	templating, _ := ld.d["templating"].(map[string]any)
	list, _ := templating["list"].([]any)
	var out []map[string]any
	for _, v := range list {
		if vm, ok := v.(map[string]any); ok {
			out = append(out, vm)
		}
	}
	return out
}

func (ld lintDashboard) variable(name string) map[string]any {
	for _, v := range ld.variables() {
		if v["name"] == name {
			return v
		}
	}
	return nil
}

// variableQuery is the query of a query variable, in either of Grafana's
// forms (a string, or an object holding it).
func variableQuery(v map[string]any) string {
	switch q := v["query"].(type) {
	case string:
		return q
	case map[string]any:
		s, _ := q["query"].(string)
		return s
	}
	return ""
}

// lintRule is one rule of the linter: check returns its findings on a
// dashboard, each naming the dashboard, and the panel and query or the
// variable it rejects.
type lintRule struct {
	name  string
	check func(ld lintDashboard) []string
}

// validUnits are unit IDs of Grafana's unit list (the categories of
// packages/grafana-data/src/valueFormats/categories.ts), the part of it these
// dashboards may need. A "suffix:" or any other custom unit is refused; a
// unit Grafana knows and this list lacks can be added here.
var validUnits = map[string]bool{}

func init() {
	for _, u := range strings.Fields(`none string short percent percentunit sci locale
		ns µs ms s m h d dtdurationms dtdurations dthms dtdhms clockms clocks
		dateTimeAsIso dateTimeAsIsoNoDateIfToday dateTimeAsUS dateTimeAsUSNoDateIfToday dateTimeAsLocal dateTimeAsLocalNoDateIfToday dateTimeAsSystem dateTimeFromNow
		cps ops reqps rps wps iops cpm opm rpm wpm
		bytes decbytes bits decbits kbytes deckbytes mbytes decmbytes gbytes decgbytes
		Bps binBps bps binbps
		currencyUSD currencyEUR currencyGBP
		bool bool_yes_no bool_on_off`) {
		validUnits[u] = true
	}
}

// datasourceUID returns the uid of a datasource reference (an object, or the
// old string form).
func datasourceUID(v any) string {
	switch ds := v.(type) {
	case map[string]any:
		s, _ := ds["uid"].(string)
		return s
	case string:
		return ds
	}
	return ""
}

// templateTarget checks the job or instance variable as template-job-rule
// and template-instance-rule do.
func templateTarget(name string) func(ld lintDashboard) []string {
	return func(ld lintDashboard) []string {
		v := ld.variable(name)
		if v == nil {
			return []string{fmt.Sprintf("%s: no %s variable", ld, name)}
		}
		var out []string
		bad := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("%s: variable %s: ", ld, name)+fmt.Sprintf(format, args...))
		}
		if label := strings.ToUpper(name[:1]) + name[1:]; v["label"] != label {
			bad("label %v, want %q", v["label"], label)
		}
		if uid := datasourceUID(v["datasource"]); uid != "$datasource" && uid != "${datasource}" {
			bad("datasource %q, want the datasource variable", uid)
		}
		if v["type"] != "query" {
			bad("type %v, want a Prometheus query", v["type"])
		}
		if v["multi"] != true {
			bad("not multi-select")
		}
		if v["allValue"] != ".+" {
			bad("allValue %v, want .+", v["allValue"])
		}
		return out
	}
}

// targetMatcher checks that every selector of every query has the matcher
// label=~"$label", as target-job-rule and target-instance-rule do.
func targetMatcher(label string) func(ld lintDashboard) []string {
	want := Matcher{label, "=~", "$" + label}
	return func(ld lintDashboard) []string {
		var out []string
		for _, q := range ld.queries() {
			sels, err := Selectors(q.expr)
			if err != nil {
				continue // target-promql-rule's finding
			}
			for _, s := range sels {
				if !s.Has(want) {
					out = append(out, fmt.Sprintf("%s: %s: selector %s lacks %s", ld, q.where, s.Text, want))
				}
			}
		}
		return out
	}
}

// lintRules are the linter's rules that apply to these dashboards.
var lintRules = []lintRule{
	{"template-datasource-rule", func(ld lintDashboard) []string {
		var ds []map[string]any
		for _, v := range ld.variables() {
			if v["type"] == "datasource" {
				ds = append(ds, v)
			}
		}
		if len(ds) != 1 {
			return []string{fmt.Sprintf("%s: %d datasource variables, want one", ld, len(ds))}
		}
		if v := ds[0]; v["name"] != "datasource" || v["label"] != "Data source" || v["query"] != "prometheus" {
			return []string{fmt.Sprintf("%s: datasource variable named %v, labeled %v, of %v; want datasource, \"Data source\", prometheus", ld, v["name"], v["label"], v["query"])}
		}
		return nil
	}},
	{"template-job-rule", templateTarget("job")},
	{"template-instance-rule", templateTarget("instance")},
	{"template-label-promql-rule", func(ld lintDashboard) []string {
		var out []string
		for _, v := range ld.variables() {
			if v["type"] != "query" {
				continue
			}
			q := variableQuery(v)
			m := regexp.MustCompile(`^(label_names|label_values|metrics|query_result)\((.*)\)$`).FindStringSubmatch(q)
			if m == nil {
				out = append(out, fmt.Sprintf("%s: variable %v: %q is not label_names, label_values, metrics or query_result", ld, v["name"], q))
				continue
			}
			expr := m[2]
			if m[1] == "label_values" {
				lv := labelValues.FindStringSubmatch(q)
				if lv == nil {
					out = append(out, fmt.Sprintf("%s: variable %v: %q is not label_values(SELECTOR, label)", ld, v["name"], q))
					continue
				}
				expr = lv[1]
			}
			if m[1] != "label_names" && m[1] != "metrics" {
				if _, err := Selectors(expr); err != nil {
					out = append(out, fmt.Sprintf("%s: variable %v: %q: %v", ld, v["name"], q, err))
				}
			}
		}
		return out
	}},
	{"template-on-time-change-reload-rule", func(ld lintDashboard) []string {
		var out []string
		for _, v := range ld.variables() {
			if r, _ := v["refresh"].(float64); v["type"] == "query" && r != 2 {
				out = append(out, fmt.Sprintf("%s: variable %v refreshes %v, want 2 (on time range change)", ld, v["name"], v["refresh"]))
			}
		}
		return out
	}},
	{"panel-datasource-rule", func(ld lintDashboard) []string {
		var out []string
		for _, p := range panelsOf(ld.d) {
			if uid := datasourceUID(p["datasource"]); uid != "$datasource" && uid != "${datasource}" {
				out = append(out, fmt.Sprintf("%s: panel %v %q: datasource %q, want the datasource variable", ld, p["id"], p["title"], uid))
			}
		}
		return out
	}},
	{"panel-title-description-rule", func(ld lintDashboard) []string {
		var out []string
		for _, p := range panelsOf(ld.d) {
			if t, _ := p["title"].(string); t == "" {
				out = append(out, fmt.Sprintf("%s: panel %v has no title", ld, p["id"]))
			}
			if d, _ := p["description"].(string); d == "" {
				out = append(out, fmt.Sprintf("%s: panel %v %q has no description", ld, p["id"], p["title"]))
			}
		}
		return out
	}},
	{"panel-units-rule", func(ld lintDashboard) []string {
		var out []string
		for _, p := range panelsOf(ld.d) {
			fc, _ := p["fieldConfig"].(map[string]any)
			def, _ := fc["defaults"].(map[string]any)
			units := map[string]any{"defaults": def["unit"]}
			if unit, ok := def["unit"].(string); !ok || unit == "" {
				out = append(out, fmt.Sprintf("%s: panel %v %q has no unit", ld, p["id"], p["title"]))
			}
			overrides, _ := fc["overrides"].([]any)
			for i, o := range overrides {
				om, _ := o.(map[string]any)
				props, _ := om["properties"].([]any)
				for _, pr := range props {
					if pm, _ := pr.(map[string]any); pm["id"] == "unit" {
						units[fmt.Sprintf("override %d", i)] = pm["value"]
					}
				}
			}
			if opts, _ := p["options"].(map[string]any); opts != nil {
				if y, _ := opts["yAxis"].(map[string]any); y != nil && y["unit"] != nil {
					units["y axis"] = y["unit"]
				}
			}
			keys := make([]string, 0, len(units))
			for k := range units {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if u, _ := units[k].(string); u != "" && !validUnits[u] {
					out = append(out, fmt.Sprintf("%s: panel %v %q: %s unit %q is not in Grafana's unit list", ld, p["id"], p["title"], k, u))
				}
			}
		}
		return out
	}},
	{"panel-no-targets-rule", func(ld lintDashboard) []string {
		var out []string
		for _, p := range panelsOf(ld.d) {
			if ts, _ := p["targets"].([]any); len(ts) == 0 {
				out = append(out, fmt.Sprintf("%s: panel %v %q has no query", ld, p["id"], p["title"]))
			}
		}
		return out
	}},
	{"target-promql-rule", func(ld lintDashboard) []string {
		// Well formed here; TestDashboardQueriesParse has promtool parse them.
		var out []string
		for _, q := range ld.queries() {
			if strings.TrimSpace(q.expr) == "" {
				out = append(out, fmt.Sprintf("%s: %s is empty", ld, q.where))
			} else if _, err := Selectors(q.expr); err != nil {
				out = append(out, fmt.Sprintf("%s: %s: %v: %s", ld, q.where, err, q.expr))
			}
		}
		return out
	}},
	{"target-rate-interval-rule", func(ld lintDashboard) []string {
		// The linter's code asks rate and irate for $__rate_interval and
		// leaves increase's window to the author (a count over a named
		// window, such as "per hour").
		var out []string
		for _, q := range ld.queries() {
			sels, _ := Selectors(q.expr)
			for _, s := range sels {
				if (s.Func == "rate" || s.Func == "irate") && s.Range != "$__rate_interval" {
					out = append(out, fmt.Sprintf("%s: %s: %s(%s[%s]) should use [$__rate_interval]", ld, q.where, s.Func, s.Text, s.Range))
				}
			}
		}
		return out
	}},
	{"target-job-rule", targetMatcher("job")},
	{"target-instance-rule", targetMatcher("instance")},
	{"target-counter-agg-rule", func(ld lintDashboard) []string {
		// A counter (_total) is read through rate, irate or increase. The
		// linter only sees a counter written without any matcher; this
		// looks at every counter selector. The alert pack's own
		// expressions (the "condition" series of the alerts dashboard) are
		// exempt: they are the pack's, shown as they fire, and they read a
		// counter's first sample on purpose (see alerts/pack.go).
		var out []string
		for _, q := range ld.queries() {
			if ld.file == "alerts.json" && strings.HasPrefix(q.legend, "condition ") {
				continue
			}
			sels, _ := Selectors(q.expr)
			for _, s := range sels {
				if strings.HasSuffix(s.Metric, "_total") && (s.Range == "" || s.Func != "rate" && s.Func != "irate" && s.Func != "increase") {
					out = append(out, fmt.Sprintf("%s: %s: counter %s is not read through rate, irate or increase", ld, q.where, s.Text))
				}
			}
		}
		return out
	}},
	{"uneditable-dashboard", func(ld lintDashboard) []string {
		if ld.d["editable"] != false {
			return []string{fmt.Sprintf("%s: editable is %v, want false (the dashboards are generated from code)", ld, ld.d["editable"])}
		}
		return nil
	}},
	{"no-loki (target-logql-rule does not apply)", func(ld lintDashboard) []string {
		var out []string
		for _, p := range panelsOf(ld.d) {
			targets, _ := p["targets"].([]any)
			for _, tg := range targets {
				tm, _ := tg.(map[string]any)
				if ds, _ := tm["datasource"].(map[string]any); ds["type"] != "prometheus" {
					out = append(out, fmt.Sprintf("%s: panel %v %q query %v: datasource %v, not Prometheus: encode the linter's LogQL rules first", ld, p["id"], p["title"], tm["refId"], ds))
				}
			}
		}
		return out
	}},
}

// lintDashboards returns the generated dashboards, sorted by file name.
func lintDashboards(t *testing.T) []lintDashboard {
	t.Helper()
	var out []lintDashboard
	for file, d := range generated(t) {
		out = append(out, lintDashboard{file, d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	return out
}

// TestDashboardLinterRules runs every rule on every generated dashboard.
func TestDashboardLinterRules(t *testing.T) {
	dashboards := lintDashboards(t)
	for _, r := range lintRules {
		t.Run(r.name, func(t *testing.T) {
			for _, ld := range dashboards {
				for _, f := range r.check(ld) {
					t.Errorf("%s: %s", r.name, f)
				}
			}
		})
	}
}

// TestDashboardLinterRulesCatch breaks a copy of a generated dashboard for
// each rule and checks that the rule reports it, naming the dashboard and
// the panel and query (or variable) at fault: a rule that cannot fail
// proves nothing.
func TestDashboardLinterRulesCatch(t *testing.T) {
	dashboards := lintDashboards(t)
	var fleet lintDashboard
	for _, ld := range dashboards {
		if ld.file == "fleet-overview.json" {
			fleet = ld
		}
	}
	if fleet.d == nil {
		t.Fatal("no fleet-overview.json")
	}
	// firstTarget is the first query of the first panel with one.
	firstTarget := func(d map[string]any) (map[string]any, map[string]any) {
		for _, p := range panelsOf(d) {
			if ts, _ := p["targets"].([]any); len(ts) > 0 {
				return p, ts[0].(map[string]any)
			}
		}
		t.Fatal("no panel with a query")
		return nil, nil
	}
	p0, _ := firstTarget(fleet.d)
	panelName := fmt.Sprintf("panel %v %q", p0["id"], p0["title"])
	setTarget := func(expr string) func(d map[string]any) {
		return func(d map[string]any) { _, tg := firstTarget(d); tg["expr"] = expr }
	}
	setVar := func(name, key string, value any) func(d map[string]any) {
		return func(d map[string]any) {
			for _, v := range (lintDashboard{d: d}).variables() {
				if v["name"] == name {
					v[key] = value
				}
			}
		}
	}
	setPanel := func(key string, value any) func(d map[string]any) {
		return func(d map[string]any) { p, _ := firstTarget(d); p[key] = value }
	}
	cases := []struct {
		rule  string
		spoil func(d map[string]any)
		want  []string // in the finding, besides the dashboard's file
	}{
		{"template-datasource-rule", setVar("datasource", "label", "Datasource"), []string{"Datasource"}},
		{"template-job-rule", setVar("job", "allValue", ".*"), []string{"variable job", "allValue .*"}},
		{"template-instance-rule", setVar("instance", "multi", false), []string{"variable instance", "multi"}},
		{"template-instance-rule", setVar("instance", "label", "instance"), []string{"variable instance", "label instance"}},
		{"template-label-promql-rule", setVar("table", "query", map[string]any{"query": `label_values(dynamodb_table_info{account=~"$account", table)`}), []string{"variable table"}},
		{"template-on-time-change-reload-rule", setVar("region", "refresh", 1.0), []string{"variable region"}},
		{"panel-datasource-rule", setPanel("datasource", map[string]any{"type": "prometheus", "uid": "P1809F7CD0C75ACF3"}), []string{panelName, "P1809F7CD0C75ACF3"}},
		{"panel-title-description-rule", setPanel("description", ""), []string{panelName}},
		{"panel-units-rule", setPanel("fieldConfig", map[string]any{"defaults": map[string]any{"unit": "suffix: RCU/s"}}), []string{panelName, "suffix: RCU/s"}},
		{"panel-no-targets-rule", setPanel("targets", []any{}), []string{fmt.Sprintf("%q", p0["title"])}},
		{"target-promql-rule", setTarget(`sum(dynamodb_table_info{job=~"$job", instance=~"$instance"}`), []string{panelName + " query A"}},
		{"target-rate-interval-rule", setTarget(`rate(dynamodb_user_errors_total{job=~"$job", instance=~"$instance"}[1h])`), []string{panelName + " query A", "[1h]"}},
		{"target-job-rule", setTarget(`dynamodb_table_info{job=~"$job", instance=~"$instance"} and on (table) dynamodb_items{instance=~"$instance"}`), []string{panelName + " query A", `dynamodb_items{instance=~"$instance"}`}},
		{"target-job-rule", setTarget(`dynamodb_table_info{job="dynamodb", instance=~"$instance"}`), []string{panelName + " query A"}},
		{"target-instance-rule", setTarget(`max_over_time(dynamodb:x:rate{job=~"$job"}[1h])`), []string{panelName + " query A", "dynamodb:x:rate"}},
		{"target-counter-agg-rule", setTarget(`sum(dynamodb_user_errors_total{job=~"$job", instance=~"$instance"})`), []string{panelName + " query A", "dynamodb_user_errors_total"}},
		{"uneditable-dashboard", func(d map[string]any) { d["editable"] = true }, []string{"editable"}},
		{"no-loki (target-logql-rule does not apply)", func(d map[string]any) {
			_, tg := firstTarget(d)
			tg["datasource"] = map[string]any{"type": "loki", "uid": "${datasource}"}
		}, []string{panelName + " query A"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.rule] = true
		var rule *lintRule
		for i := range lintRules {
			if lintRules[i].name == c.rule {
				rule = &lintRules[i]
			}
		}
		if rule == nil {
			t.Errorf("no rule %s", c.rule)
			continue
		}
		broken := deepCopy(t, fleet.d)
		c.spoil(broken)
		findings := rule.check(lintDashboard{fleet.file, broken})
		if len(findings) == 0 {
			t.Errorf("%s reports nothing on a broken dashboard", c.rule)
			continue
		}
		all := strings.Join(findings, "\n")
		for _, w := range append([]string{fleet.file}, c.want...) {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the findings do not name %q:\n%s", c.rule, w, all)
			}
		}
	}
	for _, r := range lintRules {
		if !covered[r.name] {
			t.Errorf("rule %s is never shown to fail: add a case", r.name)
		}
	}
}

func deepCopy(t *testing.T, d map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDashboardQueriesParse has promtool parse every panel, annotation and
// variable query (target-promql-rule, template-label-promql-rule), with the
// variables set as Grafana sets them: each query is written as a recording
// rule of its own group, named after the query.
func TestDashboardQueriesParse(t *testing.T) {
	promtool := testtools.Promtool(t)
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("groups:\n")
	n := 0
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		qs, err := Queries(files[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			n++
			where := fmt.Sprintf("%s %d: %s %q %s", name, n, q.Kind, q.Panel, q.RefID)
			expr := strings.ReplaceAll(q.Expr, "$__rate_interval", "4m")
			group, _ := json.Marshal(where)
			rule, _ := json.Marshal(expr)
			fmt.Fprintf(&b, "- name: %s\n  rules:\n  - record: dashboard_query\n    expr: %s\n", group, rule)
		}
	}
	if n < 100 {
		t.Fatalf("%d queries, want the dashboards' hundreds", n)
	}
	file := filepath.Join(t.TempDir(), "queries.yml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res := testtools.RunCommand(t, "", promtool, "check", "rules", file)
	if res.ExitCode != 0 {
		t.Errorf("promtool rejects dashboard queries (the group names dashboard, panel and query):\n%s\n%s", res.Stdout, res.Stderr)
	}
}
