package config

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

var (
	durationType = reflect.TypeOf(Duration(0))
	regexpType   = reflect.TypeOf(Regexp{})
)

// decode fills v (a pointer) from n, checking every key against the yaml tags
// of v's struct fields so that each error names the full key path and line.
func decode(n *yaml.Node, v any) error {
	return walk(n, reflect.ValueOf(v).Elem(), "")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func where(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func walk(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // an empty value keeps the default
	}
	switch v.Type() {
	case durationType:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s (line %d): expected a duration such as 90s, 5m or 1h", where(path), n.Line)
		}
		d, err := model.ParseDuration(n.Value)
		if err != nil {
			return fmt.Errorf("%s (line %d): invalid duration %q: use a number and a unit, such as 90s, 5m or 1h", where(path), n.Line, n.Value)
		}
		v.Set(reflect.ValueOf(Duration(time.Duration(d))))
		return nil
	case regexpType:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s (line %d): expected a regular expression string", where(path), n.Line)
		}
		re, err := regexp.Compile("^(?:" + n.Value + ")$")
		if err != nil {
			return fmt.Errorf("%s (line %d): invalid regular expression %q: %v", where(path), n.Line, n.Value, err)
		}
		v.Set(reflect.ValueOf(Regexp{Regexp: re, Source: n.Value}))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return walk(n, v.Elem(), path)
	case reflect.Struct:
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
			idx, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("%s (line %d): unknown key %q; known keys here: %s", join(path, k.Value), k.Line, k.Value, strings.Join(known, ", "))
			}
			if seen[k.Value] {
				return fmt.Errorf("%s (line %d): key given twice", join(path, k.Value), k.Line)
			}
			seen[k.Value] = true
			if err := walk(val, v.Field(idx), join(path, k.Value)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s (line %d): expected a list", where(path), n.Line)
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := walk(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
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
				return fmt.Errorf("%s (line %d): key given twice", join(path, k.Value), k.Line)
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := walk(val, elem, join(path, k.Value)); err != nil {
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
		v.SetFloat(f)
		return nil
	case reflect.Int:
		var i int
		if n.Kind != yaml.ScalarNode || n.Decode(&i) != nil {
			return fmt.Errorf("%s (line %d): expected a whole number, got %q", where(path), n.Line, n.Value)
		}
		v.SetInt(int64(i))
		return nil
	}
	return fmt.Errorf("%s: unsupported configuration type %s", where(path), v.Type())
}

func checkURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}
