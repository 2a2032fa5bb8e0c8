package catalogue

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var (
	nameRE  = regexp.MustCompile(`^dynamodb_[a-z0-9_]+$`)
	labelRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

func TestFamiliesFollowConventions(t *testing.T) {
	for _, f := range All() {
		if !nameRE.MatchString(f.Name) {
			t.Errorf("%s: name does not match %s", f.Name, nameRE)
		}
		isCounter := f.Type == Counter
		if hasTotal := strings.HasSuffix(f.Name, "_total"); hasTotal != isCounter {
			t.Errorf("%s: _total suffix must be used on counters and only on counters (type %s)", f.Name, f.Type)
		}
		if f.Unit == "info" && !strings.HasSuffix(f.Name, "_info") {
			t.Errorf("%s: an info family must end in _info", f.Name)
		}
		if strings.HasSuffix(f.Name, "_info") && f.Type != Gauge {
			t.Errorf("%s: an _info family must be a gauge", f.Name)
		}
		if f.Unit == "seconds" && !strings.HasSuffix(f.Name, "_seconds") {
			t.Errorf("%s: a family in seconds must end in _seconds", f.Name)
		}
		if f.Unit == "seconds since epoch" && !strings.HasSuffix(f.Name, "_timestamp_seconds") {
			t.Errorf("%s: a Unix time must end in _timestamp_seconds", f.Name)
		}
		if strings.Contains(f.Name, "_age_") || strings.Contains(f.Name, "_since_") {
			// An age computed at sampling time freezes between samples and
			// goes stale silently; export the time itself (Prometheus
			// naming guidance) and let rules compute time() - x.
			t.Errorf("%s: export a _timestamp_seconds, not an age", f.Name)
		}
		if f.Unit == "bytes" && !strings.HasSuffix(f.Name, "_bytes") {
			t.Errorf("%s: a family in bytes must end in _bytes", f.Name)
		}
		if !strings.HasSuffix(f.Help, ".") || len(f.Help) < 20 {
			t.Errorf("%s: help must be a sentence ending in a period: %q", f.Name, f.Help)
		}
		if f.Source == "" || f.Unit == "" {
			t.Errorf("%s: source and unit are required", f.Name)
		}
		seen := map[string]bool{}
		for _, l := range f.Labels {
			if !labelRE.MatchString(l) || seen[l] {
				t.Errorf("%s: bad or repeated label %q", f.Name, l)
			}
			seen[l] = true
		}
		if !strings.HasPrefix(f.Name, "dynamodb_exporter_") && (len(f.Labels) < 2 || f.Labels[0] != LabelAccount || f.Labels[1] != LabelRegion) {
			t.Errorf("%s: AWS-sourced families must start with the account and region labels", f.Name)
		}
	}
}

func TestDescPanicsOnUnknownName(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Desc of an unknown family did not panic")
		}
	}()
	Desc("dynamodb_no_such_family")
}

// TestDocsUpToDate fails when docs/metrics.md differs from what the catalogue
// generates. Regenerate with: go generate ./catalogue
func TestDocsUpToDate(t *testing.T) {
	got, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatalf("reading docs/metrics.md: %v (run: go generate ./catalogue)", err)
	}
	if string(got) != Markdown() {
		t.Fatal("docs/metrics.md is out of date with catalogue/catalogue.go; run: go generate ./catalogue")
	}
}
