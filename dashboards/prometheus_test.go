package dashboards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/dashboards"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// dashboardReplay is how much of the demo scenario the dashboards are proven
// on: long enough for the pack's demo alerts to have fired (alerts/replay_test.go).
const dashboardReplay = 8 * time.Hour

// faultsReplay is how much of the exporter-faults scenario is replayed
// beside it (its faults fall in the first two hours), under faultsAccount.
const (
	faultsReplay  = 3 * time.Hour
	faultsAccount = "faults"
	// alertsDir is the alert pack's folder, from this test's package.
	alertsDir = "../alerts"
)

// replayVars are the values of the dashboard variables a query is proven
// with: every variable is a regular expression, All is .*.
type replayVars struct{ account, table string }

// dashboardVars sets the variables of each dashboard to an account and
// table that have what it shows. The fleet overview is proven on every demo
// table (All), as it is meant to be read, and the exporter dashboard on both
// accounts (the demo's, the exporter-faults one).
var dashboardVars = map[string]replayVars{
	dashboards.FleetUID:    {"demo", ".*"},
	dashboards.ExporterUID: {".*", ".*"},
	dashboards.TableUID:    {"demo", "tickets-spike"},       // provisioned, auto-scaled, throttles, a GSI
	dashboards.TTLUID:      {"demo", "orders-ttl-collapse"}, // TTL enabled, deleting, a retention bug
	dashboards.AlertsUID:   {"demo", ".*"},                  // each alert's panel: see alertVars
}

// panelTables sets $table for one panel (or annotation) where the
// dashboard's table cannot show it, with the reason: the demo holds each
// failure in its own table.
var panelTables = map[string]struct{ table, why string }{
	dashboards.TableUID + "/Surge retention":                                                   {"feeds-surge", "the only demo table with a surge in its history"},
	dashboards.TableUID + "/Switch to on-demand":                                               {"reports-churn", "the demo table that switches billing mode"},
	dashboards.TableUID + "/Switch to provisioned":                                             {"reports-churn", "the demo table that switches billing mode"},
	dashboards.TTLUID + "/Never-expiring items by class":                                       {"sessions-ttl-format", "the demo table whose TTL values are in a wrong format"},
	dashboards.TTLUID + "/Never-expiring items (estimate and 95% interval)":                    {"sessions-ttl-format", "the demo table whose TTL values are in a wrong format"},
	dashboards.TTLUID + "/Items carrying another epoch attribute":                              {"sessions-ttl-deploy", "the demo table whose writers use another attribute"},
	dashboards.TTLUID + "/Expired items under the other attribute (estimate and 95% interval)": {"sessions-ttl-deploy", "the demo table whose writers use another attribute"},
	dashboards.TTLUID + "/Oldest expired item: time since its expiry":                          {"coupons-ttl-backlog", "the demo table with an expired backlog"},
}

// varsFor returns the variables a query is proven with.
func varsFor(q dashboards.Query, alertVars map[string]replayVars) replayVars {
	v := dashboardVars[q.Dashboard]
	if o, ok := panelTables[q.Dashboard+"/"+q.Panel]; ok {
		v.table = o.table
	}
	if a, ok := alertVars[q.Panel]; ok && q.Dashboard == dashboards.AlertsUID {
		v = a
	}
	return v
}

// alertsEmpty is why the queries that read ALERTS alone (firing alerts,
// alert annotations) are empty: Prometheus writes ALERTS when it evaluates
// the alerts, at wall-clock time, never over backfilled history. They are
// run, so they must parse; the pack firing on this replay is proven by
// TestAlertPackReplays (the same scenario, start and duration).
const alertsEmpty = "ALERTS is written by rule evaluation at wall-clock time, never for backfilled history"

