package testtools

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testtools")); err != nil {
		t.Errorf("RepoRoot() = %s, which has no internal/testtools: %v", root, err)
	}
}

// recordingTB records Fatalf and Skipf instead of stopping the test.
type recordingTB struct {
	testing.TB
	fatal, skip string
}

func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordingTB) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

func TestMissingToolSkipsOrFailsInCI(t *testing.T) {
	// No tools dir, no repository (so no <repo root>/.tools), empty PATH.
	t.Setenv(ToolsEnv, "")
	t.Chdir(t.TempDir())
	t.Setenv("PATH", t.TempDir())

	t.Setenv("CI", "")
	rec := &recordingTB{TB: t}
	Promtool(rec)
	want := "SKIPPED (tool missing): promtool not found; run ./scripts/install-tools.sh promtool"
	if rec.skip != want || rec.fatal != "" {
		t.Errorf("outside CI: skip %q, fatal %q; want skip %q", rec.skip, rec.fatal, want)
	}

	t.Setenv("CI", "true")
	rec = &recordingTB{TB: t}
	Alertmanager(rec)
	if rec.skip != "" || !strings.Contains(rec.fatal, "./scripts/install-tools.sh alertmanager") {
		t.Errorf("in CI: skip %q, fatal %q; want a failure with the install command", rec.skip, rec.fatal)
	}
	rec = &recordingTB{TB: t}
	Amtool(rec)
	if rec.skip != "" || !strings.Contains(rec.fatal, "./scripts/install-tools.sh amtool") {
		t.Errorf("in CI: skip %q, fatal %q; want a failure naming amtool's install command", rec.skip, rec.fatal)
	}
}

