package catalogue

import (
	"fmt"
	"strings"
)

// Markdown renders the catalogue as the docs/metrics.md reference page.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Metrics\n\n")
	b.WriteString("<!-- Generated from catalogue/catalogue.go by `go generate ./catalogue`; do not edit by hand. -->\n\n")
	b.WriteString("Every family the exporter can emit. Families filled from AWS are collected in the\n")
	b.WriteString("background on each collector's own cadence; a scrape of `/metrics` serves the last\n")
	b.WriteString("good snapshot and never calls AWS. `index` is empty for the base table. Besides these, the\n")
	b.WriteString("standard families of the Prometheus Go client are served: " + codeList(StandardPrefixes) + " (prefixes);\n")
	b.WriteString("the `go_` and `process_` ones are read at most once a second, shared by the scrapes in between.\n\n")
	b.WriteString("| Name | Type | Unit | Labels | Source | Description |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, f := range families {
		help := strings.TrimSuffix(f.Help, backgroundNote)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n",
			f.Name, f.Type, f.Unit, codeList(f.Labels), escape(f.Source), escape(help))
	}
	return b.String()
}

func codeList(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = "`" + l + "`"
	}
	return strings.Join(parts, ", ")
}

func escape(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
