package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// The markers between which -o writes the figures.
const (
	beginMarker = "<!-- bench:begin -->"
	endMarker   = "<!-- bench:end -->"
)

// text is one size's figures for the terminal.
func (r result) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d tables (2 GSIs each)\n", r.tables)
	fmt.Fprintf(&b, "  simulated account: built in %s, %s heap\n", r.simBuild.Round(time.Millisecond), mib(r.simHeap))
	fmt.Fprintf(&b, "  first full data: %s (%s)\n", r.firstData.Round(time.Second), r.firstCycles())
	fmt.Fprintf(&b, "  RSS: %s after the first full data (peak %s), %s steady, %s after scrape bursts, peak %s; Go heap in use %s steady, %s at most\n",
		mib(r.rssFirst), mib(r.hwmFirst), mib(r.rssSteady), mib(r.rssBurst), mib(r.hwm), mib(uint64(r.heapSteady)), mib(uint64(r.heapPeak)))
	fmt.Fprintf(&b, "  CPU: %s per minute of collection\n", r.cpuPerMinute.Round(time.Millisecond))
	for _, l := range r.lat {
		fmt.Fprintf(&b, "  /metrics %-11s median %8s p99 %8s  %s bytes\n", l.format, l.median.Round(10*time.Microsecond), l.p99.Round(10*time.Microsecond), thousands(int64(l.bytes)))
	}
	fmt.Fprintf(&b, "  series: %s, %s per table\n", thousands(int64(r.series.total)), num(r.seriesPerTable()))
	c := r.cw
	fmt.Fprintf(&b, "  CloudWatch: %s metrics requested per hour (%s counted over %s + %s capacity refresh from %s), %s per table-hour; %s GetMetricData and %s ListMetrics requests per hour (+ %s refresh requests); $%.2f per 30 days; first fetch %s metrics in %s requests\n",
		num(c.metricsPerHour()), num(c.metrics), c.window, num(c.refreshMetrics), c.refreshSource, num(c.metricsPerTableHour(r.tables)),
		num(c.requests), num(c.listMetrics), num(c.refreshRequests), c.monthlyCost(), thousands(int64(c.firstFetchMetrics)), thousands(int64(c.firstFetchRequests)))
	var acts []string
	for _, a := range sortedActions(r.actions) {
		acts = append(acts, fmt.Sprintf("%s %s", a, num(r.actions[a])))
	}
	fmt.Fprintf(&b, "  control-plane calls per hour: %s\n", strings.Join(acts, ", "))
	fmt.Fprintf(&b, "  TTL sampler: %s Scan calls and %s read units per hour\n", num(r.scansPerHour), num(r.ttlReadUnitsPerHour))
	return b.String()
}

