package sim

import (
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/yamlstrict"
)

// decodeDurations reads the Duration and Offset fields of a scenario.
func decodeDurations(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("expected a duration such as 90s, 15m, 2h, 3d or 6w")
	}
	x, err := parseOffset(n.Value)
	if err != nil {
		return err
	}
	if v.Type() == reflect.TypeFor[Duration]() && x < 0 {
		return fmt.Errorf("duration %q must not be negative", n.Value)
	}
	v.SetInt(int64(x))
	return nil
}

// parseScenario decodes YAML into a Scenario without validating it.
func parseScenario(data []byte, source string) (*Scenario, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", source, err)
	}
	sc := &Scenario{lines: map[string]int{}, source: source}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("scenario %s: empty document", source)
	}
	d := yamlstrict.Decoder{
		Types: map[reflect.Type]yamlstrict.ScalarFunc{
			reflect.TypeFor[Duration](): decodeDurations,
			reflect.TypeFor[Offset]():   decodeDurations,
		},
		// Record the line of every key path, for the errors of validation.
		Seen: func(path string, line int) {
			if _, ok := sc.lines[path]; !ok {
				sc.lines[path] = line
			}
		},
		What: "scenario",
	}
	if err := d.Decode(doc.Content[0], sc); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", source, err)
	}
	return sc, nil
}

// at returns "path (line N)" for error messages.
func (sc *Scenario) at(path string) string {
	if l, ok := sc.lines[path]; ok && l > 0 {
		return fmt.Sprintf("%s (line %d)", path, l)
	}
	return path
}

// has reports whether the scenario file set path.
func (sc *Scenario) has(path string) bool {
	_, ok := sc.lines[path]
	return ok
}
