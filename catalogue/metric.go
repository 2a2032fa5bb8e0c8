package catalogue

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// constMetric is a constant metric of a catalogued family, as
// prometheus.MustNewConstMetric builds one but compact: it keeps its value
// and its label values joined in one string, and builds the label pairs
// when written, instead of holding a dto.Metric with a dto.LabelPair and
// two strings per label (a snapshot holds about 150,000 of them at 1,000
// tables). One string of the values' bytes (about 60 for a table's series)
// takes less than a string header per label (16 bytes each, and a slice
// header) did: 80 bytes a metric of four labels instead of 112
// (BenchmarkMustMetricLiveHeap). Interning the tuples instead (Go's unique
// package) took more: most tuples belong to one metric, and the intern
// map's nodes cost more than the bytes they save.
type constMetric struct {
	fam   *constFamily
	value float64
	// lvs are the label values in the family's label order, joined by
	// labelSep ("" for a family without labels; the value itself for a
	// family with one).
	lvs string
}

// labelSep separates the label values of a joined tuple: the byte 0xff
// occurs in no valid UTF-8 string, and label values are valid UTF-8
// (validLabelValues), so the tuple splits back into exactly its values.
const labelSep = '\xff'

// joinLabels returns lvs joined by labelSep, in one allocation.
func joinLabels(lvs []string) string {
	switch len(lvs) {
	case 0:
		return ""
	case 1:
		return lvs[0]
	}
	n := len(lvs) - 1
	for _, v := range lvs {
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for i, v := range lvs {
		if i > 0 {
			b.WriteByte(labelSep)
		}
		b.WriteString(v)
	}
	return b.String()
}

// splitTuple writes the values of tuple into out (len(out) of them).
func splitTuple(tuple string, out []string) {
	for i := range len(out) - 1 {
		j := strings.IndexByte(tuple, labelSep)
		out[i], tuple = tuple[:j], tuple[j+1:]
	}
	out[len(out)-1] = tuple
}

// constFamily is what the constant metrics of a catalogued family share.
type constFamily struct {
	desc *prometheus.Desc
	vt   prometheus.ValueType
	// err is the descriptor's error, if it is invalid: MustMetric panics
	// with it.
	err error
	// names are the label names in the order of the label pairs, sorted
	// by name as client_golang writes them; lvs[perm[i]] is the value of
	// names[i].
	names []*string
	perm  []int
}

// famInfo holds the shared part of every catalogued family's metrics.
var famInfo = func() map[string]*constFamily {
	m := make(map[string]*constFamily, len(families))
	for _, f := range families {
		fi := &constFamily{desc: descs[f.Name], vt: ValueType(f.Name), perm: make([]int, len(f.Labels))}
		for i := range fi.perm {
			fi.perm[i] = i
		}
		slices.SortStableFunc(fi.perm, func(a, b int) int { return strings.Compare(f.Labels[a], f.Labels[b]) })
		for _, i := range fi.perm {
			name := f.Labels[i] // not &f.Labels[i]: All hands the slices out
			fi.names = append(fi.names, &name)
		}
		// client_golang's own checks of the descriptor, on label values
		// that pass the others.
		_, fi.err = prometheus.NewConstMetric(fi.desc, fi.vt, 0, make([]string, len(f.Labels))...)
		m[f.Name] = fi
	}
	return m
}()

// MustMetric builds a constant metric of a catalogued family. Label values
// must be given in the family's label order. It panics, as
// prometheus.MustNewConstMetric does, on a wrong number of label values or
// one that is not valid UTF-8, and on a name that is not in the catalogue.
//
// The metric writes exactly what prometheus.MustNewConstMetric's would, but
// holds only its value and label values, and a label pair per label is built
// on each Write: a consumer must not modify what Write sets.
func MustMetric(name string, value float64, labelValues ...string) prometheus.Metric {
	fi, ok := famInfo[name]
	if !ok {
		panic(fmt.Sprintf("catalogue: no family named %q", name))
	}
	if fi.err != nil || !validLabelValues(labelValues, len(fi.perm)) {
		// Panics with client_golang's own error. On a copy: handing
		// labelValues on would make every caller's variadic slice escape
		// to the heap.
		lvs := slices.Clone(labelValues)
		prometheus.MustNewConstMetric(fi.desc, fi.vt, value, lvs...)
		panic(fmt.Sprintf("catalogue: invalid label values %q for %s", lvs, name))
	}
	return &constMetric{fam: fi, value: value, lvs: joinLabels(labelValues)}
}

// validLabelValues checks label values as prometheus.NewConstMetric does:
// their number, and each valid UTF-8.
func validLabelValues(lvs []string, n int) bool {
	if len(lvs) != n {
		return false
	}
	for _, v := range lvs {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// Desc implements prometheus.Metric: the family's descriptor (Desc(name)).
func (m *constMetric) Desc() *prometheus.Desc { return m.fam.desc }

// Write implements prometheus.Metric, setting the fields a client_golang
// constant metric sets. The label pairs point at the family's names and at
// label values split from the metric's joined values, the value at the
// metric's: they must not be modified.
func (m *constMetric) Write(out *dto.Metric) error {
	fi := m.fam
	out.Label = nil
	if n := len(fi.names); n > 0 {
		lvs := make([]string, n)
		splitTuple(m.lvs, lvs)
		pairs := make([]dto.LabelPair, n)
		out.Label = make([]*dto.LabelPair, n)
		for i, name := range fi.names {
			pairs[i].Name = name
			pairs[i].Value = &lvs[fi.perm[i]]
			out.Label[i] = &pairs[i]
		}
	}
	out.Counter, out.Gauge, out.Untyped = nil, nil, nil
	switch fi.vt {
	case prometheus.CounterValue:
		out.Counter = &dto.Counter{Value: &m.value}
	case prometheus.GaugeValue:
		out.Gauge = &dto.Gauge{Value: &m.value}
	default:
		out.Untyped = &dto.Untyped{Value: &m.value}
	}
	return nil
}