// firstCycles lists each collector's first successful cycle, slowest first.
func (r result) firstCycles() string {
	names := make([]string, 0, len(r.firstSuccess))
	for c := range r.firstSuccess {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := r.firstSuccess[names[i]], r.firstSuccess[names[j]]
		if a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, c := range names {
		parts = append(parts, fmt.Sprintf("%s %s", c, r.firstSuccess[c].Round(time.Second)))
	}
	return strings.Join(parts, ", ")
}

// machine describes the machine the bench runs on.
func machine() string {
	return fmt.Sprintf("%s, %d CPUs, %s/%s, %s", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}

// figures returns the Markdown section -o writes between the markers.
func figures(o options, rs []result, vs []verdict, host string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n<!-- Written by cmd/bench (-o): edit the bench, not these lines. -->\n\n", beginMarker)
	fmt.Fprintf(&b, "Measured by `%s` on %s (%s UTC), with %s added to every AWS call, a quiet window of %s, %d scrapers × %d scrapes per format, history %s.\n\n",
		o.args, host, time.Now().UTC().Format("2006-01-02 15:04"), o.latency, o.window, o.concurrency, o.scrapes, o.history)

	row := func(label string, cell func(r result) string) {
		fmt.Fprintf(&b, "| %s |", label)
		for _, r := range rs {
			fmt.Fprintf(&b, " %s |", cell(r))
		}
		b.WriteString("\n")
	}
	head := func(first string) {
		fmt.Fprintf(&b, "| %s |", first)
		for _, r := range rs {
			fmt.Fprintf(&b, " %s tables |", thousands(int64(r.tables)))
		}
		fmt.Fprintf(&b, "\n|---|%s\n", strings.Repeat("---|", len(rs)))
	}

	b.WriteString("### Targets\n\n")
	fmt.Fprintf(&b, "| target |")
	for _, r := range rs {
		fmt.Fprintf(&b, " %s tables |", thousands(int64(r.tables)))
	}
	fmt.Fprintf(&b, "\n|---|%s\n", strings.Repeat("---|", len(rs)))
	for _, t := range targets {
		fmt.Fprintf(&b, "| %s ≤ %s %s |", t.name, num(t.max), t.unit)
		for _, r := range rs {
			i := slices.IndexFunc(vs, func(v verdict) bool { return v.name == t.name && v.tables == r.tables })
			if i < 0 {
				b.WriteString(" – |")
				continue
			}
			v := vs[i]
			cell := num(v.got)
			if v.missed() {
				cell = fmt.Sprintf("**%s: missed by %s**", num(v.got), num(v.got-v.max))
			}
			if v.detail != "" && !strings.HasPrefix(v.detail, "over budget") {
				cell += " (" + strings.TrimPrefix(v.detail, "worst: ") + ")"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}

	b.WriteString("\n### Figures per size\n\n")
	head("figure")
	row("time to first full data (every collector)", func(r result) string { return r.firstData.Round(time.Second).String() })
	row("first cycle of each collector", func(r result) string { return r.firstCycles() })
	for i, f := range formats {
		row("/metrics median / p99, "+f.name+" (ms)", func(r result) string {
			if i >= len(r.lat) {
				return "–"
			}
			return num(msf(r.lat[i].median)) + " / " + num(msf(r.lat[i].p99))
		})
	}
	row("bytes per scrape: text, gzip, OpenMetrics, protobuf", func(r result) string {
		var s []string
		for _, l := range r.lat {
			s = append(s, thousands(int64(l.bytes)))
		}
		return strings.Join(s, ", ")
	})
	row("series (with a table label, per table)", func(r result) string {
		return fmt.Sprintf("%s (%s)", thousands(int64(r.series.total)), num(r.seriesPerTable()))
	})
	row("RSS: first full data, steady, after scrape bursts", func(r result) string {
		return fmt.Sprintf("%s, %s, %s", mib(r.rssFirst), mib(r.rssSteady), mib(r.rssBurst))
	})
	row("RSS peak (VmHWM): at first full data, at the end", func(r result) string {
		return fmt.Sprintf("%s, %s", mib(r.hwmFirst), mib(r.hwm))
	})
	row("Go heap in use: steady, most sampled", func(r result) string {
		return fmt.Sprintf("%s, %s", mib(uint64(r.heapSteady)), mib(uint64(r.heapPeak)))
	})
	row("CPU per minute of collection", func(r result) string { return r.cpuPerMinute.Round(time.Millisecond).String() })
	row("CloudWatch metrics requested per hour (per table-hour)", func(r result) string {
		return fmt.Sprintf("%s (%s)", num(r.cw.metricsPerHour()), num(r.cw.metricsPerTableHour(r.tables)))
	})
	row("… of which the hourly capacity refresh", func(r result) string { return num(r.cw.refreshMetrics) })
	row("GetMetricData requests per hour", func(r result) string { return num(r.cw.requests + r.cw.refreshRequests) })
	row("ListMetrics requests per hour", func(r result) string { return num(r.cw.listMetrics) })
	row("CloudWatch cost per 30 days at list price (GetMetricData + ListMetrics)", func(r result) string {
		return fmt.Sprintf("$%.2f ($%.2f + $%.2f)", r.cw.monthlyCost(),
			monthly(r.cw.metricsPerHour(), pricePerThousandMetrics), monthly(r.cw.listMetrics, pricePerThousandRequests))
	})
	row("first history fetch: metrics in requests", func(r result) string {
		return fmt.Sprintf("%s in %s", thousands(int64(r.cw.firstFetchMetrics)), thousands(int64(r.cw.firstFetchRequests)))
	})
	actions := map[string]bool{}
	for _, r := range rs {
		for a := range r.actions {
			actions[a] = true
		}
	}
	var names []string
	for a := range actions {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		row(a+" calls per hour", func(r result) string { return num(r.actions[a]) })
	}
	row("TTL sampler: Scan calls per hour", func(r result) string { return num(r.scansPerHour) })
	row("TTL sampler: read units per hour", func(r result) string { return num(r.ttlReadUnitsPerHour) })
	row("simulated account: build time, heap", func(r result) string {
		return fmt.Sprintf("%s, %s", r.simBuild.Round(100*time.Millisecond), mib(r.simHeap))
	})

	b.WriteString("\n### Series per table, by family\n\n")
	b.WriteString("For each family with a `table` label: the budget (cmd/bench/budget.go), then, per size, the most series one table has (the mean per table in parentheses: modes are mixed, TTL on a tenth of the tables).\n\n")
	fmt.Fprintf(&b, "| family | budget |")
	for _, r := range rs {
		fmt.Fprintf(&b, " %s tables |", thousands(int64(r.tables)))
	}
	fmt.Fprintf(&b, " why |\n|---|---|%s---|\n", strings.Repeat("---|", len(rs)))
	cell := func(r result, family string, budget int) string {
		got := r.series.maxPerTable[family]
		s := fmt.Sprintf("%d (%s)", got, num(r.familyPerTable(family)))
		if got > budget {
			s = "**" + s + "**"
		}
		return s
	}
	for _, bu := range seriesBudget {
		fmt.Fprintf(&b, "| `%s` | %d |", bu.family, bu.perTable)
		for _, r := range rs {
			fmt.Fprintf(&b, " %s |", cell(r, bu.family, bu.perTable))
		}
		fmt.Fprintf(&b, " %s |\n", bu.why)
	}
	extra := map[string]bool{}
	for _, r := range rs {
		for _, f := range r.unbudgeted() {
			extra[f] = true
		}
	}
	var extras []string
	for f := range extra {
		extras = append(extras, f)
	}
	sort.Strings(extras)
	for _, f := range extras {
		fmt.Fprintf(&b, "| `%s` | **none** |", f)
		for _, r := range rs {
			fmt.Fprintf(&b, " %s |", cell(r, f, 0))
		}
		b.WriteString(" not in the budget |\n")
	}
	fmt.Fprintf(&b, "| total | %d |", budgetTotal())
	for _, r := range rs {
		fmt.Fprintf(&b, " %d (%s) |", r.maxSeriesOfATable(), num(r.seriesPerTable()))
	}
	b.WriteString(" |\n\n")
	b.WriteString(endMarker + "\n")
	return b.String()
}

// writeFigures puts section in place of what lies between the markers of
// the file at path, keeping everything else; a file that does not exist is
// created with the section alone.
func writeFigures(path, section string) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return os.WriteFile(path, []byte(section), 0o644)
	}
	if err != nil {
		return err
	}
	out, err := replaceSection(string(old), section)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// replaceSection replaces the text from beginMarker to endMarker (both
// included, with the end marker's line break) by section.
func replaceSection(doc, section string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	switch {
	case i < 0 || j < 0:
		return "", fmt.Errorf("no figures section: put %s and %s on lines of their own where the figures go", beginMarker, endMarker)
	case j < i:
		return "", fmt.Errorf("%s comes before %s", endMarker, beginMarker)
	case strings.Count(doc, beginMarker) > 1 || strings.Count(doc, endMarker) > 1:
		return "", fmt.Errorf("more than one figures section")
	}
	end := j + len(endMarker)
	if end < len(doc) && doc[end] == '\n' {
		end++
	}
	return doc[:i] + section + doc[end:], nil
}
