package testtools

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// chromiumNames are the names the Chromium browser is installed under.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Chromium returns the path of a Chromium (or Chrome) binary, from the tools'
// bin directories or PATH, or skips (fails in CI) the test when none is
// installed. scripts/install-tools.sh installs Debian's chromium package.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, dir := range ToolsDirs() {
		for _, n := range chromiumNames {
			if p, err := exec.LookPath(filepath.Join(dir, "bin", n)); err == nil {
				return p
			}
		}
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	missing(t, "chromium not found", "run "+installScript+" chromium (apt-get install chromium)")
	return ""
}
