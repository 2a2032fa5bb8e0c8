package dashboards

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Query is one PromQL expression of a generated dashboard, where it sits
// and how Grafana runs it.
type Query struct {
	// Dashboard is the dashboard's UID.
	Dashboard string
	// Kind is "panel", "annotation" or "variable".
	Kind string
	// PanelID and Panel identify a panel's query (Panel is the annotation's
	// or the variable's name otherwise).
	PanelID int
	Panel   string
	// RefID is the query's reference within the panel.
	RefID string
	// Expr is the PromQL as written, with Grafana variables ($table). For a
	// variable's label_values(SELECTOR, label), Expr is SELECTOR.
	Expr string
	// Instant is true for a query of the value at the end of the range.
	Instant bool
}

// jsonPanel is the part of a panel the queries are read from.
type jsonPanel struct {
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	Targets []struct {
		RefID   string `json:"refId"`
		Expr    string `json:"expr"`
		Instant bool   `json:"instant"`
	} `json:"targets"`
	Panels []jsonPanel `json:"panels"`
}

type jsonDashboard struct {
	UID    string      `json:"uid"`
	Panels []jsonPanel `json:"panels"`
	// Annotations and Templating hold queries too.
	Annotations struct {
		List []struct {
			Name       string `json:"name"`
			Expr       string `json:"expr"`
			Datasource struct {
				Type string `json:"type"`
			} `json:"datasource"`
		} `json:"list"`
	} `json:"annotations"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

// labelValues matches a variable's label_values(SELECTOR, label).
var labelValues = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// Queries returns every query of a generated dashboard (its JSON): panel
// targets (rows' panels included), annotation queries and variable queries.
func Queries(dashboardJSON []byte) ([]Query, error) {
	var d jsonDashboard
	if err := json.Unmarshal(dashboardJSON, &d); err != nil {
		return nil, fmt.Errorf("reading a dashboard: %w", err)
	}
	var out []Query
	var walk func(ps []jsonPanel)
	walk = func(ps []jsonPanel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				out = append(out, Query{Dashboard: d.UID, Kind: "panel", PanelID: p.ID, Panel: p.Title, RefID: t.RefID, Expr: t.Expr, Instant: t.Instant})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, a := range d.Annotations.List {
		if a.Datasource.Type != "prometheus" {
			continue // Grafana's built-in annotations
		}
		out = append(out, Query{Dashboard: d.UID, Kind: "annotation", Panel: a.Name, RefID: "Anno", Expr: a.Expr})
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			return nil, fmt.Errorf("dashboard %s: variable %s: %q is not label_values(SELECTOR, label)", d.UID, v.Name, v.Definition)
		}
		out = append(out, Query{Dashboard: d.UID, Kind: "variable", Panel: v.Name, Expr: m[1], Instant: true})
	}
	return out, nil
}

// Files returns the generated dashboards (JSON) by file name.
func Files() (map[string][]byte, error) {
	all, err := Generate()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for n, b := range all {
		if strings.HasSuffix(n, ".json") {
			out[n] = b
		}
	}
	return out, nil
}

var (
	quoted     = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")
	braces     = regexp.MustCompile(`\{[^{}]*\}`)
	brackets   = regexp.MustCompile(`\[[^\[\]]*\]`)
	labelLists = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	identifier = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	keywords   = map[string]bool{"and": true, "or": true, "unless": true, "by": true, "without": true, "on": true, "ignoring": true,
		"group_left": true, "group_right": true, "offset": true, "bool": true, "inf": true, "nan": true, "atan2": true}
)

// MetricNames returns the metric names a PromQL expression reads, sorted and
// without duplicates: the identifiers that are neither functions, keywords,
// label names nor parts of numbers and durations. Strings, label matchers,
// ranges and label lists are set aside first.
func MetricNames(expr string) []string {
	s := quoted.ReplaceAllString(expr, `""`)
	s = braces.ReplaceAllString(s, " ")
	s = brackets.ReplaceAllString(s, " ")
	s = labelLists.ReplaceAllString(s, " ")
	seen := map[string]bool{}
	for _, loc := range identifier.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if keywords[strings.ToLower(name)] {
			continue
		}
		if loc[0] > 0 {
			if prev := s[loc[0]-1]; prev >= '0' && prev <= '9' || prev == '.' || prev == '$' {
				continue // 1e-05, 1h, $variable
			}
		}
		if strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") {
			continue // a function
		}
		seen[name] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
