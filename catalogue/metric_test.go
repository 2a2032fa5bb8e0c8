package catalogue

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// metricsCollector emits a fixed set of metrics, describing nothing.
type metricsCollector []prometheus.Metric

func (metricsCollector) Describe(chan<- *prometheus.Desc) {}
func (c metricsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c {
		ch <- m
	}
}

// exposition gathers ms and encodes them in format.
func exposition(t *testing.T, ms []prometheus.Metric, format expfmt.Format) []byte {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(metricsCollector(ms)); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, format)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// Every family's metrics, whatever their label values (to escape, empty,
// not ASCII) and values, are exposed byte for byte as client_golang's
// constant metrics are, in every format.
func TestMustMetricExposedAsConstMetric(t *testing.T) {
	picks := []string{"orders", "", `a"b\c` + "\nd", "tāble ☃", "x y=z,w}"}
	values := []float64{0, -1.5, 1e-300, math.Inf(1), math.NaN(), 12345678.25}
	formats := []expfmt.Format{expfmt.FmtText, expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtProtoDelim}
	for _, f := range All() {
		var compact, client []prometheus.Metric
		seen := map[string]bool{}
		add := func(value float64, lvs []string) {
			k := strings.Join(lvs, "\xff")
			if seen[k] {
				return // a family with one label: "" again
			}
			seen[k] = true
			compact = append(compact, MustMetric(f.Name, value, lvs...))
			client = append(client, prometheus.MustNewConstMetric(Desc(f.Name), ValueType(f.Name), value, lvs...))
		}
		add(7, make([]string, len(f.Labels))) // every label empty
		for v := range picks {
			lvs := make([]string, len(f.Labels))
			for k := range lvs {
				lvs[k] = picks[(v+k)%len(picks)]
			}
			add(values[v%len(values)], lvs)
		}
		for i, m := range compact {
			if m.Desc() != Desc(f.Name) {
				t.Errorf("%s: metric %d has descriptor %v, want the catalogue's %v", f.Name, i, m.Desc(), Desc(f.Name))
			}
		}
		for _, format := range formats {
			got, want := exposition(t, compact, format), exposition(t, client, format)
			if !bytes.Equal(got, want) {
				t.Errorf("%s in %s:\n got %q\nwant %q", f.Name, format, got, want)
			}
		}
	}
}

// Write sets the fields a client_golang constant metric sets, overwriting
// what a reused dto.Metric held.
func TestMustMetricWriteOverwrites(t *testing.T) {
	for _, name := range []string{ProvisionedReadCapacityUnits, ConsumedReadCapacityUnitsTotal, ExporterBuildInfo} {
		lvs := make([]string, len(mustLookup(t, name).Labels))
		for i := range lvs {
			lvs[i] = fmt.Sprint("v", len(lvs)-i)
		}
		var want dto.Metric
		if err := prometheus.MustNewConstMetric(Desc(name), ValueType(name), 5, lvs...).Write(&want); err != nil {
			t.Fatal(err)
		}
		for _, prev := range []prometheus.Metric{
			MustMetric(ProvisionedReadCapacityUnits, 1, "a", "r", "t", "i"),
			MustMetric(ConsumedReadCapacityUnitsTotal, 2, "a", "r", "t", "i"),
			MustMetric(ExporterTables, 3, "a", "r"),
		} {
			var got dto.Metric
			if err := prev.Write(&got); err != nil {
				t.Fatal(err)
			}
			if err := MustMetric(name, 5, lvs...).Write(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s written over a metric of %s:\n got %s\nwant %s", name, prev.Desc(), got.String(), want.String())
			}
		}
	}
}

func mustLookup(t *testing.T, name string) Family {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("no family %s", name)
	}
	return f
}

// recovered returns what f panics with, or nil.
func recovered(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// MustMetric panics as prometheus.MustNewConstMetric does, with its error,
// on a wrong number of label values or one that is not valid UTF-8.
func TestMustMetricPanicsAsConstMetric(t *testing.T) {
	for _, tc := range []struct {
		name string
		lvs  []string
	}{
		{"too few label values", []string{"a", "r", "t"}},
		{"too many label values", []string{"a", "r", "t", "i", "x"}},
		{"none", nil},
		{"invalid UTF-8", []string{"a", "r", "t\xff", "i"}},
		{"invalid UTF-8 in the last", []string{"a", "r", "t", "\xc3"}},
	} {
		got := recovered(func() { MustMetric(ProvisionedReadCapacityUnits, 1, tc.lvs...) })
		want := recovered(func() {
			prometheus.MustNewConstMetric(Desc(ProvisionedReadCapacityUnits), prometheus.GaugeValue, 1, tc.lvs...)
		})
		if got == nil || want == nil {
			t.Errorf("%s: MustMetric panics with %v, MustNewConstMetric with %v; want both to panic", tc.name, got, want)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: MustMetric panics with %v, want %v", tc.name, got, want)
		}
	}
	if r := recovered(func() { MustMetric("dynamodb_no_such_family", 1) }); r == nil || !strings.Contains(fmt.Sprint(r), "no family") {
		t.Errorf("an unknown family: panic %v", r)
	}
	if r := recovered(func() { MustMetric(ProvisionedReadCapacityUnits, 1, "a", "r", "t", "") }); r != nil {
		t.Errorf("valid label values: panic %v", r)
	}
}
