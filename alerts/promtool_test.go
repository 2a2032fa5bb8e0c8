package alerts

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// ruleTestFile is the part of a promtool rule test file the coverage check
// reads.
type ruleTestFile struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		AlertRuleTests []struct {
			EvalTime  string `yaml:"eval_time"`
			Alertname string `yaml:"alertname"`
			ExpAlerts []struct {
				ExpLabels      map[string]string `yaml:"exp_labels"`
				ExpAnnotations map[string]string `yaml:"exp_annotations"`
			} `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
		PromQLExprTests []struct {
			Expr string `yaml:"expr"`
		} `yaml:"promql_expr_test"`
	} `yaml:"tests"`
}

// testFileOf names the promtool test file of a group: capacity.rules.yml is
// tested by tests/capacity.test.yml.
func testFileOf(g Group) string {
	return filepath.Join("tests", strings.TrimSuffix(g.File, ".rules.yml")+".test.yml")
}

// TestPromtoolTestRules runs promtool test rules on every test file in
// alerts/tests: the committed rule files, fed series shaped like the
// exporter's output, must fire and stay silent exactly as the tests expect.
func TestPromtoolTestRules(t *testing.T) {
	promtool := testtools.Promtool(t)
	files, err := filepath.Glob(filepath.Join("tests", "*.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no tests/*.test.yml")
	}
	for _, g := range Pack() {
		if _, err := os.Stat(testFileOf(g)); err != nil {
			t.Errorf("group %s has no test file: %v", g.Name, err)
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res := testtools.RunCommand(t, "", promtool, "test", "rules", f)
			if res.ExitCode != 0 {
				t.Errorf("promtool test rules %s (exit %d):\n%s%s", f, res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}

// TestEveryRuleIsTested fails when an alert of the pack has no firing test
// (an alert_rule_test expecting it, with its severity and its summary,
// description and runbook_url asserted) or no near-miss (an alert_rule_test
// of that alert expecting nothing), or when a recording rule's value is never
// checked by a promql_expr_test.
func TestEveryRuleIsTested(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("tests", "*.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	fires := map[string]int{}
	misses := map[string]int{}
	var exprs []string
	rules := map[string]Rule{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert != "" {
				rules[r.Alert] = r
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tf ruleTestFile
		if err := yaml.Unmarshal(b, &tf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tc := range tf.Tests {
			for _, e := range tc.PromQLExprTests {
				exprs = append(exprs, e.Expr)
			}
			for _, a := range tc.AlertRuleTests {
				if len(a.ExpAlerts) == 0 {
					misses[a.Alertname]++
					continue
				}
				r, ok := rules[a.Alertname]
				if !ok {
					t.Errorf("%s: %s at %s: not an alert of the pack", f, a.Alertname, a.EvalTime)
					continue
				}
				complete := true
				for _, exp := range a.ExpAlerts {
					an := exp.ExpAnnotations
					// An alert on up carries the scrape target's job
					// and instance instead of account and region.
					where := exp.ExpLabels["account"] != "" && exp.ExpLabels["region"] != ""
					if readsOnlyUp.MatchString(r.Expr) {
						where = exp.ExpLabels["job"] != "" && exp.ExpLabels["instance"] != ""
					}
					if exp.ExpLabels["severity"] != r.Severity || !where ||
						an["summary"] != r.Summary || an["description"] == "" || !strings.HasSuffix(an["runbook_url"], "/"+r.Alert+".md") {
						t.Errorf("%s: %s at %s: expected alert without its severity, account, region, summary, description and runbook_url: %+v",
							f, a.Alertname, a.EvalTime, exp)
						complete = false
					}
				}
				if complete {
					fires[a.Alertname]++
				}
			}
		}
	}
	var names []string
	for n := range rules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if fires[n] == 0 {
			t.Errorf("alert %s has no firing test (alert_rule_test expecting it, with labels and annotations)", n)
		}
		if misses[n] == 0 {
			t.Errorf("alert %s has no near-miss test (alert_rule_test of it expecting no alert)", n)
		}
		t.Logf("%s: %d firing evaluations, %d near-miss evaluations", n, fires[n], misses[n])
	}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Record == "" {
				continue
			}
			tested := false
			for _, e := range exprs {
				if strings.Contains(e, r.Record) {
					tested = true
					break
				}
			}
			if !tested {
				t.Errorf("recording rule %s has no promql_expr_test", r.Record)
			}
		}
	}
}
