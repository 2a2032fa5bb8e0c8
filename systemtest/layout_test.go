package systemtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayoutMatchesTheTree checks the README's Layout section against
// the tree: every path it names exists, and every top-level folder and
// every folder of simulation/ holding tracked files is named.
func TestReadmeLayoutMatchesTheTree(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "\n## Layout\n")
	if i < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	section := readme[i+len("\n## Layout\n"):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9_./-]*)`").FindAllStringSubmatch(section, -1) {
		p := strings.TrimSuffix(m[1], "/")
		if !strings.Contains(m[1], "/") && !strings.HasSuffix(p, ".go") {
			continue // a word in backquotes (a verb, a package name), not a path
		}
		named[p] = true
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("README's Layout names %s, which is not in the tree", m[1])
		}
	}
	out, err := exec.Command("git", "-C", "..", "ls-files").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the test reads the tracked files of a git checkout)", err)
	}
	folders := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(f, "/")
		switch {
		case len(parts) > 2 && (parts[0] == "simulation" || parts[0] == "cmd"):
			folders[parts[0]+"/"+parts[1]] = true
		case len(parts) > 1 && parts[0] != "simulation" && parts[0] != "cmd" && !strings.HasPrefix(parts[0], "."):
			folders[parts[0]] = true
		}
	}
	for f := range folders {
		if !named[f] {
			t.Errorf("the folder %s/ is not in the README's Layout section", f)
		}
	}
}
