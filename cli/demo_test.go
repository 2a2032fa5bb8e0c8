package cli

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// TestDemoRunsAPinnedScenarioOnItsOwnClock runs the demo command on a
// scenario whose start is pinned almost three years before now. On the
// wall clock the simulation would run every minute from the start of its
// history to now (about 25,000 hours); on the scenario's own clock it
// simulates its 2 days of history and the exporter sees the scenario's
// time.
func TestDemoRunsAPinnedScenarioOnItsOwnClock(t *testing.T) {
	pinned := time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)
	file := filepath.Join(t.TempDir(), "pinned.yaml")
	if err := os.WriteFile(file, []byte(`name: pinned
start: 2024-01-10T12:00:00Z
history: 2d
horizon: 1d
tables:
  - name: pinned-table
    capacity: {read: 10, write: 10}
    traffic: {read: 2, write: 1}
    billing_switches:
      - {at: -1d1h, every: 6h, mode: on_demand}
      - {at: -22h, every: 6h, mode: provisioned}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &demoCmd{Scenario: file, webFlags: webFlags{ListenAddresses: []string{"127.0.0.1:0"}, TelemetryPath: "/metrics"}, logFlags: logFlags{Level: "error", Format: "logfmt"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := d.run(ctx, time.Now(), pw)
		pw.CloseWithError(err)
		done <- err
	}()
	var banner []string
	var addr string
	sc := bufio.NewScanner(pr)
	for addr == "" && sc.Scan() {
		banner = append(banner, sc.Text())
		if m := regexp.MustCompile(`metrics at http://(\S+)/metrics`).FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if addr == "" {
		t.Fatalf("the demo did not start: %v\n%s", sc.Err(), strings.Join(banner, "\n"))
	}
	text := strings.Join(banner, "\n")
	for _, want := range []string{`scenario "pinned", 1 tables, 48h0m0s of history simulated`, "on the scenario's clock, from its start 2024-01-10T12:00:00Z"} {
		if !strings.Contains(text, want) {
			t.Errorf("banner lacks %q:\n%s", want, text)
		}
	}
	// The exporter runs on the scenario's clock: its collectors succeed
	// at the pinned time, and the table's last switch to on-demand is the
	// scenario's last, at -1h.
	re := regexp.MustCompile(`(?m)^dynamodb_exporter_collector_last_success_timestamp_seconds\{[^}]*collector="tables"[^}]*\} (\S+)$`)
	sw := regexp.MustCompile(`(?m)^dynamodb_last_switch_to_on_demand_timestamp_seconds\{[^}]*table="pinned-table"\} (\S+)$`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		body := scrape(t, addr)
		m, s := re.FindStringSubmatch(body), sw.FindStringSubmatch(body)
		if m != nil && s != nil {
			at := parseSeconds(t, m[1])
			if at.Before(pinned) || at.After(pinned.Add(time.Minute)) {
				t.Errorf("tables collector succeeded at %s, want within a minute of the pinned start %s", at, pinned)
			}
			if got := parseSeconds(t, s[1]); !got.Equal(pinned.Add(-time.Hour)) {
				t.Errorf("last switch to on-demand %s, want the scenario's -1h switch %s", got, pinned.Add(-time.Hour))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tables collector success nor switch timestamp within 30s:\n%.3000s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The landing page links the metrics and shows the fleet summary once
	// the capacity collector has run: the table with its recommendation.
	var page string
	for deadline := time.Now().Add(30 * time.Second); ; {
		page = get(t, "http://"+addr+"/")
		if strings.Contains(page, "<td>pinned-table</td>") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{`<a href="/metrics">Metrics</a>`, "<h2>Fleet summary</h2>", "<td>pinned-table</td>", "<td>demo / us-east-1</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("landing page lacks %q:\n%s", want, page)
		}
	}
	if !regexp.MustCompile(`(keep|switch_to_on_demand|switch_to_provisioned) \((cheaper|saving_below_minimum|simulated_throttling|traffic_below_minimum)\)`).MatchString(page) {
		t.Errorf("landing page shows no recommendation:\n%s", page)
	}
	stopDemo(t, cancel, done)
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	return get(t, "http://"+addr+"/metrics")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parseSeconds(t *testing.T, s string) time.Time {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(0, int64(f*1e9)).UTC()
}

// TestDemoServesEveryFamily runs the demo in-process on a free port and
// scrapes it over HTTP: every catalogued family must be served within
// seconds, except the two listed in missing with their reason.
func TestDemoServesEveryFamily(t *testing.T) {
	sc, err := loadScenario("demo")
	if err != nil {
		t.Fatal(err)
	}
	acct, err := harness.StartAccount(sc, clock.Real{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer acct.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- runDemo(ctx, acct, webFlags{ListenAddresses: []string{"127.0.0.1:0"}, TelemetryPath: "/metrics"}, logFlags{Level: "error", Format: "logfmt"}, func(a []string) { addrc <- a[0] })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("demo stopped early: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("demo did not start listening")
	}
	missing := func(body string) []string {
		var out []string
		for _, f := range catalogue.All() {
			// The AWS request error counter appears only once an AWS
			// call failed (the exporter-faults scenario shows it); the
			// diagnosis's simulated throttled units appear only where the
			// consumed history holds demand the table's policy would
			// not have served: the demo's tables throttled as their
			// policies say, so CloudWatch's consumed figures are capped
			// and the simulation throttles nothing; their saturated
			// time shows the failure instead (collectors
			// TestDiagnosisOfTheDemo).
			// The judgement of a billing-mode switch needs a latest
			// switch 1 to 14 days old: the demo's switching tables
			// (reports-churn, reports-schedule) switch again within a
			// day, so none is judged (the validation scenario
			// cap-mode-switch-regressed has one; exporter
			// TestCapacityModeSwitchFromTheHistory emits them).
			if f.Name == catalogue.ExporterAWSRequestErrorsTotal || f.Name == catalogue.CapacityDiagnosisThrottled ||
				f.Name == catalogue.CapacityModeSwitchTimestamp || f.Name == catalogue.CapacityModeSwitchDailyCost || f.Name == catalogue.CapacityModeSwitchCostChange {
				continue
			}
			if !strings.Contains(body, "\n"+f.Name+"{") && !strings.Contains(body, "\n"+f.Name+"_count{") && !strings.Contains(body, "\n"+f.Name+" ") {
				out = append(out, f.Name)
			}
		}
		return out
	}
	var body string
	var left []string
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if left = missing(body); len(left) == 0 {
				break
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("demo /metrics lacks %v", left)
	}
	// Plausibility: the failure modes show up as the alerts will need them.
	for _, want := range []string{
		`dynamodb_table_info{account="demo",billing_mode="PAY_PER_REQUEST"`,
		`dynamodb_ttl_sampled_items{account="demo",class="milliseconds"`,
		`dynamodb_capacity_recommendation_info{`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("demo /metrics lacks %s", want)
		}
	}
	stopDemo(t, cancel, done)
}

// stopDemo cancels a demo run and checks that it stops cleanly and soon.
func stopDemo(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo returned %v on shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("demo did not stop")
	}
}
