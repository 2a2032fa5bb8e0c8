package alerts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// TestRunbooksFollowTheAlerts checks each runbook against its alert: the
// sections every runbook has, the severity, `for` and parameters it states
// (a runbook promises a detection delay built on them, so it must change
// when they do), and the dashboard line; and that no runbook is left for an
// alert the pack no longer has.
func TestRunbooksFollowTheAlerts(t *testing.T) {
	dir := filepath.Join("..", "docs", "runbooks")
	alerts := map[string]bool{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts[r.Alert] = true
			b, err := os.ReadFile(filepath.Join(dir, r.Alert+".md"))
			if err != nil {
				t.Errorf("%s: %v", r.Alert, err)
				continue
			}
			text := string(b)
			forText := r.For
			if forText == "" {
				forText = "none"
			}
			for _, want := range []string{
				"# " + r.Alert + "\n",
				"**Severity** " + r.Severity + " ",
				"**for** " + forText + " ",
				"## What it means", "## Detection delay", "## Confirm", "## What to do", "## What not to do",
				"**Dashboard** panel `" + r.Alert + "` of *DynamoDB alerts* (`dashboards/alerts.json`): `<grafana>/d/dynamodb-alerts?viewPanel=",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("runbook %s lacks %q", r.Alert, want)
				}
			}
			header, _, _ := strings.Cut(text, "## What it means")
			for _, p := range r.Params {
				if !strings.Contains(header, "`"+p.Name+"` ("+p.Default+")") {
					t.Errorf("runbook %s: its header does not state parameter %s with its default %s", r.Alert, p.Name, p.Default)
				}
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".md")
		if name != "README" && !alerts[name] {
			t.Errorf("docs/runbooks/%s is not the runbook of an alert of the pack", e.Name())
		}
	}
}

// runbookQueries returns the PromQL lines of the ```promql blocks of every
// runbook, by runbook.
func runbookQueries(t *testing.T) map[string][]string {
	t.Helper()
	dir := filepath.Join("..", "docs", "runbooks")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		in := false
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case l == "```promql":
				in = true
			case l == "```":
				in = false
			case in && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"):
				out[e.Name()] = append(out[e.Name()], l)
			}
		}
	}
	return out
}

// TestRunbookQueriesParse runs every query a runbook tells the on-call to
// paste through promtool (as recording rules) and checks that it reads only
// catalogued families and the pack's recorded series.
func TestRunbookQueriesParse(t *testing.T) {
	recorded := map[string]bool{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Record != "" {
				recorded[r.Record] = true
			}
		}
	}
	queries := runbookQueries(t)
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: runbook-queries\n    rules:\n")
	n := 0
	for name, qs := range queries {
		for _, q := range qs {
			expr, _, _ := strings.Cut(q, " # ")
			for _, m := range metricName.FindAllString(stringLiteral.ReplaceAllString(expr, `""`), -1) {
				if recorded[m] {
					continue
				}
				base := m
				for _, suffix := range []string{"_bucket", "_count", "_sum"} {
					if b, ok := strings.CutSuffix(m, suffix); ok {
						if _, known := catalogue.Lookup(b); known {
							base = b
						}
					}
				}
				if _, ok := catalogue.Lookup(base); !ok {
					t.Errorf("%s: %s is neither catalogued nor recorded by the pack: %s", name, m, q)
				}
			}
			quoted, err := yaml.Marshal(strings.TrimSpace(expr))
			if err != nil {
				t.Fatal(err)
			}
			n++
			fmt.Fprintf(&rules, "      - record: runbook:query_%d:check\n        expr: %s", n, quoted)
		}
	}
	if n < 40 {
		t.Fatalf("only %d runbook queries found: the ```promql blocks were not read", n)
	}
	promtool := testtools.Promtool(t)
	path := filepath.Join(t.TempDir(), "queries.yml")
	if err := os.WriteFile(path, []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := testtools.RunCommand(t, "", promtool, "check", "rules", path); res.ExitCode != 0 {
		t.Errorf("promtool check rules on the runbooks' queries:\n%s%s", res.Stdout, res.Stderr)
	}
}
