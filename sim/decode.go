package sim

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	durationType = reflect.TypeOf(Duration(0))
	offsetType   = reflect.TypeOf(Offset(0))
)

// decoder fills a Scenario from a YAML node tree, checking every key
// against the yaml tags of the target struct so that each error names the
// key path and its line, and recording the line of every key.
type decoder struct {
	lines map[string]int
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func wherePath(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func (d *decoder) walk(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if _, ok := d.lines[path]; !ok {
		d.lines[path] = n.Line
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // an empty value keeps the default
	}
	switch v.Type() {
	case durationType, offsetType:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s (line %d): expected a duration such as 90s, 15m, 2h, 3d or 6w", wherePath(path), n.Line)
		}
		x, err := parseOffset(n.Value)
		if err != nil {
			return fmt.Errorf("%s (line %d): %v", wherePath(path), n.Line, err)
		}
		if v.Type() == durationType && x < 0 {
			return fmt.Errorf("%s (line %d): duration %q must not be negative", wherePath(path), n.Line, n.Value)
		}
		v.SetInt(int64(x))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.walk(n, v.Elem(), path)
	case reflect.Struct:
		return d.walkStruct(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s (line %d): expected a list", wherePath(path), n.Line)
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := d.walk(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s (line %d): expected a mapping", wherePath(path), n.Line)
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				return fmt.Errorf("%s (line %d): key given twice", joinPath(path, k.Value), k.Line)
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.walk(val, elem, joinPath(path, k.Value)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
		v.Set(m)
		return nil
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s (line %d): expected a string", wherePath(path), n.Line)
		}
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			return fmt.Errorf("%s (line %d): expected true or false, got %q", wherePath(path), n.Line, n.Value)
		}
		v.SetBool(b)
		return nil
	case reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil {
			return fmt.Errorf("%s (line %d): expected a number, got %q", wherePath(path), n.Line, n.Value)
		}
		v.SetFloat(f)
		return nil
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
		if n.Kind != yaml.ScalarNode || err != nil {
			return fmt.Errorf("%s (line %d): expected a whole number, got %q", wherePath(path), n.Line, n.Value)
		}
		v.SetInt(i)
		return nil
	}
	return fmt.Errorf("%s: unsupported scenario type %s", wherePath(path), v.Type())
}

func (d *decoder) walkStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s (line %d): expected a mapping of keys to values", wherePath(path), n.Line)
	}
	fields := map[string]int{}
	var known []string
	for i := 0; i < v.NumField(); i++ {
		tag := strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		known = append(known, tag)
	}
	sort.Strings(known)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := joinPath(path, k.Value)
		idx, ok := fields[k.Value]
		if !ok {
			return fmt.Errorf("%s (line %d): unknown key %q; known keys here: %s", p, k.Line, k.Value, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return fmt.Errorf("%s (line %d): key given twice", p, k.Line)
		}
		seen[k.Value] = true
		d.lines[p] = k.Line
		if err := d.walk(val, v.Field(idx), p); err != nil {
			return err
		}
	}
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
	d := &decoder{lines: sc.lines}
	if err := d.walk(doc.Content[0], reflect.ValueOf(sc).Elem(), ""); err != nil {
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
