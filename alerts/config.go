package alerts

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/yamlstrict"
)

// DefaultRunbookBaseURL is where the runbooks of the shipped pack live; each
// alert's runbook_url is this base followed by "<AlertName>.md".
const DefaultRunbookBaseURL = "https://github.com/dynamodb-exporter/dynamodb_exporter/blob/main/docs/runbooks/"

// Config tunes the pack without forking it: what jsonnet's _config gives a
// monitoring mixin. The zero value renders the shipped rules.
type Config struct {
	// RunbookBaseURL replaces DefaultRunbookBaseURL, for teams that host the
	// runbooks themselves.
	RunbookBaseURL string `yaml:"runbook_base_url"`
	// Selector holds extra label matchers added to every selector of the
	// exporter's metrics, such as `job="dynamodb", env="prod"`.
	Selector string `yaml:"selector"`
	// Params override parameters shared by every rule that uses them (for
	// instance min_monthly_spend_dollars or rate_window).
	Params map[string]string `yaml:"params"`
	// Alerts override one alert each, by alert name.
	Alerts map[string]Override `yaml:"alerts"`

	// lines maps a key path ("alerts.X.params.y") to its line in the file,
	// so that errors found after decoding can name it.
	lines map[string]int
}

// Override changes one alert of the pack.
type Override struct {
	// Disabled leaves the alert out of the rendered files.
	Disabled bool `yaml:"disabled"`
	// For replaces the alert's pending duration ("15m", "1h").
	For string `yaml:"for"`
	// Severity replaces the alert's severity: critical, warning or info.
	Severity string `yaml:"severity"`
	// Params override the alert's own parameters, by name.
	Params map[string]string `yaml:"params"`
}

// LoadConfig reads a pack configuration file. Unknown keys, unknown alert or
// parameter names and malformed values are errors naming the key and line.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("alert pack configuration: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("alert pack configuration %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig parses a pack configuration and checks it against the pack.
func ParseConfig(b []byte) (*Config, error) {
	c := &Config{lines: map[string]int{}}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return c, nil
		}
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	d := yamlstrict.Decoder{
		What: "alert pack configuration",
		Seen: func(path string, line int) {
			if _, ok := c.lines[path]; !ok {
				c.lines[path] = line
			}
		},
		Types: map[reflect.Type]yamlstrict.ScalarFunc{},
	}
	if err := d.Decode(doc.Content[0], c); err != nil {
		return nil, err
	}
	if err := c.validate(Pack()); err != nil {
		return nil, err
	}
	return c, nil
}

// at names a key path and, when known, its line.
func (c *Config) at(path string) string {
	if l, ok := c.lines[path]; ok {
		return fmt.Sprintf("%s (line %d)", path, l)
	}
	return path
}

// validate checks every override against the pack's alerts and parameters.
func (c *Config) validate(p []Group) error {
	alerts := map[string]Rule{}
	shared := map[string]Param{}
	for _, g := range p {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts[r.Alert] = r
			}
			for _, prm := range r.Params {
				shared[prm.Name] = prm
			}
		}
	}
	for _, name := range sortedKeys(c.Params) {
		prm, ok := shared[name]
		if !ok {
			return fmt.Errorf("%s: unknown parameter %q; parameters of the pack: %s", c.at("params."+name), name, strings.Join(sortedKeys(shared), ", "))
		}
		if err := prm.check(c.Params[name]); err != nil {
			return fmt.Errorf("%s: %w", c.at("params."+name), err)
		}
	}
	if c.Selector != "" {
		if err := checkSelector(c.Selector); err != nil {
			return fmt.Errorf("%s: %w", c.at("selector"), err)
		}
	}
	for _, name := range sortedKeys(c.Alerts) {
		o := c.Alerts[name]
		path := "alerts." + name
		r, ok := alerts[name]
		if !ok {
			return fmt.Errorf("%s: unknown alert %q; alerts of the pack: %s", c.at(path), name, strings.Join(sortedKeys(alerts), ", "))
		}
		if o.For != "" {
			if _, err := model.ParseDuration(o.For); err != nil {
				return fmt.Errorf("%s: invalid duration %q (use Prometheus durations such as 15m, 1h, 1d)", c.at(path+".for"), o.For)
			}
		}
		if o.Severity != "" && !validSeverity(o.Severity) {
			return fmt.Errorf("%s: severity %q is not one of critical, warning, info", c.at(path+".severity"), o.Severity)
		}
		own := map[string]Param{}
		for _, prm := range r.Params {
			own[prm.Name] = prm
		}
		for _, pn := range sortedKeys(o.Params) {
			prm, ok := own[pn]
			if !ok {
				return fmt.Errorf("%s: alert %s has no parameter %q; its parameters: %s", c.at(path+".params."+pn), name, pn, strings.Join(sortedKeys(own), ", "))
			}
			if err := prm.check(o.Params[pn]); err != nil {
				return fmt.Errorf("%s: %w", c.at(path+".params."+pn), err)
			}
		}
	}
	return nil
}

// checkSelector accepts a comma-separated list of label matchers without
// braces, such as `job="dynamodb", env=~"prod|staging"`.
func checkSelector(s string) error {
	if strings.ContainsAny(s, "{}") {
		return fmt.Errorf("give the matchers without braces, such as job=\"dynamodb\"; got %q", s)
	}
	for _, m := range splitMatchers(s) {
		i := strings.IndexAny(m, "=!")
		if i <= 0 || !model.LabelName(strings.TrimSpace(m[:i])).IsValidLegacy() {
			return fmt.Errorf("%q is not a label matcher (name=\"value\", name!=\"value\", name=~\"re\" or name!~\"re\")", m)
		}
		rest := m[i:]
		op := ""
		for _, o := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(rest, o) {
				op = o
				break
			}
		}
		v := strings.TrimSpace(rest[len(op):])
		if op == "" || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return fmt.Errorf("%q is not a label matcher (the value must be double-quoted)", m)
		}
	}
	return nil
}

// splitMatchers splits matchers at the commas outside quoted values.
func splitMatchers(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quoted:
			escaped = true
		case r == '"':
			quoted = !quoted
		case r == ',' && !quoted:
			if t := strings.TrimSpace(cur.String()); t != "" {
				out = append(out, t)
			}
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	if t := strings.TrimSpace(cur.String()); t != "" {
		out = append(out, t)
	}
	return out
}

func validSeverity(s string) bool { return s == Critical || s == Warning || s == Info }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
