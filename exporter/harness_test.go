package exporter_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	simharness "github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// seenFamilies collects every family name any test scraped, so TestMain can
// check that every catalogued family is emitted by some test.
var (
	seenMu       sync.Mutex
	seenFamilies = map[string]bool{}
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		var missing []string
		for _, name := range catalogue.Names() {
			if !seenFamilies[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: catalogued families never emitted by any test: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// start is the fixed simulated time tests begin at.
var start = time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC)

type harness struct {
	t   *testing.T
	sim *awssim.Server
	clk *clock.Manual
	app *exporter.App
	url string
}

// newHarness starts a simulated account, lets setup fill it, and builds an
// exporter against it from the YAML config (endpoints are added).
func newHarness(t *testing.T, yaml string, setup func(sim *awssim.Server)) *harness {
	t.Helper()
	return newHarnessWith(t, yaml, setup, harnessOptions{})
}

// harnessOptions point the DynamoDB client elsewhere (DynamoDB Local) and
// capture logs.
type harnessOptions struct {
	dynamoDB string
	logger   *slog.Logger
	start    time.Time
}

func newHarnessWith(t *testing.T, yaml string, setup func(sim *awssim.Server), ho harnessOptions) *harness {
	t.Helper()
	begin := start
	if !ho.start.IsZero() {
		begin = ho.start
	}
	clk := clock.NewManual(begin)
	sim := awssim.New(awssim.WithClock(clk))
	if setup != nil {
		setup(sim)
	}
	app, url := harnesstest.Exporter(t, sim, clk, yaml, simharness.RunOptions{Logger: ho.logger, Adjust: func(o *exporter.Options) {
		if ho.dynamoDB != "" {
			o.AWS.Endpoints.DynamoDB = ho.dynamoDB
		}
	}})
	return &harness{t: t, sim: sim, clk: clk, app: app, url: url}
}

// cycle runs every collector once at the clock's time.
func (h *harness) cycle() { h.app.Scheduler.RunOnce(context.Background()) }

// scrape serves /metrics through the real handler and returns the text.
func (h *harness) scrape() string {
	h.t.Helper()
	handler, err := h.app.Handler("/metrics", discardLogger())
	if err != nil {
		h.t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		h.t.Fatalf("scrape status %d: %s", rec.Code, rec.Body.String())
	}
	body := rec.Body.String()
	h.record(body)
	return body
}

// record checks every family of a scrape is catalogued and notes it as seen.
func (h *harness) record(body string) {
	h.t.Helper()
	fams := parse(h.t, body)
	seenMu.Lock()
	defer seenMu.Unlock()
	for name := range fams {
		if _, ok := catalogue.Lookup(name); !ok && !catalogue.IsStandard(name) {
			h.t.Errorf("/metrics shows family %q, which is not in the catalogue", name)
		}
		seenFamilies[name] = true
	}
}

func parse(t testing.TB, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	return fams
}

// value returns the value of the series of family with exactly the given
// label values (labels not named must be absent or empty).
func value(t testing.TB, body, family string, labels map[string]string) (float64, bool) {
	t.Helper()
	fams := parse(t, body)
	f, ok := fams[family]
	if !ok {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if matches(m, labels) {
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

func matches(m *dto.Metric, labels map[string]string) bool {
	got := map[string]string{}
	for _, lp := range m.GetLabel() {
		got[lp.GetName()] = lp.GetValue()
	}
	for k, v := range labels {
		if got[k] != v {
			return false
		}
	}
	return true
}

// series returns the label sets of a family, each rendered "k=v,...", sorted.
func series(t testing.TB, body, family string) []string {
	t.Helper()
	f, ok := parse(t, body)[family]
	if !ok {
		return nil
	}
	var out []string
	for _, m := range f.GetMetric() {
		var parts []string
		for _, lp := range m.GetLabel() {
			parts = append(parts, lp.GetName()+"="+lp.GetValue())
		}
		out = append(out, strings.Join(parts, ","))
	}
	sort.Strings(out)
	return out
}

func mustValue(t testing.TB, body, family string, labels map[string]string) float64 {
	t.Helper()
	v, ok := value(t, body, family, labels)
	if !ok {
		t.Fatalf("no series %s%v in:\n%s", family, labels, grep(body, family))
	}
	return v
}

func grep(body, prefix string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
