package main

import (
	"bufio"
	"bytes"
	"sort"
	"strings"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// seriesCount is a text exposition's samples, by family.
type seriesCount struct {
	total int
	// byFamily counts every sample; withTable those with a table label.
	byFamily, withTable map[string]int
	// maxPerTable is, by family, the most samples any one table has.
	maxPerTable map[string]int
	// tables are the distinct table label values seen.
	tables int
}

// countSeries reads a text exposition (version 0.0.4).
func countSeries(body []byte) seriesCount {
	c := seriesCount{byFamily: map[string]int{}, withTable: map[string]int{}, maxPerTable: map[string]int{}}
	tables := map[string]bool{}
	perTable := map[[2]string]int{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		c.total++
		name, labels := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
			if line[i] == '{' {
				if j := strings.LastIndexByte(line, '}'); j > i {
					labels = line[i+1 : j]
				}
			}
		}
		fam := familyOf(name)
		c.byFamily[fam]++
		if v, ok := labelValue(labels, catalogue.LabelTable); ok {
			c.withTable[fam]++
			tables[v] = true
			k := [2]string{fam, v}
			perTable[k]++
			c.maxPerTable[fam] = max(c.maxPerTable[fam], perTable[k])
		}
	}
	c.tables = len(tables)
	return c
}

// familyOf maps a sample name to its catalogue family (a histogram's
// _bucket, _sum and _count to the histogram); other names stand for
// themselves.
func familyOf(name string) string {
	if _, ok := catalogue.Lookup(name); ok {
		return name
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if _, ok := catalogue.Lookup(base); ok {
				return base
			}
		}
	}
	return name
}

// labelValue returns the value of label name in a label list such as
// `table="a",index="b"`. Label values in this exporter hold no escaped
// quotes before the table label that matter here: a value is read up to
// its closing quote, honouring backslash escapes.
func labelValue(labels, name string) (string, bool) {
	for labels != "" {
		eq := strings.IndexByte(labels, '=')
		if eq < 0 || eq+1 >= len(labels) || labels[eq+1] != '"' {
			return "", false
		}
		key := strings.TrimSpace(labels[:eq])
		rest := labels[eq+2:]
		var val strings.Builder
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			val.WriteByte(rest[i])
		}
		if key == name {
			return val.String(), true
		}
		if i+1 >= len(rest) {
			return "", false
		}
		labels = strings.TrimPrefix(rest[i+1:], ",")
	}
	return "", false
}

// seriesPerTable is the series with a table label, per table.
func (r result) seriesPerTable() float64 {
	n := 0
	for _, v := range r.series.withTable {
		n += v
	}
	return float64(n) / float64(r.tables)
}

// familyPerTable is one family's series with a table label, per table.
func (r result) familyPerTable(family string) float64 {
	return float64(r.series.withTable[family]) / float64(r.tables)
}

// maxSeriesOfATable is the sum over families of the most series any one
// table has in the family: the series of a table that has every feature.
func (r result) maxSeriesOfATable() int {
	n := 0
	for _, v := range r.series.maxPerTable {
		n += v
	}
	return n
}

// seriesOverBudget is, summed over families, the series the table with the
// most in each family has above the family's budget (all of them for a
// family without one).
func (r result) seriesOverBudget() int {
	budgets := map[string]int{}
	for _, b := range seriesBudget {
		budgets[b.family] = b.perTable
	}
	n := 0
	for f, got := range r.series.maxPerTable {
		n += max(0, got-budgets[f])
	}
	return n
}

// unbudgeted returns the families with a table label that the budget does
// not name, sorted.
func (r result) unbudgeted() []string {
	known := map[string]bool{}
	for _, b := range seriesBudget {
		known[b.family] = true
	}
	var out []string
	for f := range r.series.maxPerTable {
		if !known[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
