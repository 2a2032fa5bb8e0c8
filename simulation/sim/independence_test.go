package sim

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// capacityPkg is the cost model the simulator is a witness against.
const capacityPkg = "github.com/dynamodb-exporter/dynamodb_exporter/capacity"

// TestSimulationDoesNotImportCapacity: no Go file under simulation/
// (tests included) imports the cost model, so the simulator states AWS's
// rules on its own (rules.go) and a misreading in one cannot pass
// unnoticed through both.
func TestSimulationDoesNotImportCapacity(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == capacityPkg || strings.HasPrefix(p, capacityPkg+"/") {
				t.Errorf("%s imports %s: the simulator must state AWS's rules itself", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed %d Go files under simulation/, expected the whole tree", files)
	}
}
