package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// TestDemoServesPopulatedMetrics runs the demo in-process on a free port and
// scrapes it over HTTP.
func TestDemoServesPopulatedMetrics(t *testing.T) {
	sim := awssim.NewFixture(clock.Real{})
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- runDemo(ctx, sim, "127.0.0.1:0", logFlags{Level: "error", Format: "logfmt"}, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("demo stopped early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not start listening")
	}
	var body string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if strings.Contains(body, catalogue.ConsumedReadCapacityUnits+"{") {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, fam := range []string{catalogue.TableInfo, catalogue.ConsumedReadCapacityUnits, catalogue.ProvisionedReadCapacityUnits,
		catalogue.AutoScalingTargetUtilization, catalogue.TableTTLInfo, catalogue.ExporterBuildInfo, "go_goroutines"} {
		if !strings.Contains(body, "\n"+fam+"{") && !strings.Contains(body, "\n"+fam+" ") {
			t.Errorf("demo /metrics lacks %s", fam)
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
	bin := filepath.Join(t.TempDir(), "dynamodb_exporter")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	for _, flag := range []string{"--web.listen-address", "--web.telemetry-path", "--web.config.file", "--log.level", "--log.format", "--config", "($DYNAMODB_EXPORTER_CONFIG)", "--endpoint.cloudwatch"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("--help lacks %s:\n%s", flag, out)
		}
	}
}
