// Package replay runs the exporter in fast-forward on simulated time and
// records what Prometheus would have scraped at every step, for
// `promtool tsdb create-blocks-from openmetrics` and `promtool test rules`.
package replay

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// Recorder keeps every sample of every scrape, grouped by family and series.
type Recorder struct {
	families map[string]*family
	steps    []time.Time
}

type family struct {
	name, help string
	typ        dto.MetricType
	series     map[string]*series
}

// series is one sample name with its labels (a histogram contributes one
// series per bucket, plus _count and _sum).
type series struct {
	name    string
	labels  string // rendered {a="b",...}
	values  []float64
	present []bool // by step
}

func (s *series) at(step int) (float64, bool) {
	if step < len(s.present) && s.present[step] {
		return s.values[step], true
	}
	return 0, false
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{families: map[string]*family{}} }

// Steps returns the number of scrapes recorded.
func (r *Recorder) Steps() int { return len(r.steps) }

// add keeps one gathered scrape taken at time at.
func (r *Recorder) add(mfs []*dto.MetricFamily, at time.Time) error {
	step := len(r.steps)
	r.steps = append(r.steps, at)
	for _, mf := range mfs {
		f := r.families[mf.GetName()]
		if f == nil {
			f = &family{name: mf.GetName(), help: mf.GetHelp(), typ: mf.GetType(), series: map[string]*series{}}
			r.families[mf.GetName()] = f
		}
		for _, m := range mf.GetMetric() {
			base := labelPairs(m.GetLabel())
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				f.add(mf.GetName(), render(base), step, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				f.add(mf.GetName(), render(base), step, m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				f.add(mf.GetName(), render(base), step, m.GetUntyped().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				withLE := func(le string) string {
					return render(append(append([][2]string(nil), base...), [2]string{"le", le}))
				}
				for _, b := range h.GetBucket() {
					f.add(mf.GetName()+"_bucket", withLE(formatValue(b.GetUpperBound())), step, float64(b.GetCumulativeCount()))
				}
				f.add(mf.GetName()+"_bucket", withLE("+Inf"), step, float64(h.GetSampleCount()))
				f.add(mf.GetName()+"_count", render(base), step, float64(h.GetSampleCount()))
				f.add(mf.GetName()+"_sum", render(base), step, h.GetSampleSum())
			default:
				return fmt.Errorf("family %s: type %s is not supported by the replay", mf.GetName(), mf.GetType())
			}
		}
	}
	return nil
}

func (f *family) add(name, labels string, step int, v float64) {
	key := name + labels
	s := f.series[key]
	if s == nil {
		s = &series{name: name, labels: labels}
		f.series[key] = s
	}
	for len(s.values) <= step {
		s.values = append(s.values, 0)
		s.present = append(s.present, false)
	}
	s.values[step], s.present[step] = v, true
}

func labelPairs(lps []*dto.LabelPair) [][2]string {
	out := make([][2]string, 0, len(lps)+1)
	for _, lp := range lps {
		out = append(out, [2]string{lp.GetName(), lp.GetValue()})
	}
	return out
}

// render writes label pairs as {a="b",...} in the order given: the client
// library gathers them sorted by name, and a histogram's le comes last.
func render(pairs [][2]string) string {
	if len(pairs) == 0 {
		return ""
	}
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p[0]...)
		b = append(b, '=')
		b = strconv.AppendQuote(b, p[1])
	}
	return string(append(b, '}'))
}

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func (r *Recorder) sortedFamilies() []*family {
	out := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (f *family) sortedSeries() []*series {
	out := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].labels < out[j].labels
	})
	return out
}

// WriteOpenMetrics writes every recorded sample as one OpenMetrics
// exposition with timestamps, the input of
// `promtool tsdb create-blocks-from openmetrics`.
func (r *Recorder) WriteOpenMetrics(w io.Writer) error {
	ew := &errWriter{w: w}
	for _, f := range r.sortedFamilies() {
		name, typ := f.name, "gauge"
		switch f.typ {
		case dto.MetricType_COUNTER:
			typ, name = "counter", strings.TrimSuffix(f.name, "_total")
		case dto.MetricType_HISTOGRAM:
			typ = "histogram"
		case dto.MetricType_UNTYPED:
			typ = "unknown"
		}
		ew.printf("# TYPE %s %s\n", name, typ)
		if f.help != "" {
			ew.printf("# HELP %s %s\n", name, escapeHelp(f.help))
		}
		for _, s := range f.sortedSeries() {
			for step, at := range r.steps {
				if v, ok := s.at(step); ok {
					ew.printf("%s%s %s %s\n", s.name, s.labels, formatValue(v), strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', -1, 64))
				}
			}
		}
	}
	ew.printf("# EOF\n")
	return ew.err
}

// EpochUnit is the catalogue unit of the families whose value is a time,
// as seconds since the Unix epoch.
const EpochUnit = "seconds since epoch"

// EpochFamilies returns the names of the catalogued families whose unit is
// EpochUnit: WritePromtoolSeries shifts their values.
func EpochFamilies() map[string]bool {
	out := map[string]bool{}
	for _, f := range catalogue.All() {
		if f.Unit == EpochUnit {
			out[f.Name] = true
		}
	}
	return out
}

// WritePromtoolSeries writes the recorded samples as the input_series of a
// `promtool test rules` file, one value per step ("_" where a series was
// absent). The first step is time 0 of the test; the step is its interval.
//
// promtool's clock starts at 0 (1970-01-01), not at the first scrape, so
// the values of the families that are times (EpochFamilies) are shifted by
// the first scrape's time: relative to promtool's epoch, they keep
// `time() - x` equal to the age it was during the replay. The header (YAML
// comments) says so, with the shift and the families shifted.
func (r *Recorder) WritePromtoolSeries(w io.Writer) error {
	ew := &errWriter{w: w}
	var origin time.Time
	if len(r.steps) > 0 {
		origin = r.steps[0]
	}
	shift := float64(origin.Unix())
	epoch := EpochFamilies()
	var shifted []string
	for _, f := range r.sortedFamilies() {
		if epoch[f.name] {
			shifted = append(shifted, f.name)
		}
	}
	ew.printf("# dynamodb_exporter replay: promtool's time 0 is the first scrape, %s (Unix %d)", origin.UTC().Format(time.RFC3339), origin.Unix())
	if len(r.steps) > 1 {
		ew.printf("; one value per %s", r.steps[1].Sub(r.steps[0]))
	}
	ew.printf(".\n")
	if len(shifted) > 0 {
		ew.printf("# Values in seconds since the epoch are shifted by -%d, so that time() - x is the age it was:\n", origin.Unix())
		for _, n := range shifted {
			ew.printf("#   %s\n", n)
		}
	}
	ew.printf("input_series:\n")
	for _, f := range r.sortedFamilies() {
		for _, s := range f.sortedSeries() {
			vals := make([]string, len(r.steps))
			for step := range r.steps {
				v, ok := s.at(step)
				switch {
				case !ok:
					vals[step] = "_"
				case epoch[f.name]:
					vals[step] = formatValue(v - shift)
				default:
					vals[step] = formatValue(v)
				}
			}
			ew.printf("  - series: %s\n    values: %s\n", strconv.Quote(s.name+s.labels), strconv.Quote(strings.Join(vals, " ")))
		}
	}
	return ew.err
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
