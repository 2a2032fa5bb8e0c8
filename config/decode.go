package config

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/yamlstrict"
)

// decoder reads the configuration: every key is checked against the yaml tags
// of the target struct, and each error names the full key path and line.
var decoder = yamlstrict.Decoder{
	Types: map[reflect.Type]yamlstrict.ScalarFunc{
		reflect.TypeFor[Duration](): decodeDuration,
		reflect.TypeFor[Regexp]():   decodeRegexp,
		reflect.TypeFor[Shard]():    decodeShard,
	},
	What: "configuration",
}

// decode fills v (a pointer) from n.
func decode(n *yaml.Node, v any) error {
	return decoder.Decode(n, v)
}

func decodeDuration(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("expected a duration such as 90s, 5m or 1h")
	}
	d, err := model.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("invalid duration %q: use a number and a unit, such as 90s, 5m or 1h", n.Value)
	}
	v.Set(reflect.ValueOf(Duration(time.Duration(d))))
	return nil
}

func decodeRegexp(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("expected a regular expression string")
	}
	re, err := regexp.Compile("^(?:" + n.Value + ")$")
	if err != nil {
		return fmt.Errorf("invalid regular expression %q: %w", n.Value, err)
	}
	v.Set(reflect.ValueOf(Regexp{Regexp: re, Source: n.Value}))
	return nil
}

func decodeShard(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("expected a shard such as \"0/3\" (INDEX/COUNT)")
	}
	s, err := ParseShard(n.Value)
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(s))
	return nil
}

// CheckURL reports an endpoint URL that is not empty and not an absolute
// http(s) URL with a host.
func CheckURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}
