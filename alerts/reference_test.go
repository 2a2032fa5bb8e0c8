package alerts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeReferenceIsGenerated keeps the tuning reference in README.md
// equal to Reference(): the parameter table is generated, never copied by
// hand. With -update it rewrites the README between the markers.
func TestReadmeReferenceIsGenerated(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReplaceReference(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(b) {
		t.Error("alerts/README.md: the generated reference differs from alerts.Reference() (run: go generate ./alerts)")
	}
}

// TestReferenceListsEveryParameter checks the generated text against the
// pack: every alert, every parameter with its default and doc.
func TestReferenceListsEveryParameter(t *testing.T) {
	ref := Reference()
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert != "" && !strings.Contains(ref, "| `"+r.Alert+"` | "+g.Name+" | "+r.Severity+" |") {
				t.Errorf("reference lacks the row of alert %s", r.Alert)
			}
			for _, p := range r.Params {
				if !strings.Contains(ref, "| `"+p.Name+"` |") || !strings.Contains(ref, "`"+p.Default+"`") || !strings.Contains(ref, p.Doc) {
					t.Errorf("reference lacks parameter %s of %s%s", p.Name, r.Alert, r.Record)
				}
			}
		}
	}
	if _, err := ReplaceReference("no markers"); err == nil {
		t.Error("ReplaceReference accepted a text without markers")
	}
}

// TestSharedParametersAgree: `params.<name>` sets a parameter for every rule
// that reads it, so rules sharing a name must share its kind, default and
// meaning, or one name would stand for two tunables.
func TestSharedParametersAgree(t *testing.T) {
	seen := map[string]Param{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			for _, p := range r.Params {
				if q, ok := seen[p.Name]; ok && q != p {
					t.Errorf("parameter %s of %s%s differs from another rule's: %+v vs %+v", p.Name, r.Alert, r.Record, p, q)
				}
				seen[p.Name] = p
			}
		}
	}
}

// TestReadmeNamesOnlyAlertsOfThePack checks the hand-written parts of the
// README: every alert it names exists, every alert of the pack has a row in
// the failure-mode table, and every runbook link resolves.
func TestReadmeNamesOnlyAlertsOfThePack(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	alerts := map[string]bool{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts[r.Alert] = true
			}
		}
	}
	for _, m := range regexp.MustCompile("`(DynamoDB[A-Za-z]+)`").FindAllStringSubmatch(readme, -1) {
		if !alerts[m[1]] {
			t.Errorf("README names %s, which is not an alert of the pack", m[1])
		}
	}
	start := strings.Index(readme, "## Failure mode → alert → runbook")
	end := strings.Index(readme, "## Tuning without forking")
	if start < 0 || end < start {
		t.Fatal("README: failure-mode table not found")
	}
	table := readme[start:end]
	for a := range alerts {
		if !strings.Contains(table, "| `"+a+"` |") {
			t.Errorf("failure-mode table has no row for %s", a)
		}
	}
	for _, m := range regexp.MustCompile(`\]\((\.\./docs/runbooks/[A-Za-z]+\.md)\)`).FindAllStringSubmatch(readme, -1) {
		if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
			t.Errorf("README links %s: %v", m[1], err)
		}
	}
}

// TestExampleTuningFile loads examples/tuning.yml and renders it: each of its
// overrides reaches the rules.
func TestExampleTuningFile(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("examples", "tuning.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Selector == "" || len(cfg.Params) == 0 || len(cfg.Alerts) == 0 || cfg.RunbookBaseURL == "" {
		t.Fatalf("the example shows every kind of key: %+v", cfg)
	}
	files, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, f := range files {
		all.Write(f.Content)
	}
	out := all.String()
	for _, want := range []string{
		`job="dynamodb", env=~"prod|staging"`,
		"[15m]",
		"runbook_url: https://wiki.example.com/runbooks/dynamodb/DynamoDBHotPartition.md",
		"[14d] offset 1h",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering of examples/tuning.yml lacks %q", want)
		}
	}
	if strings.Contains(out, "alert: DynamoDBReadWriteRatioDrift") {
		t.Error("examples/tuning.yml disables DynamoDBReadWriteRatioDrift, yet it was rendered")
	}
}