// expectedEmpty lists the queries (dashboard/panel/refID) that return no data
// on the demo replay, with the reason. Any other empty query fails.
var expectedEmpty = map[string]string{
	dashboards.AlertsUID + "/DynamoDBHotPartition/B":                        "condition: the demo's hot key (profiles-hotkey) stays under the partition limit, so no key-range throttle passes min_throttles_per_second (a gap of the alert replays for the demo)",
	dashboards.AlertsUID + "/DynamoDBReadWriteRatioDrift/B":                 "condition: no demo table's 1-day read/write ratio leaves the ±30% band in these 8 hours (the pack does not fire it on the demo either)",
	dashboards.AlertsUID + "/DynamoDBExporterTTLSamplerOutOfBudget/B":       "condition: neither replay spends the TTL sampler's hourly read budget (no skipped_budget sample)",
	dashboards.AlertsUID + "/DynamoDBTTLAttributeMissingRising/C":           "condition: no demo table's share of items without the TTL attribute rises in these 8 hours (replay var-ttl-missing-rising fires it)",
	dashboards.AlertsUID + "/DynamoDBTTLRetentionBehindWrites/D":            "condition: it needs a day of the exporter's history and 6 hours more, beyond the 8 hours replayed (replay var-ttl-retention-long fires it)",
	dashboards.AlertsUID + "/DynamoDBOnDemandMaxThroughputReached/A":        "condition: no demo table sets an on-demand maximum throughput, so no throttle has cause max_on_demand_throughput (validation scenario cap-on-demand-max fires it)",
	dashboards.AlertsUID + "/DynamoDBAutoScalingTooSensitive/A":             "condition: no demo table's policy scales more than 24 times a day at low utilization (validation scenario cap-scaling-too-sensitive fires it)",
	dashboards.AlertsUID + "/DynamoDBAccountProvisionedCapacityNearQuota/B": "condition: the demo account's provisioned tables hold a few thousand units against the 80,000 account-level quota, far under 80% (the signal, A, is the utilization itself)",
	dashboards.TableUID + "/Auto-scaling scheduled actions/A":               "data: tickets-spike has no scheduled action; the demo's orders-evening-scheduled has two on its write capacity (the contract test reads the family on the demo)",
	dashboards.TableUID + "/How the peaks are best served/B":                "data: tickets-spike has no recurring peak (its spike is a one-off), so no scheduled action is proposed; the demo's orders-evening-peak has one on its writes (the contract test reads the families on the demo)",
	dashboards.TableUID + "/How the peaks are best served/C":                "data: tickets-spike has no recurring peak (its spike is a one-off), so no scheduled action is proposed; the demo's orders-evening-peak has one on its writes (the contract test reads the families on the demo)",
	dashboards.TableUID + "/How the peaks are best served/D":                "data: tickets-spike has no recurring peak (its spike is a one-off), so no scheduled action is proposed; the demo's orders-evening-peak has one on its writes (the contract test reads the families on the demo)",
	dashboards.TableUID + "/" + buildPanel + "/A":                           buildEmpty,
	dashboards.TableUID + "/" + buildRatesPanel + "/A":                      buildEmpty,
	dashboards.TableUID + "/" + buildRatesPanel + "/B":                      buildEmpty,
	dashboards.TableUID + "/" + replicationPanel + "/A":                     "data: tickets-spike is a table of one region; the demo's global table carts-global (us-east-1 and eu-west-1) has the series, which the contract test reads on the demo",
	dashboards.AlertsUID + "/DynamoDBExporterDown/A":                        "condition: up is written by Prometheus when it scrapes, and a replay is backfilled, never scraped (the e2e test runs a real scrape)",
	dashboards.TableUID + "/" + diagnosisPanel + "/A":                       diagnosisEmpty,
	dashboards.AlertsUID + "/DynamoDBModeSwitchRegressed/A":                 switchEmpty,
	dashboards.AlertsUID + "/DynamoDBModeSwitchRegressed/B":                 switchEmpty,
	dashboards.TableUID + "/" + switchPanel + "/A":                          "data: tickets-spike never switched billing mode, so it has no switch to count or judge (the alerts dashboard's DynamoDBBillingModeChurn panel shows the demo's switching tables)",
	dashboards.TableUID + "/" + switchPanel + "/B":                          "data: tickets-spike never switched billing mode, so it has no switch to count or judge (the alerts dashboard's DynamoDBBillingModeChurn panel shows the demo's switching tables)",
}

// replicationPanel is the table dashboard's panel of a global table's
// replication latency.
const replicationPanel = "Global table: replication latency to each receiving region"

// buildPanel and buildRatesPanel are the table dashboard's panels of an
// index build, and buildEmpty why they are empty for tickets-spike.
const (
	buildPanel      = "Index build (backfill): progress"
	buildRatesPanel = "Index build (backfill): write units consumed and throttle events per second"
	buildEmpty      = "data: tickets-spike has no index being built; the demo's orders-gsi-backfill has one (its build shows on the alerts dashboard's DynamoDBGSIBackfillThrottling panel, and the contract test reads all three families on the demo)"
)

