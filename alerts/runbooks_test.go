package alerts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
				"**Dashboard**: [dashboards/](../../dashboards): panel: " + r.Alert + " (to come)",
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
