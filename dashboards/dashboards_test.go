package dashboards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// TestCommittedDashboardsAreGenerated keeps the committed files equal to what
// the code generates: they are rebuilt with `go generate ./dashboards`,
// never edited by hand.
func TestCommittedDashboardsAreGenerated(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v (run go generate ./dashboards)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the code generates: run go generate ./dashboards", name)
		}
	}
	committed, _ := filepath.Glob("*.json")
	for _, name := range committed {
		if _, ok := files[name]; !ok {
			t.Errorf("%s is committed but not generated: remove it", name)
		}
	}
}

// generated returns every generated dashboard, decoded generically.
func generated(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("%d dashboards, want 5 (fleet, table, TTL, exporter, alerts)", len(files))
	}
	out := map[string]map[string]any{}
	for name, b := range files {
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return out
}

// panelsOf returns every panel that is not a row, rows' panels included.
func panelsOf(d map[string]any) []map[string]any {
	var out []map[string]any
	var walk func(v any)
	walk = func(v any) {
		list, _ := v.([]any)
		for _, p := range list {
			pm := p.(map[string]any)
			if pm["type"] != "row" {
				out = append(out, pm)
			}
			walk(pm["panels"])
		}
	}
	walk(d["panels"])
	return out
}

// TestEveryPanelIsReadable: a title, a unit and a description on every
// panel, every panel and query on the datasource variable.
func TestEveryPanelIsReadable(t *testing.T) {
	for name, d := range generated(t) {
		ps := panelsOf(d)
		if len(ps) == 0 {
			t.Errorf("%s has no panel", name)
		}
		for _, p := range ps {
			title, _ := p["title"].(string)
			if title == "" {
				t.Errorf("%s: panel %v has no title", name, p["id"])
			}
			if desc, _ := p["description"].(string); len(desc) < 40 {
				t.Errorf("%s: panel %q has no description saying how to read it (%q)", name, title, desc)
			}
			fc, _ := p["fieldConfig"].(map[string]any)
			def, _ := fc["defaults"].(map[string]any)
			if unit, _ := def["unit"].(string); unit == "" {
				t.Errorf("%s: panel %q has no unit", name, title)
			}
			if ds, _ := p["datasource"].(map[string]any); ds["uid"] != "${datasource}" || ds["type"] != "prometheus" {
				t.Errorf("%s: panel %q datasource %v, want the datasource variable", name, title, ds)
			}
			targets, _ := p["targets"].([]any)
			if len(targets) == 0 {
				t.Errorf("%s: panel %q has no query", name, title)
			}
			for _, tg := range targets {
				if ds, _ := tg.(map[string]any)["datasource"].(map[string]any); ds["uid"] != "${datasource}" {
					t.Errorf("%s: panel %q: a query's datasource is %v, want the datasource variable", name, title, ds)
				}
			}
		}
	}
}

// TestNoHardCodedDatasource looks at every datasource reference anywhere in
// the JSON: only the variable (or Grafana's built-in annotations).
func TestNoHardCodedDatasource(t *testing.T) {
	for name, d := range generated(t) {
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, c := range x {
					if k == "datasource" {
						if ds, ok := c.(map[string]any); ok {
							uid := ds["uid"]
							if uid != "${datasource}" && !(ds["type"] == "grafana" && uid == "-- Grafana --") {
								t.Errorf("%s: %s.datasource uid %v: hard-coded", name, path, uid)
							}
						}
					}
					walk(path+"."+k, c)
				}
			case []any:
				for i, c := range x {
					walk(fmt.Sprintf("%s[%d]", path, i), c)
				}
			}
		}
		walk("", d)
	}
}