// switchPanel is the table dashboard's panel of the billing-mode switches,
// and switchEmpty why the judged switch is empty on the demo.
const (
	switchPanel = "Billing-mode switches in the history, and the latest switch's cost per day"
	switchEmpty = "data: the demo's switching tables (reports-churn, reports-schedule) switch again within a day, so no latest switch is a day old and none is judged " +
		"(validation scenario cap-mode-switch-regressed fires it)"
)

// diagnosisPanel is the table dashboard's panel of the simulated
// throttling and saturated minutes by cause, and diagnosisEmpty why its
// throttled units are empty for tickets-spike (and every demo table
// provisioned all along); its saturated minutes and their time are not.
const (
	diagnosisPanel = "Simulated throttling and saturated minutes of the auto-scaling policy, by cause (7 and 30 days)"
	diagnosisEmpty = "data: the simulated account throttles the table as its policy says, so its consumed history is capped by that throttling and the " +
		"simulation of the same policy on it throttles nothing (refused demand is not in CloudWatch's consumed figures); the throttled units show only " +
		"where the history holds demand the policy would not have served (a table provisioned after on-demand hours, a policy stricter than the one that " +
		"served the history); the panel's saturated time (B) and its latest minute (C) show the capped failure"
)

// TestDashboardQueriesOnPrometheus proves every query of every generated
// dashboard on a real Prometheus: the demo scenario is replayed
// (OpenMetrics), turned into TSDB blocks by promtool, the pack's recording
// rules are backfilled with promtool (level by level, as a rule reading
// another recorded series needs that series in the TSDB), and Prometheus is
// started on the result. Every panel, annotation
// and variable query then runs through the HTTP API with the variables set
// to a demo table: it must parse and return data, or be listed in
// expectedEmpty with the reason.
func TestDashboardQueriesOnPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 8 hours of the demo and starts Prometheus (about a minute)")
	}
	promtool := testtools.Promtool(t)
	testtools.Prometheus(t) // skip (fail in CI) early when missing
	dir := t.TempDir()
	data := filepath.Join(dir, "data")

	sc := harnesstest.Scenario(t, "demo")
	// The start of the pack's replays: the demo's daily patterns and
	// events fall at the same times as in the alert pack's replays.
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	replayInto(t, promtool, sc, start, dashboardReplay, data, "")
	// The exporter's own failures, absent from the demo, under another
	// account name: the exporter-faults scenario over the same hours.
	faults := harnesstest.Scenario(t, "exporter-faults")
	replayInto(t, promtool, faults, start, faultsReplay, data, faultsAccount)
	end := start.Add(dashboardReplay)

	// Recording rules, backfilled level by level.
	files, err := alerts.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	rulesDir := filepath.Join(dir, "rules")
	if err := os.MkdirAll(rulesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var records []recordRule
	for _, rf := range files {
		if err := os.WriteFile(filepath.Join(rulesDir, rf.Name), rf.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		records = append(records, recordRules(t, rf.Content)...)
	}
	emptyConfig := filepath.Join(dir, "prometheus-empty.yml")
	writeTestFile(t, emptyConfig, "global:\n  evaluation_interval: 1m\n")
	for level, rules := range recordLevels(t, records) {
		endpoint, stop := testtools.StartPrometheus(t, emptyConfig, data)
		out := filepath.Join(dir, fmt.Sprintf("backfill-%d", level))
		file := filepath.Join(dir, fmt.Sprintf("records-%d.yml", level))
		writeTestFile(t, file, recordFile(t, rules))
		runTool(t, promtool, "tsdb", "create-blocks-from", "rules", "--url="+endpoint,
			"--start="+strconv.FormatInt(start.Unix(), 10), "--end="+strconv.FormatInt(end.Unix(), 10),
			"--eval-interval=1m", "--output-dir="+out, file)
		stop()
		moveBlocks(t, out, data)
	}

	endpoint, stop := testtools.StartPrometheus(t, emptyConfig, data)
	defer stop()
	api := promAPI{t: t, endpoint: endpoint}
	gen, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(gen))
	for n := range gen {
		names = append(names, n)
	}
	sort.Strings(names)
	alertVars := replayAlertVars(t)
	proven, empty, panels := 0, 0, map[string]bool{}
	var emptyList []string
	seen := map[string]bool{}
	for _, name := range names {
		qs, err := dashboards.Queries(gen[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			key := q.Dashboard + "/" + q.Panel + "/" + q.RefID
			if q.Kind != "panel" {
				key = q.Dashboard + "/" + q.Kind + " " + q.Panel
			}
			seen[key] = true
			v, ok := dashboardVars[q.Dashboard]
			if !ok {
				t.Fatalf("no replay variables for dashboard %s", q.Dashboard)
			}
			v = varsFor(q, alertVars)
			expr := substitute(q.Expr, v)
			var res promResult
			if q.Instant {
				res = api.query(expr, end, time.Time{})
			} else {
				res = api.query(expr, end, start)
			}
			if res.err != "" {
				t.Errorf("%s: does not run: %s\n%s", key, res.err, expr)
				continue
			}
			if q.Kind == "panel" {
				panels[q.Dashboard+"/"+strconv.Itoa(q.PanelID)] = true
			}
			why, listed := expectedEmpty[key]
			if !listed && len(res.Result) == 0 && slices.Equal(dashboards.MetricNames(q.Expr), []string{"ALERTS"}) {
				why, listed = alertsEmpty, true
			}
			if listed && len(res.Result) == 0 {
				emptyList = append(emptyList, key+": "+why)
			}
			switch {
			case len(res.Result) == 0 && !listed:
				t.Errorf("%s ($account=%s, $table=%s): no data on the replay\n%s", key, v.account, v.table, expr)
			case len(res.Result) > 0 && listed:
				t.Errorf("%s: listed as expected empty (%s) but returns %d series: remove it from expectedEmpty", key, why, len(res.Result))
			case len(res.Result) == 0:
				empty++
			default:
				proven++
			}
		}
	}
	for key := range expectedEmpty {
		if !seen[key] {
			t.Errorf("expectedEmpty lists %s, which no dashboard has", key)
		}
	}
	t.Logf("%d panels, %d queries: %d returned data, %d expected empty:\n%s", len(panels), proven+empty, proven, empty, strings.Join(emptyList, "\n"))
}

// replayInto replays sc as OpenMetrics and writes it as TSDB blocks into
// data. With account set, only the series of the simulated account are kept,
// under that account name (the exporter's series without an account label
// would repeat the demo's). Every series gets the job and instance labels a
// scrape gives it (replayTarget), another instance for another account: two
// exporters, as the dashboards' job and instance variables expect.
func replayInto(t *testing.T, promtool string, sc *sim.Scenario, start time.Time, d time.Duration, data, account string) {
	t.Helper()
	var buf bytes.Buffer
	if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: d, Step: time.Minute, Format: "openmetrics", Logger: slog.New(slog.DiscardHandler)}, &buf); err != nil {
		t.Fatal(err)
	}
	instance := "demo-exporter:9687"
	if account != "" {
		instance = account + "-exporter:9687"
	}
	var kept []string
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if account != "" && !strings.HasPrefix(l, "#") && !strings.Contains(l, `account="demo"`) {
			continue
		}
		if account != "" {
			l = strings.ReplaceAll(l, `account="demo"`, `account="`+account+`"`)
		}
		kept = append(kept, replayTarget(l, instance))
	}
	text := strings.Join(kept, "")
	om := filepath.Join(t.TempDir(), sc.Name+".om")
	writeTestFile(t, om, text)
	runTool(t, promtool, "tsdb", "create-blocks-from", "openmetrics", om, data)
}

