package systemtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/crypto/bcrypt"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// leakScenario is the exporter-faults scenario (CloudWatch throttling, 5xx,
// slow answers, AccessDenied on one table, a table deleted mid-run) plus a
// TTL table whose items carry keys and values the exporter reads and must
// never repeat.
const leakScenario = `
name: leaks
include: [exporter-faults]
tables:
  - name: leak-sessions
    billing: on_demand
    traffic: {read: 5, write: 2, noise: 0.05}
    ttl:
      attribute: expires_at
      items:
        - {class: live, count: 200, written: 0, spread: 1d, expires_in: 30d}
        - {class: milliseconds, count: 200, written: 0, spread: 1d, expires_in: 7d}
        - {class: string, count: 100, written: 0, spread: 1d, expires_in: 7d}
      writes: {per_minute: 1, class: seconds, expires_in: 1h, from: -1d}
`

// Secrets the test configures or the simulated STS issues.
const (
	leakBaseKeyID     = "AKIALEAKTESTBASE0001"
	leakBaseSecret    = "leakTestBaseSecretKey0123456789abcdefABCD"
	leakPassword      = "leak-test-basic-auth-password"
	leakWrongPassword = "leak-test-wrong-password-attempt"
)

// stsCapture records the credentials the simulated STS hands out, from its
// responses, as a client would see them.
type stsCapture struct {
	mu      sync.Mutex
	secrets []string
}

var stsCredRE = regexp.MustCompile(`<(AccessKeyId|SecretAccessKey|SessionToken)>([^<]+)</`)

func (c *stsCapture) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for _, m := range stsCredRE.FindAllStringSubmatch(rec.Body.String(), -1) {
			c.mu.Lock()
			c.secrets = append(c.secrets, m[2])
			c.mu.Unlock()
		}
		hdr := w.Header()
		for k, v := range rec.Header() {
			hdr[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func (c *stsCapture) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.secrets)
}

// leakTokens splits text into the tokens an item key or value could appear
// as: runs of letters, digits, '-' and '_'.
var leakTokenRE = regexp.MustCompile(`[A-Za-z0-9_-]+`)

// findLeaks returns each secret (as a substring) and each item token (as a
// whole token) that text holds.
func findLeaks(text string, secrets []string, items map[string]bool) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(text, s) {
			out = append(out, "secret "+s)
		}
	}
	for _, tok := range leakTokenRE.FindAllString(text, -1) {
		if items[tok] {
			out = append(out, "item value "+tok)
		}
	}
	return out
}