// TestVariables: datasource (prometheus), job, instance, account, region,
// table, index on every dashboard, each query variable narrowed by every
// variable before it (picking an exporter narrows the accounts, and so on).
func TestVariables(t *testing.T) {
	want := []string{"datasource", "job", "instance", "account", "region", "table", "index"}
	for name, d := range generated(t) {
		list := d["templating"].(map[string]any)["list"].([]any)
		var got, before []string
		for _, v := range list {
			vm := v.(map[string]any)
			got = append(got, vm["name"].(string))
			if vm["name"] == "datasource" {
				if vm["type"] != "datasource" || vm["query"] != "prometheus" {
					t.Errorf("%s: datasource variable %v, want type datasource of prometheus", name, vm)
				}
				continue
			}
			m := labelValues.FindStringSubmatch(variableQuery(vm))
			if m == nil {
				t.Errorf("%s: variable %v: %q is not label_values(SELECTOR, label)", name, vm["name"], variableQuery(vm))
				continue
			}
			sels, err := Selectors(m[1])
			if err != nil || len(sels) != 1 {
				t.Errorf("%s: variable %v: %q is not one selector (%v)", name, vm["name"], m[1], err)
				continue
			}
			for _, b := range before {
				if !sels[0].Has(Matcher{b, "=~", "$" + b}) {
					t.Errorf("%s: variable %v: %s is not narrowed by $%s", name, vm["name"], m[1], b)
				}
			}
			if all, _ := vm["allValue"].(string); all == "" || vm["includeAll"] != true || vm["multi"] != true {
				t.Errorf("%s: variable %v: want multi-select with All", name, vm["name"])
			}
			before = append(before, vm["name"].(string))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: variables %v, want %v", name, got, want)
		}
	}
}

