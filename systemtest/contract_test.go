package systemtest

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestEveryCataloguedFamilyPassesPromtool runs the exporter on the demo
// scenario (every failure mode next to a healthy table) until every
// catalogued family has appeared in one scrape, then lints that scrape with
// `promtool check metrics`: the alert pack and the dashboards are written
// against all of them, so all of them must be valid exposition. It fails
// naming the families that never appeared.
func TestEveryCataloguedFamilyPassesPromtool(t *testing.T) {
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	run := harnesstest.Run(t, "demo", start, harness.RunOptions{Collectors: harness.DemoCollectors})
	// One throttled CloudWatch call, so the request-error family has a series.
	run.Account.Server.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "ListMetrics", Error: awssim.ErrThrottling, Times: 1})

	var scrape string
	var missing []string
	for at := start; at.Before(start.Add(3 * time.Hour)); at = at.Add(time.Minute) {
		harnesstest.Advance(t, run, at)
		scrape = gatherText(t, run.App)
		if missing = missingFamilies(t, scrape); len(missing) == 0 {
			t.Logf("every catalogued family present after %s of simulated time", at.Sub(start))
			break
		}
	}
	if len(missing) > 0 {
		t.Fatalf("catalogued families never emitted by the demo scenario in 3 simulated hours: %s", strings.Join(missing, ", "))
	}
	res := testtools.RunCommand(t, scrape, testtools.Promtool(t), "check", "metrics")
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout+res.Stderr) != "" {
		t.Fatalf("promtool check metrics (exit %d) on a scrape of every family:\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func gatherText(t *testing.T, app *exporter.App) string {
	t.Helper()
	mfs, err := app.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// missingFamilies returns the catalogued families absent from scrape.
// absentFromTheDemo lists the families the demo cannot emit, with why and
// where their exposition is linted instead.
var absentFromTheDemo = map[string]string{
	catalogue.CapacityModeSwitchTimestamp:  modeSwitchAbsent,
	catalogue.CapacityModeSwitchDailyCost:  modeSwitchAbsent,
	catalogue.CapacityModeSwitchCostChange: modeSwitchAbsent,
}

const modeSwitchAbsent = "the judgement of a billing-mode switch needs a latest switch 1 to 14 days old, and the demo's switching tables switch again within a day; " +
	"exporter TestCapacityModeSwitchFromTheHistory emits and lints it with promtool"

func missingFamilies(t *testing.T, scrape string) []string {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(scrape))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, name := range catalogue.Names() {
		if why, ok := absentFromTheDemo[name]; ok {
			t.Logf("%s is not required of the demo: %s", name, why)
			continue
		}
		if f, ok := fams[name]; !ok || len(f.GetMetric()) == 0 {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing
}
