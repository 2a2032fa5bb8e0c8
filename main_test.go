package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// TestDemoServesEveryFamily runs the demo in-process on a free port and
// scrapes it over HTTP: every catalogued family must be served within
// seconds, except the AWS request error counter, which only exists once an
// AWS call failed (the exporter-faults scenario shows it).
func TestDemoServesEveryFamily(t *testing.T) {
	sc, err := loadScenario("demo")
	if err != nil {
		t.Fatal(err)
	}
	srv, _, err := simulatedAccount(sc, clock.Real{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- runDemo(ctx, srv, sc, webFlags{ListenAddresses: []string{"127.0.0.1:0"}, TelemetryPath: "/metrics"}, logFlags{Level: "error", Format: "logfmt"}, func(a []string) { addrc <- a[0] })
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
			if f.Name == catalogue.ExporterAWSRequestErrorsTotal {
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

// TestBinaryRejectsBadConfig builds the binary and checks that a bad config
// is reported with its key and a non-zero exit before anything starts.
func TestBinaryRejectsBadConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildExporter(t)
	cfg := filepath.Join(t.TempDir(), "bad.yml")
	if err := os.WriteFile(cfg, []byte("collectors:\n  cloudwatch:\n    delay: soon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--config", cfg, "--web.listen-address", "127.0.0.1:0"},
		{"check", "--config", cfg},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() == 0 {
			t.Fatalf("%v: exit %v, want non-zero; output:\n%s", args, err, out)
		}
		if !strings.Contains(string(out), `collectors.cloudwatch.delay (line 3): invalid duration "soon"`) {
			t.Errorf("%v: output does not name the key:\n%s", args, out)
		}
	}
	out, err := exec.Command(bin, "serve", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("serve --help: %v\n%s", err, out)
	}
	for _, flag := range []string{"--web.listen-address", "--web.telemetry-path", "--web.config.file", "--log.level", "--log.format", "--config", "($DYNAMODB_EXPORTER_CONFIG)", "--endpoint.cloudwatch", "--runtime.gogc", "--[no-]runtime.auto-gomemlimit"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("--help lacks %s:\n%s", flag, out)
		}
	}
}

// buildExporter builds the exporter's binary into a temporary directory and
// returns its path.
func buildExporter(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dynamodb_exporter")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