// TestSelectors checks the PromQL reader the lint rules and narrow rely on,
// on the forms the dashboards and the alert pack use.
func TestSelectors(t *testing.T) {
	expr := `sum by (account, job) (rate(a_total{x="1", y=~"$y"}[$__rate_interval])) * on (table) group_left (c) ` +
		`min_over_time((b / ignoring (w) {__name__="c"})[1d:10m]) > 1e-05 unless increase(d_total[1h] offset 5m) or ` +
		`label_replace(dynamodb:e:rate, "dst", "$1", "src", "(.*)") and up{job=~".*dynamodb.*"} < bool 4 * vector(0) - time()`
	sels, err := Selectors(expr)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sels {
		got = append(got, fmt.Sprintf("%s|%v|%s|%s", s.Metric, s.Matchers, s.Range, s.Func))
	}
	want := []string{
		`a_total|[x="1" y=~"$y"]|$__rate_interval|rate`,
		`b|[]||`,
		`|[__name__="c"]||`,
		`d_total|[]|1h|increase`,
		`dynamodb:e:rate|[]||label_replace`,
		`up|[job=~".*dynamodb.*"]||`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Selectors =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{`sum(x`, `x{a="b"`, `x{a}`, `x[5q]`, `rate(x[$__rate_interval)`, `x{a="b}`, `x $job`, ``, `x)`} {
		if _, err := Selectors(bad); err == nil {
			t.Errorf("Selectors(%q) accepts a malformed expression", bad)
		}
	}
	narrowed, err := narrow(`a + b{} * up{job=~".*d.*"} and c{instance=~"$instance", x="y"}[5m]`, targetMatchers...)
	if err != nil {
		t.Fatal(err)
	}
	if want := `a{job=~"$job", instance=~"$instance"} + b{job=~"$job", instance=~"$instance"} * up{job=~".*d.*", job=~"$job", instance=~"$instance"} and c{instance=~"$instance", x="y", job=~"$job"}[5m]`; narrowed != want {
		t.Errorf("narrow =\n%s\nwant\n%s", narrowed, want)
	}
}

// allowedName reports whether a dashboard may read a metric: a catalogued
// family (a histogram's series included), a series the alert pack records,
// or a series Prometheus itself writes: ALERTS (the pack's alerts) and up
// (the scrape of the exporter, which DynamoDBExporterDown reads).
func allowedName(name string) bool {
	if name == "ALERTS" || name == "up" || recorded[name] {
		return true
	}
	if _, ok := catalogue.Lookup(name); ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if f, ok := catalogue.Lookup(strings.TrimSuffix(name, suffix)); ok && f.Type == catalogue.Histogram && strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// TestDashboardsReadOnlyKnownMetrics fails on a metric name in a committed
// dashboard that is neither in the catalogue nor recorded by the alert pack.
func TestDashboardsReadOnlyKnownMetrics(t *testing.T) {
	committed, _ := filepath.Glob("*.json")
	if len(committed) != 5 {
		t.Fatalf("%d dashboards committed, want 5", len(committed))
	}
	read := map[string]bool{}
	for _, name := range committed {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := Queries(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			names := MetricNames(q.Expr)
			if len(names) == 0 {
				t.Errorf("%s: %s %q %s reads no metric: %s", name, q.Kind, q.Panel, q.RefID, q.Expr)
			}
			for _, m := range names {
				read[m] = true
				if !allowedName(m) {
					t.Errorf("%s: %s %q %s reads %s, which is neither catalogued nor recorded by the alert pack", name, q.Kind, q.Panel, q.RefID, m)
				}
			}
		}
	}
	// The dashboards read most of the catalogue: a family dropped from every
	// panel by mistake shows here.
	if len(read) < 50 {
		t.Errorf("the dashboards read %d metric names, want at least 50", len(read))
	}
}

// TestMetricNames checks the name extraction the test above relies on,
// including names it must catch.
func TestMetricNames(t *testing.T) {
	cases := map[string][]string{
		`sum by (account, table) (rate(dynamodb_bogus_total{table=~"$table", x="a{b}"}[$__rate_interval])) > 0.5`: {"dynamodb_bogus_total"},
		`a * on (x, y) group_left b offset 1h or vector(0) and time() - c unless 1e-05 * d[5m:1m]`:                {"a", "b", "c", "d"},
		`label_replace(up{job="x"}, "dst", "$1", "src", "(.*)") * ignoring (mode) group_left dynamodb:x:rate`:     {"dynamodb:x:rate", "up"},
		`ALERTS{alertstate="firing"}`:                                {"ALERTS"},
		`histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))`: {"x_bucket"},
	}
	for expr, want := range cases {
		if got := MetricNames(expr); !reflect.DeepEqual(got, want) {
			t.Errorf("MetricNames(%s) = %v, want %v", expr, got, want)
		}
	}
	if allowedName("dynamodb_bogus_total") || allowedName("node_up") || allowedName("dynamodb:x:rate") || allowedName("dynamodb_items_bucket") {
		t.Error("allowedName accepts a name that is neither catalogued nor recorded")
	}
	if !allowedName(catalogue.TTLLiveItemRemainingLifetime+"_bucket") || !allowedName("dynamodb:ttl_deleted_items:rate1h") {
		t.Error("allowedName refuses a histogram series or a recorded series")
	}
}

// TestUnrecordedSeriesFailsGeneration: a recorded series the pack no longer
// records makes generation fail instead of leaving a blank panel.
func TestUnrecordedSeriesFailsGeneration(t *testing.T) {
	rec("dynamodb:renamed_away:rate")
	defer delete(usedRecords, "dynamodb:renamed_away:rate")
	if _, err := Generate(); err == nil || !strings.Contains(err.Error(), "dynamodb:renamed_away:rate") {
		t.Fatalf("Generate() error = %v, want one naming dynamodb:renamed_away:rate", err)
	}
	if param("DynamoDBNoSuchAlert", "x"); len(problems) == 0 {
		t.Fatal("param on an unknown alert reports no problem")
	}
}

// TestEveryAlertHasAPanel: every alert of the pack has a panel titled with
// its name and its fixed ID on the alerts dashboard, and a line in
// panels.md with the panel's path.
func TestEveryAlertHasAPanel(t *testing.T) {
	d := generated(t)["alerts.json"]
	byTitle := map[string]float64{}
	for _, p := range panelsOf(d) {
		byTitle[p["title"].(string)] = p["id"].(float64)
	}
	md, err := os.ReadFile("panels.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			n++
			id, ok := byTitle[r.Alert]
			if !ok {
				t.Errorf("%s has no panel on the alerts dashboard", r.Alert)
				continue
			}
			if uint32(id) != AlertPanelID(r.Alert) {
				t.Errorf("%s: panel ID %v, want %d", r.Alert, id, AlertPanelID(r.Alert))
			}
			line := fmt.Sprintf("| `%s` | %d | `%s` |", r.Alert, AlertPanelID(r.Alert), AlertPanelPath(r.Alert))
			if !strings.Contains(string(md), line) {
				t.Errorf("panels.md lacks %s", line)
			}
		}
	}
	if n < 18 || len(byTitle) != n {
		t.Errorf("%d alerts in the pack, %d panels on the alerts dashboard", n, len(byTitle))
	}
}

// TestAlertPanelIDsAreStable pins the derivation of panel IDs from alert
// names: runbooks link to these IDs, so changing it breaks every link.
func TestAlertPanelIDsAreStable(t *testing.T) {
	for alert, want := range map[string]uint32{"DynamoDBHotPartition": 483702, "DynamoDBTTLDeletingLiveData": 290253} {
		if got := AlertPanelID(alert); got != want {
			t.Errorf("AlertPanelID(%s) = %d, want %d", alert, got, want)
		}
	}
	if got, want := AlertPanelPath("DynamoDBHotPartition"), "/d/dynamodb-alerts?viewPanel=483702"; got != want {
		t.Errorf("AlertPanelPath = %q, want %q", got, want)
	}
}

// viewPanelLink finds links to the alerts dashboard's panels.
var viewPanelLink = regexp.MustCompile(`/d/` + AlertsUID + `\?viewPanel=(\d+)`)

// TestRunbookLinksPointAtAlertPanels: every runbook links its own alert's
// panel on the alerts dashboard (the line RunbookLine gives).
func TestRunbookLinksPointAtAlertPanels(t *testing.T) {
	var missing []string
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join("..", "docs", "runbooks", r.Alert+".md"))
			if err != nil {
				t.Errorf("runbook of %s: %v", r.Alert, err)
				continue
			}
			links := viewPanelLink.FindAllStringSubmatch(string(b), -1)
			if len(links) == 0 {
				missing = append(missing, r.Alert)
			}
			for _, l := range links {
				if l[1] != strconv.FormatUint(uint64(AlertPanelID(r.Alert)), 10) {
					t.Errorf("runbook of %s links panel %s, want %d (%s)", r.Alert, l[1], AlertPanelID(r.Alert), AlertPanelPath(r.Alert))
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("runbooks without a link to their panel (add the line dashboards.RunbookLine gives under the header): %v", missing)
	}
}

// alertRow is a row of the failure-mode table in alerts/README.md that names
// an alert of the pack.
var alertRow = regexp.MustCompile("(?m)^\\| [^|]+ \\| `(DynamoDB\\w+)` \\|.*$")

// TestFailureModeTableLinksAlertPanels: each row of the failure mode → alert
// → runbook → dashboard panel table in alerts/README.md links its alert's
// own panel, and every alert of the pack has a row.
func TestFailureModeTableLinksAlertPanels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "alerts", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Failure mode → alert → runbook → dashboard panel")
	end := strings.Index(text, "## Cross-talk matrix")
	if start < 0 || end < start {
		t.Fatal("alerts/README.md: no failure-mode table before the cross-talk matrix")
	}
	rows := map[string]bool{}
	for _, m := range alertRow.FindAllStringSubmatch(text[start:end], -1) {
		alert, row := m[1], m[0]
		rows[alert] = true
		links := viewPanelLink.FindAllStringSubmatch(row, -1)
		if len(links) == 0 {
			t.Errorf("failure-mode row of %s links no panel, want %s", alert, AlertPanelPath(alert))
		}
		for _, l := range links {
			if l[1] != strconv.FormatUint(uint64(AlertPanelID(alert)), 10) {
				t.Errorf("failure-mode row of %s links panel %s, want %d", alert, l[1], AlertPanelID(alert))
			}
		}
	}
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert != "" && !rows[r.Alert] {
				t.Errorf("alert %s has no row in the failure-mode table of alerts/README.md", r.Alert)
			}
		}
	}
}
