package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// shutdownBound is how long the binary may take to exit after SIGTERM,
// even with an AWS call hanging: in-flight calls are cancelled and the HTTP
// server is given at most 5s to finish its requests.
const shutdownBound = 7 * time.Second

// TestSIGTERMWhileAWSHangs builds the binary, runs it against the
// simulated account with every GetMetricData call hanging for 10 minutes,
// checks that /metrics answers quickly while the call hangs, then sends
// SIGTERM and expects a clean exit (status 0) within shutdownBound.
func TestSIGTERMWhileAWSHangs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildExporter(t)

	sim := awssim.NewFixture(clock.Real{})
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	hanging := make(chan struct{}, 64)
	sim.AddFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Delay: 10 * time.Minute,
		OnMatch: func() {
			select {
			case hanging <- struct{}{}:
			default:
			}
		}})

	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`
accounts:
  - name: shutdown
    regions: [us-east-1]
collectors:
  ttl: {enabled: false}
aws:
  endpoints: {dynamodb: %[1]q, cloudwatch: %[1]q, application_autoscaling: %[1]q, sts: %[1]q}
`, sim.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	cmd := exec.Command(bin, "serve", "--config", cfg, "--web.listen-address", addr)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=AKIDSHUTDOWN", "AWS_SECRET_ACCESS_KEY=shutdown-secret",
		"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true")
	var out testtools.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	select {
	case <-hanging:
	case err := <-exited:
		t.Fatalf("the exporter exited early: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no GetMetricData call reached the simulated account in 60s\n%s", out.String())
	}

	// /metrics answers while the call hangs.
	client := &http.Client{Timeout: 5 * time.Second}
	start := time.Now()
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics while AWS hangs: %v", err)
	}
	resp.Body.Close()
	if took := time.Since(start); resp.StatusCode != http.StatusOK || took > time.Second {
		t.Errorf("/metrics while AWS hangs: status %d in %v, want 200 within 1s", resp.StatusCode, took)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case err := <-exited:
		took := time.Since(sent)
		var ee *exec.ExitError
		if errors.As(err, &ee) || err != nil {
			t.Errorf("exit after SIGTERM: %v (want status 0)\n%s", err, out.String())
		}
		if strings.Contains(out.String(), "panic:") {
			t.Errorf("panic on shutdown:\n%s", out.String())
		}
		t.Logf("exited %v after SIGTERM with a GetMetricData call hanging", took)
	case <-time.After(shutdownBound):
		t.Fatalf("still running %v after SIGTERM\n%s", shutdownBound, out.String())
	}
}