func TestAmtoolChecksConfig(t *testing.T) {
	amtool := Amtool(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yml")
	if err := os.WriteFile(good, []byte("route: {receiver: r}\nreceivers: [{name: r}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := RunCommand(t, "", amtool, "check-config", good); res.ExitCode != 0 {
		t.Errorf("amtool check-config on a valid configuration: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("route: {receiver: nobody}\nreceivers: [{name: r}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := RunCommand(t, "", amtool, "check-config", bad); res.ExitCode == 0 {
		t.Errorf("amtool check-config accepted a route to an undefined receiver:\n%s%s", res.Stdout, res.Stderr)
	}
}

func TestPromtoolChecksMetrics(t *testing.T) {
	promtool := Promtool(t)
	good := "# HELP demo_requests_total Requests served.\n# TYPE demo_requests_total counter\ndemo_requests_total 3\n"
	if res := RunCommand(t, good, promtool, "check", "metrics"); res.ExitCode != 0 {
		t.Errorf("promtool check metrics on valid input: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	bad := "demo_requests_total{ 3\n"
	if res := RunCommand(t, bad, promtool, "check", "metrics"); res.ExitCode == 0 {
		t.Errorf("promtool check metrics accepted invalid input:\n%s%s", res.Stdout, res.Stderr)
	}
}

func TestServers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *server
	}{
		{"DynamoDBLocal", startDynamoDBLocal},
		{"Dynalite", startDynalite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *server
			ok := t.Run("ListTables", func(t *testing.T) {
				srv = tc.start(t)
				client := dynamodb.NewFromConfig(AWSConfig(srv.endpoint))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
				if err != nil {
					t.Fatalf("ListTables against %s: %v", srv.endpoint, err)
				}
				if len(out.TableNames) != 0 {
					t.Errorf("fresh server has tables %v", out.TableNames)
				}
			})
			if !ok || srv == nil {
				return // failed or skipped: already reported
			}
			// The subtest's cleanup has run: the server must be gone.
			deadline := time.Now().Add(5 * time.Second)
			for processGroupAlive(srv.pid) {
				if time.Now().After(deadline) {
					t.Fatalf("process group %d still alive after cleanup", srv.pid)
				}
				time.Sleep(50 * time.Millisecond)
			}
			addr := strings.TrimPrefix(srv.endpoint, "http://")
			if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				conn.Close()
				t.Errorf("%s still accepts connections after cleanup", addr)
			}
		})
	}
}

func TestExportedStartersReturnEndpoints(t *testing.T) {
	for name, start := range map[string]func(testing.TB) string{
		"DynamoDBLocal": StartDynamoDBLocal,
		"Dynalite":      StartDynalite,
	} {
		t.Run(name, func(t *testing.T) {
			endpoint := start(t)
			if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
				t.Errorf("endpoint %q, want http://127.0.0.1:PORT", endpoint)
			}
			if err := pingListTables(endpoint); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestServerExitingEarlyIsReportedWithOutput(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tc := range []struct {
		name         string
		script       string
		wantOutput   string
		wantAttempts int
	}{
		{"crash", "echo boom >&2; exit 3", "boom", 1},
		{"port taken", "echo 'java.net.BindException: Address already in use' >&2; exit 1", "BindException", 3},
		{"port taken (Go)", "echo 'listen tcp 127.0.0.1:9: bind: address already in use' >&2; exit 1", "bind: address already in use", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attempts := 0
			rec := &recordingTB{TB: t}
			srv := startServer(rec, serverSpec{
				name: "fake",
				dir:  t.TempDir(),
				args: func(int) []string {
					attempts++
					return []string{sh, "-c", tc.script}
				},
			})
			if srv != nil {
				t.Fatalf("startServer returned %+v for a server that exits", srv)
			}
			if attempts != tc.wantAttempts {
				t.Errorf("%d attempts, want %d", attempts, tc.wantAttempts)
			}
			if !strings.Contains(rec.fatal, "fake exited before answering") ||
				!strings.Contains(rec.fatal, tc.wantOutput) {
				t.Errorf("failure message %q lacks the exit or the output tail", rec.fatal)
			}
		})
	}
}

func TestStartAlertmanager(t *testing.T) {
	Alertmanager(t) // skips (fails in CI) when missing
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yml")
	if err := os.WriteFile(good, []byte("route: {receiver: r}\nreceivers: [{name: r}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint := StartAlertmanager(t, good)
	resp, err := http.Get(endpoint + "/api/v2/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || resp.StatusCode != http.StatusOK {
		t.Errorf("endpoint %q answers /api/v2/status with HTTP %d", endpoint, resp.StatusCode)
	}

	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("route: {receiver: nobody}\nreceivers: [{name: r}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recordingTB{TB: t}
	StartAlertmanager(rec, bad)
	if !strings.Contains(rec.fatal, "alertmanager exited before answering") || !strings.Contains(rec.fatal, "nobody") {
		t.Errorf("a configuration alertmanager refuses: failure %q, want the exit and its output", rec.fatal)
	}
}

func TestStartPrometheus(t *testing.T) {
	Prometheus(t) // skips (fails in CI) when missing
	dir := t.TempDir()
	good := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(good, []byte("global: {scrape_interval: 1m}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint, _ := StartPrometheus(t, good, t.TempDir())
	resp, err := http.Get(endpoint + "/api/v1/query?query=1%2B1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(body), `"2"`) {
		t.Errorf("endpoint %q answers 1+1 with HTTP %d: %s", endpoint, resp.StatusCode, body)
	}

	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("scrape_configs: [{job_name: x, scrape_interval: soon}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recordingTB{TB: t}
	StartPrometheus(rec, bad, t.TempDir())
	if !strings.Contains(rec.fatal, "prometheus exited before answering") || !strings.Contains(rec.fatal, "soon") {
		t.Errorf("a configuration prometheus refuses: failure %q, want the exit and its output", rec.fatal)
	}
}

func TestStartProgramWaitsForReadyPath(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// A program that never listens: Start must not return an endpoint.
	rec := &recordingTB{TB: t}
	saved := startTimeout
	startTimeout = time.Second
	defer func() { startTimeout = saved }()
	if got := Start(rec, Program{Name: "silent", Args: func(int) []string { return []string{sh, "-c", "sleep 30"} }, ReadyPath: "/"}); got != "" {
		t.Errorf("Start returned %q for a program that never answers", got)
	}
	if !strings.Contains(rec.fatal, "silent did not answer") {
		t.Errorf("failure %q, want the program named as not answering", rec.fatal)
	}
}