// replayJob is the scrape job of the replayed exporters.
const replayJob = "dynamodb"

// replayTarget adds the scrape target's job and instance to a sample line of
// OpenMetrics text (comments are left alone), as Prometheus adds them to
// every series it scrapes.
func replayTarget(line, instance string) string {
	if line == "" || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
		return line
	}
	target := `job="` + replayJob + `",instance="` + instance + `"`
	name := strings.IndexAny(line, "{ ")
	switch {
	case name < 0:
		return line
	case line[name] == ' ':
		return line[:name] + "{" + target + "}" + line[name:]
	case strings.HasPrefix(line[name+1:], "}"):
		return line[:name+1] + target + line[name+1:]
	default:
		return line[:name+1] + target + "," + line[name+1:]
	}
}

// substitute sets the dashboard variables as Grafana would.
func substitute(expr string, v replayVars) string {
	return strings.NewReplacer(
		"$__rate_interval", "4m", // Grafana: max(4 x scrape interval, interval + scrape interval) at 1m scrapes
		"$job", ".+", // All: the variable's allValue
		"$instance", ".+",
		"$account", v.account,
		"$region", "us-east-1",
		"$table", v.table,
		"$index", ".*",
	).Replace(expr)
}

// replayAlertVars maps each alert the demo and exporter-faults replays
// fire to the account and first table it fires on, as the cross-talk
// matrix of the alert pack's README states it (generated from the pack's
// replays and checked against them by alerts' TestAlertPackReplays), for
// the alert panels.
func replayAlertVars(t *testing.T) map[string]replayVars {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(alertsDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]replayVars{}
	for _, line := range strings.Split(string(readme), "\n") {
		// | Scenario | Replayed | Alert | Table | First fired | Delay | Promised |
		cells := strings.Split(line, "|")
		if len(cells) != 9 {
			continue
		}
		scenario, alert, table := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[3]), strings.TrimSpace(cells[4])
		account := map[string]string{"demo": "demo", "exporter-faults": faultsAccount}[scenario]
		if account == "" || !strings.HasPrefix(alert, "DynamoDB") {
			continue
		}
		if _, ok := out[alert]; ok {
			continue
		}
		if strings.HasSuffix(table, "/us-east-1") { // account/region: an exporter alert
			table = ".*"
		} else {
			table = strings.SplitN(table, "/", 2)[0]
		}
		out[alert] = replayVars{account, table}
	}
	if len(out) == 0 {
		t.Fatalf("no demo or exporter-faults row in the cross-talk matrix of %s", filepath.Join(alertsDir, "README.md"))
	}
	return out
}

