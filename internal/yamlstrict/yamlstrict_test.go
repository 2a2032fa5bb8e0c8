package yamlstrict

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type inner struct {
	N int     `yaml:"n"`
	F float64 `yaml:"f"`
}

type doc struct {
	Name  string           `yaml:"name"`
	Inner inner            `yaml:"inner"`
	List  []inner          `yaml:"list"`
	Map   map[string]int64 `yaml:"map"`
	Upper string           `yaml:"upper"`
}

func decodeString(t *testing.T, d *Decoder, src string, v any) error {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	return d.Decode(n.Content[0], v)
}

func TestDecodeErrorsNamePathAndLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\nbogus: 1\n", `bogus (line 2): unknown key "bogus"; known keys here: inner, list, map, name, upper`},
		{"inner:\n  n: 1.5\n", `inner.n (line 2): expected a whole number, got "1.5"`},
		{"list:\n- n: 1\n- f: x\n", `list[1].f (line 3): expected a number, got "x"`},
		{"inner:\n  f: .nan\n", `inner.f (line 2): expected a finite number, got ".nan"`},
		{"inner:\n  f: -.Inf\n", `inner.f (line 2): expected a finite number, got "-.Inf"`},
		{"map:\n  a: 1\n  a: 2\n", `map.a (line 3): key given twice`},
		{"name: a\nname: b\n", `name (line 2): key given twice`},
		{"upper: !x [1]\n", `upper (line 1): expected a string`},
		{"- 1\n", `top level (line 1): expected a mapping of keys to values`},
		{"map:\n  a:\n", `map.a (line 2): no value given`},
		{"map:\n  a: ~\n", `map.a (line 2): no value given`},
		{"list:\n- n: 1\n- \n", `list[1] (line 3): empty list entry`},
	} {
		var d doc
		err := decodeString(t, &Decoder{}, tc.src, &d)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got error %v, want %s", tc.src, err, tc.want)
		}
	}
}

func TestDecodeTypesAndSeen(t *testing.T) {
	lines := map[string]int{}
	d := &Decoder{
		Types: map[reflect.Type]ScalarFunc{
			reflect.TypeFor[string](): func(n *yaml.Node, v reflect.Value) error {
				v.SetString(strings.ToUpper(n.Value))
				return nil
			},
		},
		Seen: func(path string, line int) {
			if _, ok := lines[path]; !ok {
				lines[path] = line
			}
		},
	}
	var got doc
	src := "name: a\ninner:\n  n: 1_000\n  f:\nmap:\n  x: -3\n"
	if err := decodeString(t, d, src, &got); err != nil {
		t.Fatal(err)
	}
	want := doc{Name: "A", Inner: inner{N: 1000}, Map: map[string]int64{"x": -3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	wantLines := map[string]int{"": 1, "name": 1, "inner": 2, "inner.n": 3, "inner.f": 4, "map": 5, "map.x": 6}
	if !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("lines %v, want %v", lines, wantLines)
	}
}
