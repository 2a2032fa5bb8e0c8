package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// configSections are the top-level keys: every error about a key starts with
// its path, which starts with one of them (or with the unknown key itself).
var configSections = regexp.MustCompile(`^(accounts|tables|collectors|aws|shard)([.[:]| \(line )`)

// lineRE finds the line numbers an error cites.
var lineRE = regexp.MustCompile(`\(line (\d+)\)`)

// FuzzParse feeds arbitrary documents to the configuration loader. Whatever
// the input: no panic; an error names where the problem is (a key path under
// a known section, or an unknown key, each with a line inside the document,
// or the YAML syntax error); and an accepted configuration holds only
// finite numbers and round-trips: written back as YAML and parsed again it
// is the same configuration.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata", filepath.Join("..", "examples")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yml"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range []string{
		"",
		"accounts: [{name: a, regions: [us-east-1]}, {name: b, role_arn: 'arn:aws:iam::123456789012:role/x', regions: [eu-west-1]}]\n",
		"collectors: {ttl: {max_read_rate: .nan}}\n",
		"collectors: {capacity: {surge_factor: .inf}}\n",
		"tables: {tags: {env: 'prod|staging'}, include: ['a.*'], exclude: ['(']}\n",
		"a: &x 1\nb: *x\n",
		"---\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := Parse(doc)
		if err != nil {
			checkParseError(t, doc, err)
			return
		}
		testtools.CheckFinite(t, reflect.ValueOf(c).Elem(), "")
		out, merr := yaml.Marshal(toYAML(reflect.ValueOf(c).Elem()))
		if merr != nil {
			t.Fatalf("marshal the accepted configuration: %v", merr)
		}
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("the accepted configuration, written back, is refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("round trip changed the configuration:\nfirst  %+v\nsecond %+v\nwritten as:\n%s", c, c2, out)
		}
	})
}

// checkParseError asserts that err names where the problem is in doc.
func checkParseError(t *testing.T, doc []byte, err error) {
	t.Helper()
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "not valid YAML: "), msg == "the file holds more than one YAML document":
		return
	case configSections.MatchString(msg):
	case strings.Contains(msg, ": unknown key "):
	case strings.HasPrefix(msg, "top level (line "):
	default:
		t.Fatalf("error names no key: %q", msg)
	}
	lines := yamlLines(doc)
	for _, m := range lineRE.FindAllStringSubmatch(msg, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > lines {
			t.Fatalf("error cites line %d of a %d-line document: %q", n, lines, msg)
		}
	}
}

// toYAML turns a configuration value into plain maps, lists and scalars
// keyed by the yaml tags, with durations and patterns in their file syntax.
func toYAML(v reflect.Value) any {
	switch x := v.Interface().(type) {
	case Duration:
		return model.Duration(time.Duration(x)).String()
	case Regexp:
		return x.Source
	case Shard:
		if x.Count == 0 {
			return nil
		}
		return x.String()
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return toYAML(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			tag := strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			if e := toYAML(v.Field(i)); e != nil {
				m[tag] = e
			}
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		l := make([]any, v.Len())
		for i := range l {
			l[i] = toYAML(v.Index(i))
		}
		return l
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[k.String()] = toYAML(v.MapIndex(k))
		}
		return m
	}
	return v.Interface()
}

// yamlLines is the number of lines of doc as YAML counts them: CR LF, CR
// and LF each end a line.
func yamlLines(doc []byte) int {
	doc = bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
	return bytes.Count(doc, []byte("\n")) + bytes.Count(doc, []byte("\r")) + 1
}