type promResult struct {
	Result []json.RawMessage
	err    string
}

type promAPI struct {
	t        *testing.T
	endpoint string
}

// query runs expr at the instant at, or over [from, at] at 1-minute steps
// when from is set.
func (p promAPI) query(expr string, at, from time.Time) promResult {
	p.t.Helper()
	v := url.Values{"query": {expr}}
	path := "/api/v1/query"
	if from.IsZero() {
		v.Set("time", strconv.FormatInt(at.Unix(), 10))
	} else {
		path = "/api/v1/query_range"
		v.Set("start", strconv.FormatInt(from.Unix(), 10))
		v.Set("end", strconv.FormatInt(at.Unix(), 10))
		v.Set("step", "60")
	}
	resp, err := http.PostForm(p.endpoint+path, v)
	if err != nil {
		p.t.Fatalf("prometheus: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("prometheus: %v", err)
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		p.t.Fatalf("prometheus answered HTTP %d: %s", resp.StatusCode, body)
	}
	if r.Status != "success" {
		return promResult{err: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, r.Error)}
	}
	return promResult{Result: r.Data.Result}
}

type recordRule struct {
	Record string `yaml:"record"`
	Expr   string `yaml:"expr"`
}

// recordRules returns the recording rules of a rendered rule file.
func recordRules(t *testing.T, content []byte) []recordRule {
	t.Helper()
	var rf struct {
		Groups []struct {
			Rules []recordRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(content, &rf); err != nil {
		t.Fatal(err)
	}
	var out []recordRule
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// recordLevels orders recording rules for backfilling: level 0 reads no
// recorded series, level n reads only series of lower levels. promtool
// backfills the rules of one run from the TSDB as it was, so a rule can only
// read series backfilled by an earlier run.
func recordLevels(t *testing.T, rules []recordRule) [][]recordRule {
	t.Helper()
	done := map[string]bool{}
	var levels [][]recordRule
	for len(done) < len(rules) {
		var level []recordRule
		for _, r := range rules {
			if done[r.Record] {
				continue
			}
			ready := true
			for _, other := range rules {
				if other.Record != r.Record && !done[other.Record] && regexp.MustCompile(`\b`+regexp.QuoteMeta(other.Record)+`\b`).MatchString(r.Expr) {
					ready = false
				}
			}
			if ready {
				level = append(level, r)
			}
		}
		if len(level) == 0 {
			t.Fatal("recording rules read each other in a cycle")
		}
		for _, r := range level {
			done[r.Record] = true
		}
		levels = append(levels, level)
	}
	return levels
}

func recordFile(t *testing.T, rules []recordRule) string {
	t.Helper()
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "backfill", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// moveBlocks moves the TSDB blocks promtool wrote into Prometheus's data
// directory.
func moveBlocks(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatalf("backfill wrote nothing: %v", err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if err := os.Rename(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("backfill wrote no block in %s", from)
	}
}

func runTool(t *testing.T, name string, args ...string) {
	t.Helper()
	res := testtools.RunCommand(t, "", name, args...)
	if res.ExitCode != 0 {
		t.Fatalf("%s %s failed (%d):\n%s\n%s", filepath.Base(name), strings.Join(args, " "), res.ExitCode, res.Stdout, res.Stderr)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
