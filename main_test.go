package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

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

// TestMain removes the binary buildExporter built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// buildExporter builds the exporter's binary, once for all the tests of
// the process, and returns its path.
func buildExporter(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "dynamodb-exporter-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "dynamodb_exporter")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}
