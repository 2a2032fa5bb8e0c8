package alerts

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

var update = flag.Bool("update", false, "rewrite alerts/rules from the pack's defaults")

// TestCommittedRulesAreRendered keeps alerts/rules equal to the pack rendered
// with the defaults: the committed files are generated, never hand-edited.
func TestCommittedRulesAreRendered(t *testing.T) {
	files, err := Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Name] = true
		path := filepath.Join("rules", f.Name)
		if *update {
			if err := os.WriteFile(path, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run: go generate ./alerts)", err)
		}
		if !bytes.Equal(got, f.Content) {
			t.Errorf("%s differs from the pack's rendering (run: go generate ./alerts)", path)
		}
	}
	entries, err := os.ReadDir("rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("rules/%s is not rendered by the pack: remove it", e.Name())
		}
	}
}

// TestPromtoolChecksRules runs promtool check rules on the shipped files and
// on a rendering with a selector and overrides.
func TestPromtoolChecksRules(t *testing.T) {
	promtool := testtools.Promtool(t)
	cfg, err := ParseConfig([]byte(`
selector: job="dynamodb", env=~"prod|staging"
params: {rate_window: 15m}
alerts:
  DynamoDBHotPartition: {for: 20m, severity: critical, params: {min_throttles_per_second: 5}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*Config{"defaults": nil, "tuned": cfg} {
		files, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		args := []string{"check", "rules", "--lint=all", "--lint-fatal"}
		for _, f := range files {
			p := filepath.Join(dir, f.Name)
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, p)
		}
		res := testtools.RunCommand(t, "", promtool, args...)
		if res.ExitCode != 0 {
			t.Errorf("%s: promtool check rules failed:\n%s%s", name, res.Stdout, res.Stderr)
		}
	}
}

// metricName matches the metric names in an expression: the exporter's
// families (with histogram suffixes) and the pack's recorded series.
// stringLiteral is a double-quoted PromQL string (a label value such as
// job=~".*dynamodb.*" is no metric name).
var stringLiteral = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

var metricName = regexp.MustCompile(`\b(dynamodb[a-z0-9_]*(?::[a-z0-9_]+:[a-z0-9_]+)?)\b`)

// TestRulesUseOnlyCataloguedFamilies fails when an expression reads a metric
// the exporter does not expose (a typo, or a family renamed in the
// catalogue) or a recorded series the pack does not record before it.
func TestRulesUseOnlyCataloguedFamilies(t *testing.T) {
	recorded := map[string]bool{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			expr, err := expand(r, r.Expr, defaults(r), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metricName.FindAllString(stringLiteral.ReplaceAllString(expr, `""`), -1) {
				if strings.Contains(m, ":") {
					if !recorded[m] {
						t.Errorf("%s%s reads %s, which no earlier recording rule records", r.Alert, r.Record, m)
					}
					continue
				}
				if _, ok := catalogue.Lookup(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")); !ok {
					if _, ok := catalogue.Lookup(m); !ok {
						t.Errorf("%s%s reads %s, which is not in the metric catalogue", r.Alert, r.Record, m)
					}
				}
			}
			if r.Record != "" {
				recorded[r.Record] = true
			}
		}
	}
}

func defaults(r Rule) map[string]string {
	m := map[string]string{}
	for _, p := range r.Params {
		m[p.Name] = p.Default
	}
	return m
}

// readsOnlyUp matches an expression over Prometheus's up series alone.
var readsOnlyUp = regexp.MustCompile(`^\s*up(\[\[[^\]]*\]\]|\{[^}]*\})?\s*==\s*0\s*$`)

// TestEveryAlertIsDocumented requires a runbook per alert, and a severity, a
// summary and a description naming the table where the alert is per table.
func TestEveryAlertIsDocumented(t *testing.T) {
	names := map[string]bool{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			if names[r.Alert] {
				t.Errorf("alert %s defined twice", r.Alert)
			}
			names[r.Alert] = true
			if !strings.HasPrefix(r.Alert, "DynamoDB") {
				t.Errorf("alert %s: names share the DynamoDB prefix", r.Alert)
			}
			if !validSeverity(r.Severity) {
				t.Errorf("alert %s: severity %q", r.Alert, r.Severity)
			}
			if r.Summary == "" || strings.Contains(r.Summary, "{{") || !strings.HasSuffix(r.Summary, ".") {
				t.Errorf("alert %s: the summary is a static sentence ending in a period: %q", r.Alert, r.Summary)
			}
			// An alert on Prometheus's up (a scrape target down) has
			// job and instance, not account and region.
			if readsOnlyUp.MatchString(r.Expr) {
				if !strings.Contains(r.Description, "$labels.job") || !strings.Contains(r.Description, "$labels.instance") {
					t.Errorf("alert %s reads up: the description names the job and instance", r.Alert)
				}
			} else if !strings.Contains(r.Description, "$labels.account") || !strings.Contains(r.Description, "$labels.region") || !strings.Contains(r.Description, "$value") {
				t.Errorf("alert %s: the description names the account and region and quotes the value", r.Alert)
			}
			if _, err := os.Stat(filepath.Join("..", "docs", "runbooks", r.Alert+".md")); err != nil {
				t.Errorf("alert %s has no runbook: %v", r.Alert, err)
			}
		}
	}
}

// TestConfigOverrides checks that every kind of override reaches the
// rendered rules.
func TestConfigOverrides(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
runbook_base_url: https://wiki.example.com/runbooks/
selector: job="dynamodb"
params: {min_monthly_spend_dollars: 500}
alerts:
  DynamoDBHotPartition: {for: 20m, severity: critical, params: {min_throttles_per_second: 5}}
  DynamoDBReadWriteRatioDrift: {disabled: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := RenderOperator(cfg, "pack")
	if err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Kind string
		Spec ruleFile
	}
	if err := yaml.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Kind != "PrometheusRule" || len(obj.Spec.Groups) != len(Pack()) {
		t.Fatalf("kind %q with %d groups", obj.Kind, len(obj.Spec.Groups))
	}
	rules := map[string]renderedRule{}
	for _, g := range obj.Spec.Groups {
		for _, r := range g.Rules {
			rules[r.Alert+r.Record] = r
		}
	}
	hot := rules["DynamoDBHotPartition"]
	if hot.For != "20m" || hot.Labels["severity"] != "critical" || !strings.Contains(hot.Expr, "> 5") {
		t.Errorf("hot partition override not applied: %+v", hot)
	}
	if got := hot.Annotations["runbook_url"]; got != "https://wiki.example.com/runbooks/DynamoDBHotPartition.md" {
		t.Errorf("runbook_url %q", got)
	}
	if _, ok := rules["DynamoDBReadWriteRatioDrift"]; ok {
		t.Error("a disabled alert was rendered")
	}
	if od := rules["DynamoDBOnDemandSustainedWorkload"]; !strings.Contains(od.Expr, ">= 500") {
		t.Errorf("shared parameter not applied:\n%s", od.Expr)
	}
	if tbl := rules["DynamoDBProvisionedThroughputThrottling"]; !strings.Contains(tbl.Expr, `dynamodb_table_info{job="dynamodb", billing_mode="PROVISIONED"}`) {
		t.Errorf("selector not applied:\n%s", tbl.Expr)
	}
}

// TestConfigErrorsNameKeyAndLine feeds bad configurations.
func TestConfigErrorsNameKeyAndLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"alerts:\n  DynamoDBNoSuchAlert: {for: 5m}\n", `alerts.DynamoDBNoSuchAlert (line 2): unknown alert "DynamoDBNoSuchAlert"`},
		{"alerts:\n  DynamoDBHotPartition:\n    for: 5x\n", `alerts.DynamoDBHotPartition.for (line 3): invalid duration "5x"`},
		{"alerts:\n  DynamoDBHotPartition:\n    severity: page\n", `alerts.DynamoDBHotPartition.severity (line 3): severity "page"`},
		{"alerts:\n  DynamoDBHotPartition:\n    params: {max_drift: 1}\n", `alerts.DynamoDBHotPartition.params.max_drift (line 3): alert DynamoDBHotPartition has no parameter "max_drift"`},
		{"alerts:\n  DynamoDBHotPartition:\n    params:\n      min_throttles_per_second: lots\n", `params.min_throttles_per_second (line 4): parameter min_throttles_per_second: "lots" is not a number`},
		{"params:\n  rate_window: soon\n", `params.rate_window (line 2): parameter rate_window: invalid duration "soon"`},
		{"params:\n  no_such: 1\n", `params.no_such (line 2): unknown parameter "no_such"`},
		{"params:\n  exporter_job_matchers: dynamodb\n", `params.exporter_job_matchers (line 2): parameter exporter_job_matchers: "dynamodb" is not a label matcher`},
		{"alerts:\n  DynamoDBExporterDown:\n    params:\n      exporter_job_matchers: ''\n", `params.exporter_job_matchers (line 4): parameter exporter_job_matchers: give at least one label matcher`},
		{"selector: '{job=\"x\"}'\n", `selector (line 1): give the matchers without braces`},
		{"selector: job=x\n", `selector (line 1): "job=x" is not a label matcher`},
		{"runbook: x\n", `runbook (line 1): unknown key "runbook"`},
	} {
		_, err := ParseConfig([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.yaml, err, tc.want)
		}
	}
}

// TestSelectorLeavesUpAlone: the configured selector narrows the exporter's
// metrics, whose account and region labels Prometheus's up does not carry;
// DynamoDBExporterDown selects its targets with exporter_job_matchers alone.
func TestSelectorLeavesUpAlone(t *testing.T) {
	files, err := Render(&Config{Selector: `account="prod"`})
	if err != nil {
		t.Fatal(err)
	}
	var exporterDown, throttling string
	for _, f := range files {
		text := string(f.Content)
		if i := strings.Index(text, "alert: DynamoDBExporterDown\n"); i >= 0 {
			exporterDown = text[i:]
		}
		if i := strings.Index(text, "alert: DynamoDBProvisionedThroughputThrottling\n"); i >= 0 {
			throttling = text[i:]
		}
	}
	if !strings.Contains(exporterDown, `expr: up{job=~".*dynamodb.*"} == 0`) {
		t.Errorf("DynamoDBExporterDown with a configured selector: want up{job=~\".*dynamodb.*\"} == 0, got:\n%.300s", exporterDown)
	}
	if !strings.Contains(throttling, `account="prod"`) {
		t.Errorf("the configured selector is missing from DynamoDBProvisionedThroughputThrottling:\n%.300s", throttling)
	}
}
