package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// The alert the test waits for, the built-in scenario that raises it and the
// one table of that scenario. ttl-wrong-format writes TTL values in
// milliseconds and as strings: the TTL sampler counts them within seconds of
// the exporter's start, and DynamoDBTTLValuesNeverExpire reads that gauge
// directly (no range window), so only its `for` (1h) stands between the
// first scrape and the alert; the tuning file shortens it.
const (
	scenario   = "ttl-wrong-format"
	alertName  = "DynamoDBTTLValuesNeverExpire"
	alertTable = "sessions-ttl-format"
	alertFor   = "10s"
	// job is the scrape job's name, as in the pack's own examples.
	job = "dynamodb"
)

// tuning is the alert pack configuration (alerts/config.go) the rules are
// rendered with: the shipped pack with one `for` shortened.
const tuning = "alerts:\n  " + alertName + ":\n    for: " + alertFor + "\n"

// Prometheus's cadences: fast, so that the alert fires seconds after the
// gauge appears. The scrape timeout must not exceed the interval.
const promConfig = `global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
rule_files:
  - %s
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['%s']
scrape_configs:
  - job_name: %s
    static_configs:
      - targets: ['%s']
`

// budget bounds the wait for the stack, from the exporter's start to the
// alert at the webhook. The alert route of a warning waits group_wait (1m,
// alerts/alertmanager.yml) before it notifies, so a run takes about 80s.
const budget = 3 * time.Minute

// placeholderURL is the base of the example receivers' webhook URLs in
// alerts/alertmanager.yml; the test points them at its own receiver.
const placeholderURL = "http://127.0.0.1:9095/"

// TestEndToEnd runs the stack a user deploys, every part real and on
// 127.0.0.1: the exporter binary (built from this tree) on the built-in
// simulated account with scenario ttl-wrong-format; Prometheus scraping it
// with the pack's rule files rendered by `alerts render --config` (one `for`
// shortened, nothing else changed); Alertmanager with the example
// alerts/alertmanager.yml, its webhook URLs pointed at a receiver the test
// runs. It checks that the target is up with no scrape error, that every
// rule group loads and evaluates without error, and that the pack's
// DynamoDBTTLValuesNeverExpire fires and reaches the webhook through the
// warning route with its labels (account, region, table, severity, job,
// instance), its summary, a description quoting the number and its
// runbook_url. Every process is stopped when the test ends, also on failure;
// the test checks that they are gone.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the exporter and runs Prometheus and Alertmanager for over a minute")
	}
	start := time.Now()
	var endpoints []string
	ok := t.Run("stack", func(t *testing.T) {
		endpoints = runStack(t, start)
	})
	// The subtest's cleanups have run: every server must be gone.
	for _, e := range endpoints {
		addr := strings.TrimPrefix(e, "http://")
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after the test stopped its processes", addr)
		}
	}
	outcome := "passed"
	if !ok {
		outcome = "failed"
	}
	t.Logf("end-to-end test %s in %s; every process it started is stopped",
		outcome, time.Since(start).Round(100*time.Millisecond))
}

