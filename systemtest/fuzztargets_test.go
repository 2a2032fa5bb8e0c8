package systemtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFuzzTargetRunsInCI finds every fuzz target of the module and
// checks that scripts/test fuzzes it (with its package) and that its seed
// corpus is committed in the package's testdata/fuzz/<Name>/.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "scripts", "test"))
	if err != nil {
		t.Fatal(err)
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	found := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			rel, err := filepath.Rel("..", filepath.Dir(path))
			if err != nil {
				return err
			}
			name, pkg := string(m[1]), "./"+filepath.ToSlash(rel)
			found++
			// Each target is a line "<package> <Name> <inputs>" of the
			// fuzz loop: the inputs it runs are a count, not a duration.
			if !regexp.MustCompile(`"` + regexp.QuoteMeta(pkg+" "+name) + ` [1-9][0-9]*"`).Match(script) {
				t.Errorf("scripts/test does not fuzz %s in %s", name, pkg)
			}
			seeds, _ := os.ReadDir(filepath.Join(filepath.Dir(path), "testdata", "fuzz", name))
			if len(seeds) == 0 {
				t.Errorf("%s in %s has no committed corpus in testdata/fuzz/%s", name, pkg, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no fuzz target found")
	}
}
