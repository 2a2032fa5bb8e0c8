package sim

import (
	"embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

//go:embed scenarios/*.yaml
var builtinFS embed.FS

// BuiltinNames returns the names of the shipped scenarios, sorted.
func BuiltinNames() []string {
	entries, err := builtinFS.ReadDir("scenarios")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Builtin returns the shipped scenario name, validated.
func Builtin(name string) (*Scenario, error) {
	return loadBuiltin(name, nil)
}

func loadBuiltin(name string, stack []string) (*Scenario, error) {
	if slices.Contains(stack, name) {
		return nil, fmt.Errorf("scenario %s: include cycle %s", name, strings.Join(append(stack, name), " -> "))
	}
	data, err := builtinFS.ReadFile(path.Join("scenarios", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (built-in: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return load(data, name+".yaml", append(stack, name))
}

// LoadScenario reads and validates a scenario from YAML. Errors name the
// key and its line.
func LoadScenario(data []byte) (*Scenario, error) {
	return load(data, "<input>", nil)
}

// LoadScenarioFile reads and validates the scenario file at path.
func LoadScenarioFile(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return load(data, file, nil)
}

func load(data []byte, source string, stack []string) (*Scenario, error) {
	sc, err := parseScenario(data, source)
	if err != nil {
		return nil, err
	}
	var included []*Scenario
	for i, name := range sc.Include {
		inc, err := loadBuiltin(name, stack)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %s: %w", source, sc.at(fmt.Sprintf("include[%d]", i)), err)
		}
		included = append(included, inc)
		if !sc.has("history") && inc.History > sc.History {
			sc.History = inc.History
			sc.lines["history"] = 0
		}
		if !sc.has("horizon") && inc.Horizon > sc.Horizon {
			sc.Horizon = inc.Horizon
			sc.lines["horizon"] = 0
		}
	}
	if err := sc.validate(); err != nil {
		return nil, err
	}
	for i, inc := range included {
		p := sc.at(fmt.Sprintf("include[%d]", i))
		if inc.History > sc.History || inc.Horizon > sc.Horizon {
			return nil, fmt.Errorf("scenario %s: %s: %s reaches from %s to %s, beyond this scenario's history and horizon",
				source, p, inc.Name, formatOffset(-inc.History.D()), formatOffset(inc.Horizon.D()))
		}
		for _, r := range inc.Account.Regions {
			if !slices.Contains(sc.Account.Regions, r) {
				sc.Account.Regions = append(sc.Account.Regions, r)
			}
		}
		for _, t := range inc.Tables {
			if slices.ContainsFunc(sc.Tables, func(o TableSpec) bool { return o.Name == t.Name && o.Region == t.Region }) {
				return nil, fmt.Errorf("scenario %s: %s: table %s in %s is defined twice", source, p, t.Name, t.Region)
			}
			sc.Tables = append(sc.Tables, t)
		}
		sc.Faults = append(sc.Faults, inc.Faults...)
		sc.Account.UserErrorsPerMinute = max(sc.Account.UserErrorsPerMinute, inc.Account.UserErrorsPerMinute)
	}
	return sc, nil
}