// runStack starts the stack, runs the checks and returns the endpoints of the
// servers it started.
func runStack(t *testing.T, start time.Time) []string {
	// Look the tools up first: a missing one skips (fails in CI) before
	// anything is built.
	testtools.Prometheus(t)
	testtools.Alertmanager(t)
	root, err := testtools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	step := func(what string) { t.Logf("%6.1fs %s", time.Since(start).Seconds(), what) }

	bin := filepath.Join(dir, "dynamodb_exporter")
	if res := testtools.RunCommand(t, "", "go", "-C", root, "build", "-o", bin, "."); res.ExitCode != 0 {
		t.Fatalf("go build: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	step("exporter built")

	// The rule files, rendered by the exporter's own command.
	tuningFile := filepath.Join(dir, "tuning.yml")
	writeFile(t, tuningFile, tuning)
	rulesDir := filepath.Join(dir, "rules")
	if res := testtools.RunCommand(t, "", bin, "alerts", "render", "--config", tuningFile, "-o", rulesDir); res.ExitCode != 0 {
		t.Fatalf("alerts render --config: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	groups := checkRendered(t, rulesDir, filepath.Join(root, "alerts", "rules"))

	// The webhook receiver, then Alertmanager with the example configuration
	// pointed at it.
	hook := newWebhook(t)
	amConfig, err := os.ReadFile(filepath.Join(root, "alerts", "alertmanager.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(amConfig), placeholderURL); n != 3 {
		t.Fatalf("alerts/alertmanager.yml has %d webhook URLs under %s, want 3 (one per receiver)", n, placeholderURL)
	}
	amFile := filepath.Join(dir, "alertmanager.yml")
	writeFile(t, amFile, strings.ReplaceAll(string(amConfig), placeholderURL, hook.url+"/"))
	am := testtools.StartAlertmanager(t, amFile)
	step("alertmanager ready at " + am)

	exporter := testtools.Start(t, testtools.Program{
		Name: "dynamodb_exporter demo",
		Args: func(port int) []string {
			return []string{bin, "demo", "--scenario", scenario, "--log.level", "warn",
				"--web.listen-address", "127.0.0.1:" + strconv.Itoa(port)}
		},
		ReadyPath: "/metrics",
	})
	step("exporter serving at " + exporter)

	promFile := filepath.Join(dir, "prometheus.yml")
	writeFile(t, promFile, fmt.Sprintf(promConfig, filepath.Join(rulesDir, "*.yml"),
		strings.TrimPrefix(am, "http://"), job, strings.TrimPrefix(exporter, "http://")))
	prom, _ := testtools.StartPrometheus(t, promFile, t.TempDir())
	promStarted := time.Now()
	step("prometheus ready at " + prom)
	api := promAPI{t: t, endpoint: prom}
	deadline := time.Now().Add(budget)
	instance := strings.TrimPrefix(exporter, "http://")

	// The target: up, scraped without error.
	waitFor(t, "the exporter's target to be scraped", deadline, func() (bool, string) {
		targets := api.targets()
		return len(targets) == 1 && targets[0].Health != "unknown", fmt.Sprintf("targets %+v", targets)
	})
	checkTarget(t, api.targets(), instance)
	step("target up")

	// Every rule group loads and evaluates without error.
	waitFor(t, "every rule group to be evaluated", deadline, func() (bool, string) {
		got := api.rules()
		for _, g := range got {
			if !g.LastEvaluation.After(promStarted) {
				return false, fmt.Sprintf("group %s not evaluated yet", g.Name)
			}
		}
		return len(got) > 0, fmt.Sprintf("%d groups", len(got))
	})
	checkRules(t, api.rules(), groups)
	step(fmt.Sprintf("%d rule groups evaluated without error", len(groups)))

	// The alert fires in Prometheus...
	var firing promAlert
	waitFor(t, alertName+" to fire in Prometheus", deadline, func() (bool, string) {
		var states []string
		for _, a := range api.alerts() {
			if a.Labels["alertname"] == alertName && a.State == "firing" {
				firing = a
				return true, ""
			}
			states = append(states, a.Labels["alertname"]+" "+a.State)
		}
		return false, fmt.Sprintf("alerts: %v", states)
	})
	step(alertName + " firing in Prometheus, value " + firing.Value)

	// ... and arrives at the webhook through the warning route.
	var msg webhookMessage
	var got webhookAlert
	waitFor(t, alertName+" to arrive at the webhook", deadline, func() (bool, string) {
		for _, m := range hook.messages() {
			for _, a := range m.Alerts {
				if a.Labels["alertname"] == alertName {
					msg, got = m, a
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("%d notifications so far", len(hook.messages()))
	})
	step(fmt.Sprintf("%s delivered to the webhook at %s (receiver %s)", alertName, msg.path, msg.Receiver))
	checkDelivered(t, msg, got, firing, instance)

	// After the alert's trip, still no scrape, rule or notification error.
	checkTarget(t, api.targets(), instance)
	checkRules(t, api.rules(), groups)
	checkPrometheusCounters(t, prom)
	if errs := hook.errors(); len(errs) > 0 {
		t.Errorf("the webhook received malformed notifications: %v", errs)
	}
	return []string{exporter, prom, am, hook.url}
}

// renderedGroup is a group of a rendered rule file, as far as the test reads it.
type renderedGroup struct {
	Name  string `yaml:"name"`
	Rules []struct {
		Alert       string            `yaml:"alert"`
		Record      string            `yaml:"record"`
		Expr        string            `yaml:"expr"`
		For         string            `yaml:"for"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"rules"`
}

// readGroups reads the groups of every *.yml file in dir, by file name.
func readGroups(t *testing.T, dir string) map[string][]renderedGroup {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule files in %s (%v)", dir, err)
	}
	out := map[string][]renderedGroup{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Groups []renderedGroup `yaml:"groups"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = doc.Groups
	}
	return out
}

// checkRendered checks that the rule files rendered with the tuning file are
// the shipped ones with only the tuned `for` changed, and returns the number
// of rules of each group.
func checkRendered(t *testing.T, rendered, shipped string) map[string]int {
	t.Helper()
	got, want := readGroups(t, rendered), readGroups(t, shipped)
	if !reflect.DeepEqual(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("rendered files %v, shipped %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	tuned := 0
	for file, groups := range want {
		for gi, g := range groups {
			for ri, r := range g.Rules {
				if r.Alert == alertName {
					if r.For == alertFor {
						t.Fatalf("the shipped %s already has for: %s; the tuning proves nothing", alertName, alertFor)
					}
					r.For = alertFor
					tuned++
				}
				if len(got[file]) <= gi || len(got[file][gi].Rules) <= ri ||
					!reflect.DeepEqual(got[file][gi].Rules[ri], r) {
					t.Fatalf("%s: rule %d of group %s differs from the shipped rule beyond the tuned for", file, ri, g.Name)
				}
			}
		}
		if len(got[file]) != len(groups) {
			t.Fatalf("%s: %d groups rendered, %d shipped", file, len(got[file]), len(groups))
		}
	}
	if tuned != 1 {
		t.Fatalf("%s found %d times in the shipped rules, want once", alertName, tuned)
	}
	counts := map[string]int{}
	for _, groups := range got {
		for _, g := range groups {
			counts[g.Name] = len(g.Rules)
		}
	}
	return counts
}

// promAPI reads Prometheus's HTTP API.
type promAPI struct {
	t        *testing.T
	endpoint string
}

type promTarget struct {
	Labels     map[string]string `json:"labels"`
	ScrapePool string            `json:"scrapePool"`
	Health     string            `json:"health"`
	LastError  string            `json:"lastError"`
}

type promRule struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
}

type promGroup struct {
	Name           string     `json:"name"`
	File           string     `json:"file"`
	Rules          []promRule `json:"rules"`
	LastEvaluation time.Time  `json:"lastEvaluation"`
}

type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	Value       string            `json:"value"`
}

// get decodes the data of an API answer into v.
func (p promAPI) get(path string, v any) {
	p.t.Helper()
	resp, err := http.Get(p.endpoint + path)
	if err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
	var answer struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Status != "success" {
		p.t.Fatalf("GET %s: HTTP %d, %v: %s", path, resp.StatusCode, err, body)
	}
	if err := json.Unmarshal(answer.Data, v); err != nil {
		p.t.Fatalf("GET %s: decoding %s: %v", path, answer.Data, err)
	}
}

func (p promAPI) targets() []promTarget {
	var data struct {
		Active []promTarget `json:"activeTargets"`
	}
	p.get("/api/v1/targets?state=active", &data)
	return data.Active
}

func (p promAPI) rules() []promGroup {
	var data struct {
		Groups []promGroup `json:"groups"`
	}
	p.get("/api/v1/rules", &data)
	return data.Groups
}

func (p promAPI) alerts() []promAlert {
	var data struct {
		Alerts []promAlert `json:"alerts"`
	}
	p.get("/api/v1/alerts", &data)
	return data.Alerts
}

// checkTarget checks that the one target is the exporter, up, with no error.
func checkTarget(t *testing.T, targets []promTarget, instance string) {
	t.Helper()
	if len(targets) != 1 {
		t.Fatalf("%d active targets, want 1: %+v", len(targets), targets)
	}
	tg := targets[0]
	if tg.Health != "up" || tg.LastError != "" || tg.Labels["job"] != job || tg.Labels["instance"] != instance {
		t.Errorf("target %+v, want job %s, instance %s, health up, no error", tg, job, instance)
	}
}

// checkRules checks that Prometheus loaded exactly the rendered groups with
// all their rules, and that every rule evaluated without error.
func checkRules(t *testing.T, got []promGroup, want map[string]int) {
	t.Helper()
	loaded := map[string]int{}
	for _, g := range got {
		loaded[g.Name] = len(g.Rules)
		for _, r := range g.Rules {
			if r.Health != "ok" || r.LastError != "" {
				t.Errorf("group %s, %s rule %s: health %q, last error %q", g.Name, r.Type, r.Name, r.Health, r.LastError)
			}
		}
	}
	if !reflect.DeepEqual(loaded, want) {
		t.Errorf("Prometheus loaded groups (rules) %v, rendered %v", loaded, want)
	}
}

// checkDelivered checks the notification that carried the alert: the route
// (the warning receiver), the labels and every annotation.
func checkDelivered(t *testing.T, msg webhookMessage, got webhookAlert, firing promAlert, instance string) {
	t.Helper()
	if msg.Receiver != "dynamodb-ticket" || msg.path != "/dynamodb/ticket" || msg.Status != "firing" || got.Status != "firing" {
		t.Errorf("notification: receiver %q at %s, status %q (alert %q); want the warning route's dynamodb-ticket at /dynamodb/ticket, firing",
			msg.Receiver, msg.path, msg.Status, got.Status)
	}
	wantLabels := map[string]string{
		"alertname": alertName, "account": "demo", "region": "us-east-1", "table": alertTable,
		"severity": "warning", "job": job, "instance": instance,
	}
	if !reflect.DeepEqual(got.Labels, wantLabels) {
		t.Errorf("delivered labels %v, want %v", got.Labels, wantLabels)
	}
	var rule alerts.Rule
	for _, g := range alerts.Pack() {
		for _, r := range g.Rules {
			if r.Alert == alertName {
				rule = r
			}
		}
	}
	value, err := strconv.ParseFloat(firing.Value, 64)
	if err != nil || value <= 0 {
		t.Fatalf("alert value %q: want a positive number (%v)", firing.Value, err)
	}
	// The description is the pack's template with the labels and the value
	// Prometheus evaluated (through humanize) in place.
	description := strings.NewReplacer(
		"{{ $labels.table }}", alertTable,
		"{{ $labels.account }}", "demo",
		"{{ $labels.region }}", "us-east-1",
		"{{ $value | humanize }}", humanize(value),
	).Replace(rule.Description)
	if strings.Contains(description, "{{") {
		t.Fatalf("the description template of %s has more than the test fills in: %s", alertName, description)
	}
	wantAnnotations := map[string]string{
		"summary":     rule.Summary,
		"description": description,
		"runbook_url": alerts.DefaultRunbookBaseURL + alertName + ".md",
	}
	if !reflect.DeepEqual(got.Annotations, wantAnnotations) {
		t.Errorf("delivered annotations:\n%v\nwant:\n%v", got.Annotations, wantAnnotations)
	}
	if !reflect.DeepEqual(firing.Annotations, wantAnnotations) {
		t.Errorf("Prometheus's annotations of the alert %v differ from the expected %v", firing.Annotations, wantAnnotations)
	}
	t.Logf("delivered: labels %v; description %q", got.Labels, got.Annotations["description"])
}

// humanize formats v as Prometheus's template function humanize does for
// |v| >= 1: four significant digits and a metric prefix (k, M, G, ...).
func humanize(v float64) string {
	prefix := ""
	for _, p := range []string{"k", "M", "G", "T", "P", "E", "Z", "Y"} {
		if math.Abs(v) < 1000 {
			break
		}
		prefix = p
		v /= 1000
	}
	return fmt.Sprintf("%.4g%s", v, prefix)
}

// checkPrometheusCounters reads Prometheus's own metrics: no rule
// evaluation failed, no sample of a scrape was refused, no notification to
// Alertmanager failed or was dropped, and some were sent.
func checkPrometheusCounters(t *testing.T, prom string) {
	t.Helper()
	resp, err := http.Get(prom + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]float64{}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		v, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
		if err != nil {
			continue
		}
		sums[name] += v
		seen[name] = true
	}
	for _, name := range []string{
		"prometheus_rule_evaluation_failures_total",
		"prometheus_target_scrapes_sample_duplicate_timestamp_total",
		"prometheus_target_scrapes_sample_out_of_bounds_total",
		"prometheus_target_scrapes_sample_out_of_order_total",
		"prometheus_target_scrapes_exceeded_sample_limit_total",
		"prometheus_notifications_errors_total",
		"prometheus_notifications_dropped_total",
	} {
		if !seen[name] {
			t.Errorf("Prometheus's /metrics has no %s", name)
		} else if sums[name] != 0 {
			t.Errorf("%s = %v, want 0", name, sums[name])
		}
	}
	if sums["prometheus_notifications_sent_total"] == 0 {
		t.Error("prometheus_notifications_sent_total = 0, but an alert arrived")
	}
}

// webhookMessage is an Alertmanager webhook notification, as far as the test
// reads it, with the path it was posted to.
type webhookMessage struct {
	path     string
	Receiver string         `json:"receiver"`
	Status   string         `json:"status"`
	Alerts   []webhookAlert `json:"alerts"`
}

type webhookAlert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// webhook is an HTTP receiver on 127.0.0.1 that records the notifications
// posted to it.
type webhook struct {
	url  string
	mu   sync.Mutex
	msgs []webhookMessage
	errs []string
}

func newWebhook(t *testing.T) *webhook {
	h := &webhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m webhookMessage
		err := json.NewDecoder(r.Body).Decode(&m)
		h.mu.Lock()
		defer h.mu.Unlock()
		if err != nil || r.Method != http.MethodPost {
			h.errs = append(h.errs, fmt.Sprintf("%s %s: %v", r.Method, r.URL.Path, err))
			http.Error(w, "bad notification", http.StatusBadRequest)
			return
		}
		m.path = r.URL.Path
		h.msgs = append(h.msgs, m)
	}))
	t.Cleanup(srv.Close)
	if u, err := url.Parse(srv.URL); err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("webhook at %s, want 127.0.0.1", srv.URL)
	}
	h.url = srv.URL
	return h
}

func (h *webhook) messages() []webhookMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.msgs)
}

func (h *webhook) errors() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.errs)
}

// waitFor polls cond every half second until it holds, and fails the test
// with cond's last status once deadline passes.
func waitFor(t *testing.T, what string, deadline time.Time, cond func() (bool, string)) {
	t.Helper()
	for {
		done, status := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last: %s", what, status)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
