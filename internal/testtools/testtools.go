// Package testtools lets tests find and start the external programs that
// scripts/install-tools.sh installs: promtool, prometheus, alertmanager,
// amtool and helm binaries, DynamoDB Local and dynalite.
//
// Tools are looked up in $DYNAMODB_EXPORTER_TOOLS (set by ./scripts/test),
// then in <repo root>/.tools, then (for binaries) on PATH. When a tool is
// missing the calling test is skipped with a message that starts with
// "SKIPPED (tool missing):" and says how to install it; when the environment
// variable CI is "true" the test fails instead, so that CI never passes by
// skipping.
package testtools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ToolsEnv names the environment variable that points at the tools directory.
const ToolsEnv = "DYNAMODB_EXPORTER_TOOLS"

// installScript is the installer, relative to the repository root.
const installScript = "./scripts/install-tools.sh"

// Promtool returns the path of the promtool binary, or skips (fails in CI)
// the test when it is not installed.
func Promtool(t testing.TB) string {
	t.Helper()
	return binary(t, "promtool")
}

// Prometheus returns the path of the prometheus binary, or skips (fails in
// CI) the test when it is not installed.
func Prometheus(t testing.TB) string {
	t.Helper()
	return binary(t, "prometheus")
}

// Alertmanager returns the path of the alertmanager binary, or skips (fails
// in CI) the test when it is not installed.
func Alertmanager(t testing.TB) string {
	t.Helper()
	return binary(t, "alertmanager")
}

// Amtool returns the path of the amtool binary (Alertmanager's command-line
// tool, built from the same release as alertmanager), or skips (fails in CI)
// the test when it is not installed.
func Amtool(t testing.TB) string {
	t.Helper()
	return binary(t, "amtool")
}

// Helm returns the path of the helm binary, or skips (fails in CI) the test
// when it is not installed.
func Helm(t testing.TB) string {
	t.Helper()
	return binary(t, "helm")
}

// RepoRoot returns the repository root: the nearest directory at or above the
// working directory (a package directory under go test) that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding repository root: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// ToolsDirs returns the directories searched for tools, in order:
// $DYNAMODB_EXPORTER_TOOLS when set, then <repo root>/.tools.
func ToolsDirs() []string {
	var dirs []string
	if dir := os.Getenv(ToolsEnv); dir != "" {
		dirs = append(dirs, dir)
	}
	if root, err := RepoRoot(); err == nil {
		dir := filepath.Join(root, ".tools")
		if len(dirs) == 0 || filepath.Clean(dirs[0]) != dir {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// findInTools returns the first existing <tools dir>/rel and whether one was
// found.
func findInTools(rel string) (string, bool) {
	for _, dir := range ToolsDirs() {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// binary finds an executable in the tools' bin directories, then on PATH.
func binary(t testing.TB, name string) string {
	t.Helper()
	for _, dir := range ToolsDirs() {
		p := filepath.Join(dir, "bin", name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	missing(t, name+" not found", "run "+installScript+" "+name)
	return ""
}

// missing skips the test, or fails it when CI=true, because a tool is missing.
// hint says how to get the tool.
func missing(t testing.TB, what, hint string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("tool missing in CI (CI=true): %s; %s", what, hint)
		return
	}
	t.Skipf("SKIPPED (tool missing): %s; %s", what, hint)
}