// TestNoLeaks runs the exporter as an assumed role on the exporter-faults
// scenario plus a TTL table with items, behind basic auth, for 2.5
// simulated hours through every fault (logging at debug level), then runs
// check, ttl audit (on the TTL table, the refused table and a missing one)
// and capacity report. No access key, secret key, session token,
// basic-auth password (right, wrong or hashed), item key or item value may
// appear in /metrics, in the log, in an error or in a command's output.
func TestNoLeaks(t *testing.T) {
	sc, err := sim.LoadScenario([]byte(leakScenario))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC)
	clk := clock.NewManual(start)
	acct := harnesstest.Account(t, sc, clk)
	srv, eng := acct.Server, acct.Engine
	capture := &stsCapture{}
	endpoint := httptest.NewServer(capture.wrap(srv.Handler()))
	defer endpoint.Close()

	cfg, err := config.Parse([]byte(fmt.Sprintf(`
accounts:
  - name: leaks
    role_arn: arn:aws:iam::123456789012:role/dynamodb-exporter
    regions: [%s]
collectors:
  discovery: {interval: 1m}
  tables: {interval: 1m}
  autoscaling: {interval: 5m}
  cloudwatch: {interval: 1m, delay: 2m}
  ttl: {interval: 5m, table_interval: 30m}
  capacity: {interval: 1h}
`, strings.Join(sc.Account.Regions, ", "))))
	if err != nil {
		t.Fatal(err)
	}
	var logs testtools.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	awsOpts := awsclient.Options{
		Credentials: credentials.NewStaticCredentialsProvider(leakBaseKeyID, leakBaseSecret, ""),
		Endpoints:   config.Endpoints{DynamoDB: endpoint.URL, CloudWatch: endpoint.URL, ApplicationAutoScaling: endpoint.URL, STS: endpoint.URL},
	}
	// The SDK asks STS for 15-minute credentials and renews them by the wall
	// clock, which the simulated clock outruns: the exporter is restarted
	// (built afresh, as a new process would be) every 10 simulated minutes,
	// assuming the role anew each time.
	var handler atomic.Pointer[http.Handler]
	build := func() *exporter.App {
		app, err := exporter.Build(context.Background(), cfg, exporter.Options{
			Clock: clk, Logger: logger, AWS: awsOpts, RuntimeMetrics: true, TTLSeed: 1,
			TTLPace: func(context.Context, time.Duration) error { return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		h, err := app.Handler("/metrics", logger)
		if err != nil {
			t.Fatal(err)
		}
		handler.Store(&h)
		return app
	}
	app := build()

	// Serve /metrics behind basic auth, as --web.config.file does.
	hash, err := bcrypt.GenerateFromPassword([]byte(leakPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	delegate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) })
	go func() { served <- exporter.ServeAll(ctx, []net.Listener{l}, delegate, webCfg, logger) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	scrape := func(password string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+l.Addr().String()+"/metrics", nil)
		req.SetBasicAuth("prometheus", password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// Every text the exporter produced, by where it came from.
	texts := map[string]*strings.Builder{}
	add := func(where, s string) {
		if texts[where] == nil {
			texts[where] = &strings.Builder{}
		}
		texts[where].WriteString(s)
		texts[where].WriteString("\n")
	}
	var lastMetrics string
	sampled := false // some scrape held leak-sessions' TTL sample
	for at := start; !at.After(start.Add(150 * time.Minute)); at = at.Add(5 * time.Minute) {
		clk.Set(at)
		if err := eng.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
		if at.Sub(start) > 0 && at.Sub(start)%(10*time.Minute) == 0 {
			app = build()
		}
		// The simulated clock stands still while the collectors run, so
		// a fault never ends during a run: a fresh exporter's first
		// capacity-history fetch under CloudWatch throttling backs off
		// (by the wall clock, up to 30 s a time) until every request has
		// been refused 8 times, about 10 minutes. A deadline cuts the
		// run as the scheduler's per-run timeout would; the throttled
		// requests have been made and logged by then.
		runCtx, cancelRun := context.WithTimeout(context.Background(), 5*time.Second)
		app.Scheduler.RunDue(runCtx)
		cancelRun()
		if at.Sub(start)%(15*time.Minute) == 0 {
			code, body := scrape(leakPassword)
			if code != http.StatusOK {
				t.Fatalf("scrape at +%s: status %d", at.Sub(start), code)
			}
			add("/metrics", body)
			lastMetrics = body
			sampled = sampled || ttlSampleOf(body, "leak-sessions")
			if code, body := scrape(leakWrongPassword); code != http.StatusUnauthorized {
				t.Fatalf("scrape with a wrong password: status %d", code)
			} else {
				add("/metrics refused", body)
			}
		}
	}

	// The commands that call AWS, on the same account.
	var out bytes.Buffer
	res := preflight.Run(context.Background(), app, &out)
	add("check output", out.String())
	add("check failures", strings.Join(res.Failed, "\n"))
	for _, table := range []string{"leak-sessions", "faults-secret", "no-such-table"} {
		out.Reset()
		err := ttlAudit(context.Background(), app.Targets[0], table, 300, 200, clk.Now(), &out)
		add("ttl audit "+table+" output", out.String())
		if err != nil {
			add("ttl audit "+table+" error", err.Error())
		}
		if (err == nil) != (table == "leak-sessions") {
			t.Errorf("ttl audit %s: error %v", table, err)
		}
	}
	for _, table := range []string{"", "faults-secret"} {
		out.Reset()
		err := capacityReport(context.Background(), app, table, logger, &out)
		add("capacity report "+table+" output", out.String())
		if err != nil {
			add("capacity report "+table+" error", err.Error())
		}
	}
	add("log", logs.String())

	// The run went through the faults: the texts hold what they must.
	for where, want := range map[string]string{
		"/metrics":                       `dynamodb_exporter_aws_request_errors_total{`,
		"log":                            "collector run finished with errors",
		"ttl audit faults-secret error":  "AccessDenied",
		"ttl audit leak-sessions output": "milliseconds",
	} {
		if !strings.Contains(texts[where].String(), want) {
			t.Errorf("%s lacks %q: the run did not go where the test needs", where, want)
		}
	}
	// A fresh exporter whose DescribeTable calls fail (the 5xx fault)
	// has no TTL sample until its next run: any scrape holding it shows
	// that the sampler read the items.
	if !sampled {
		t.Error("no /metrics scrape holds the TTL sample of leak-sessions: the sampler did not read the items")
	}
	for _, code := range []string{"Throttling", "InternalServerError", "AccessDeniedException"} {
		if !strings.Contains(lastMetrics, code) && !strings.Contains(logs.String(), code) {
			t.Errorf("neither /metrics nor the log shows %s: the fault did not happen", code)
		}
	}

	// What must not appear.
	secrets := append([]string{leakBaseKeyID, leakBaseSecret, leakPassword, leakWrongPassword, string(hash)}, capture.all()...)
	if len(capture.all()) < 3 {
		t.Fatalf("STS issued %d credential parts, want the key ID, secret and session token", len(capture.all()))
	}
	items := map[string]bool{}
	for _, region := range sc.Account.Regions {
		for _, table := range srv.TableNames(region) {
			list, err := srv.Items(region, table)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range list {
				for _, v := range it {
					var s string
					switch v := v.(type) {
					case *types.AttributeValueMemberS:
						s = v.Value
					case *types.AttributeValueMemberN:
						s = v.Value
					}
					if len(s) >= 4 {
						items[s] = true
					}
				}
			}
		}
	}
	if len(items) < 500 {
		t.Fatalf("%d distinct item keys and values, want the scenario's 500 items at least", len(items))
	}
	// The scanner finds what it looks for.
	var sample string
	for v := range items {
		sample = v
		break
	}
	if got := findLeaks("x "+sample+" "+leakBaseSecret, secrets, items); len(got) != 2 {
		t.Fatalf("the scanner finds %v in a text holding an item value and a secret", got)
	}
	total := 0
	for _, where := range slices.Sorted(maps.Keys(texts)) {
		text := texts[where].String()
		total += len(text)
		if leaks := findLeaks(text, secrets, items); len(leaks) > 0 {
			t.Errorf("%s leaks %d: %v", where, len(leaks), leaks[:min(len(leaks), 10)])
		}
	}
	t.Logf("scanned %d bytes from %d sources for %d secrets and %d item keys and values", total, len(texts), len(secrets), len(items))
}

// ttlSampleOf reports whether a /metrics body holds a
// dynamodb_ttl_sampled_items sample of the table.
func ttlSampleOf(body, table string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "dynamodb_ttl_sampled_items{") && strings.Contains(line, `table="`+table+`"`) {
			return true
		}
	}
	return false
}
