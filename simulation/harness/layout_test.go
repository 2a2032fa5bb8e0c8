package harness_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// listedPackage is what go list says of one package of the module.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// modulePackages lists the module's packages and their imports (not their
// tests').
func modulePackages(t *testing.T) (module string, pkgs []listedPackage) {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
		module = p.Module.Path
	}
	return module, pkgs
}

// TestOnlyTheHarnessJoinsSimulationAndExporter keeps the layout the
// harness's doc states: only package harness imports both the simulation
// (sim, awssim, replay) and the exporter; the simulation imports none of the
// models it checks nor the exporter; the packages under internal/ are
// leaves that import no other package of the module but internal ones; and
// the root is one thin main that imports only the CLI.
func TestOnlyTheHarnessJoinsSimulationAndExporter(t *testing.T) {
	module, pkgs := modulePackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	simulation := []string{module + "/simulation/sim", module + "/simulation/awssim", module + "/simulation/replay"}
	models := []string{module + "/exporter", module + "/collectors", module + "/capacity", module + "/ttl"}
	for _, p := range pkgs {
		own := func(prefix string) []string {
			var out []string
			for _, i := range p.Imports {
				if i == prefix || strings.HasPrefix(i, prefix+"/") {
					out = append(out, i)
				}
			}
			return out
		}
		importsSim := slices.ContainsFunc(p.Imports, func(i string) bool { return slices.Contains(simulation, i) })
		importsExporter := slices.Contains(p.Imports, module+"/exporter")
		switch {
		case p.ImportPath == module+"/simulation/harness" || p.ImportPath == module+"/simulation/harness/harnesstest":
			if !importsSim || !importsExporter {
				t.Errorf("%s no longer joins the simulation and the exporter: update this test and the harness's doc", p.ImportPath)
			}
		case importsSim && importsExporter:
			t.Errorf("%s imports both the simulation and the exporter: go through simulation/harness", p.ImportPath)
		}
		if slices.Contains(simulation, p.ImportPath) {
			for _, m := range models {
				if slices.Contains(p.Imports, m) {
					t.Errorf("%s imports %s: the simulation is a witness of the models and never imports them", p.ImportPath, m)
				}
			}
		}
		if strings.HasPrefix(p.ImportPath, module+"/internal/") {
			for _, i := range own(module) {
				if !strings.HasPrefix(i, module+"/internal/") {
					t.Errorf("%s imports %s: internal/ holds leaf packages only", p.ImportPath, i)
				}
			}
		}
		if p.ImportPath == module {
			if got := own(module); !slices.Equal(got, []string{module + "/cli"}) {
				t.Errorf("the root package imports %v of the module, want only %s/cli", got, module)
			}
		}
	}
}
