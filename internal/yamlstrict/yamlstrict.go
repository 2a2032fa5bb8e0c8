// Package yamlstrict fills a Go value from a YAML node tree by the yaml tags
// of its struct fields, refusing unknown and repeated keys and naming the key
// path and line in every error, such as
//
//	collectors.ttl.interval (line 12): invalid duration "5x": ...
//
// It serves the exporter's configuration and the simulator's scenario files.
package yamlstrict

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ScalarFunc decodes the node n into v, which has the type the function is
// registered for. Its error tells what is wrong with the value; the decoder
// puts the key path and line in front of it.
type ScalarFunc func(n *yaml.Node, v reflect.Value) error

// Decoder walks a YAML node tree into a Go value. Its zero value decodes
// strings, booleans, float64, int and int64, pointers, slices, string-keyed
// maps and structs with yaml tags.
type Decoder struct {
	// Types decodes the values of special types (durations, regular
	// expressions) before the generic rules by kind apply.
	Types map[reflect.Type]ScalarFunc
	// Seen, when set, is called with the path and line of every key, list
	// item and the document itself, the key's line before its value's.
	Seen func(path string, line int)
	// What names the kind of document in the error about an unsupported Go
	// type (a programming error), such as "configuration".
	What string
}

// Decode fills v (a non-nil pointer) from n. An empty (null) value keeps what
// v held.
func (d *Decoder) Decode(n *yaml.Node, v any) error {
	return d.walk(n, reflect.ValueOf(v).Elem(), "")
}

// Join returns the key path of key under path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// where names path in an error message.
func where(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func (d *Decoder) walk(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if d.Seen != nil {
		d.Seen(path, n.Line)
	}
	if isNull(n) {
		return nil // an empty value keeps the default
	}
	if f, ok := d.Types[v.Type()]; ok {
		if err := f(n, v); err != nil {
			return fmt.Errorf("%s (line %d): %w", where(path), n.Line, err)
		}
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
			return fmt.Errorf("%s (line %d): expected a list", where(path), n.Line)
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if isNull(item) {
				return fmt.Errorf("%s[%d] (line %d): empty list entry", where(path), i, item.Line)
			}
			if err := d.walk(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s (line %d): expected a mapping", where(path), n.Line)
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				return fmt.Errorf("%s (line %d): key given twice", Join(path, k.Value), k.Line)
			}
			if isNull(val) {
				// A key with no value has no default to keep: a zero value
				// here (a regular expression matching nothing) would be a
				// setting nobody wrote.
				return fmt.Errorf("%s (line %d): no value given", Join(path, k.Value), k.Line)
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.walk(val, elem, Join(path, k.Value)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
		v.Set(m)
		return nil
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s (line %d): expected a string", where(path), n.Line)
		}
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			return fmt.Errorf("%s (line %d): expected true or false, got %q", where(path), n.Line, n.Value)
		}
		v.SetBool(b)
		return nil
	case reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil {
			return fmt.Errorf("%s (line %d): expected a number, got %q", where(path), n.Line, n.Value)
		}
		// YAML reads .nan and .inf as numbers; no setting means either, and
		// NaN slips through every range check.
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s (line %d): expected a finite number, got %q", where(path), n.Line, n.Value)
		}
		v.SetFloat(f)
		return nil
	case reflect.Int, reflect.Int64:
		// Parsed here rather than by yaml, which would truncate 1.5 to 1.
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
		if n.Kind != yaml.ScalarNode || err != nil || v.OverflowInt(i) {
			return fmt.Errorf("%s (line %d): expected a whole number, got %q", where(path), n.Line, n.Value)
		}
		v.SetInt(i)
		return nil
	}
	return fmt.Errorf("%s: unsupported %s type %s", where(path), d.What, v.Type())
}

func (d *Decoder) walkStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s (line %d): expected a mapping of keys to values", where(path), n.Line)
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
		p := Join(path, k.Value)
		idx, ok := fields[k.Value]
		if !ok {
			return fmt.Errorf("%s (line %d): unknown key %q; known keys here: %s", p, k.Line, k.Value, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return fmt.Errorf("%s (line %d): key given twice", p, k.Line)
		}
		seen[k.Value] = true
		if d.Seen != nil {
			d.Seen(p, k.Line)
		}
		if err := d.walk(val, v.Field(idx), p); err != nil {
			return err
		}
	}
	return nil
}

// isNull reports an empty value (nothing, ~ or null), following aliases.
func isNull(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}
