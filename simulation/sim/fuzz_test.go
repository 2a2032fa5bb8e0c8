package sim

import (
	"bytes"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// scenarioErrorRE splits a loader error into the part after the source and
// the first line it cites.
var (
	scenarioLineRE = regexp.MustCompile(`^[^ ]* \(line (\d+)\)`)
	scenarioKeyRE  = regexp.MustCompile(`^([a-z_]+)(\[\d+\])?([.\[: ]|$)`)
)

// FuzzLoadScenario feeds arbitrary documents to the scenario loader (the
// built-in scenarios are the seeds). Whatever the input: no panic; an error
// names the scenario and where the problem is (a key path under a known
// top-level key, or the unknown key itself, at a line inside the document;
// or the YAML syntax error); an accepted scenario holds only finite
// numbers, at most MaxFaults faults and tables in the account's regions;
// and the loader reads meaning, not layout: the same document re-emitted by
// the YAML encoder loads to the same scenario, or fails alike.
func FuzzLoadScenario(f *testing.F) {
	for _, name := range BuiltinNames() {
		b, err := builtinFS.ReadFile("scenarios/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "name: x\n", "account: {user_errors_per_minute: .nan}\n",
		"tables:\n  - name: abc\n    traffic: {read: .inf}\n",
		"faults:\n  - {at: 0, every: 1m, duration: 1m, kind: throttling, service: cloudwatch}\n",
		"include: [healthy, healthy]\n", "tables: [&a {name: abc}, *a]\n",
	} {
		f.Add([]byte(s))
	}
	known := map[string]bool{"top level": true}
	for i := range reflect.TypeFor[Scenario]().NumField() {
		if tag := reflect.TypeFor[Scenario]().Field(i).Tag.Get("yaml"); tag != "" {
			known[tag] = true
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sc, err := LoadScenario(doc)
		if err != nil {
			checkScenarioError(t, doc, err, known)
		} else {
			checkScenario(t, sc)
		}
		// Re-emit the document: same scenario, or an error alike but for
		// the lines it cites.
		var n yaml.Node
		if yaml.Unmarshal(doc, &n) != nil || len(n.Content) == 0 {
			return
		}
		again, merr := yaml.Marshal(&n)
		var n2 yaml.Node
		if merr != nil || yaml.Unmarshal(again, &n2) != nil || !sameNodes(&n, &n2) {
			return // the YAML encoder could not re-emit this tree faithfully
		}
		sc2, err2 := LoadScenario(again)
		switch {
		case (err == nil) != (err2 == nil):
			t.Fatalf("re-emitted document: error %v, original error %v\nre-emitted:\n%s", err2, err, again)
		case err != nil:
			if a, b := stripLines(err.Error()), stripLines(err2.Error()); a != b {
				t.Fatalf("re-emitted document fails differently:\n%s\n%s\nre-emitted:\n%s", a, b, again)
			}
		default:
			sc.lines, sc2.lines = nil, nil
			if !reflect.DeepEqual(sc, sc2) {
				t.Fatalf("re-emitted document loads to another scenario:\n%+v\n%+v", sc, sc2)
			}
		}
	})
}

// sameNodes reports whether two YAML trees hold the same kinds, tags,
// values, anchors and structure (styles, comments and lines aside). An
// alias is compared by the anchor it names, not followed: a node may
// contain an alias of itself, and following it would never end.
func sameNodes(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.Anchor != b.Anchor || a.Value != b.Value || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.AliasNode {
		return true
	}
	if a.ShortTag() != b.ShortTag() {
		return false
	}
	for i := range a.Content {
		if !sameNodes(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

var anyLineRE = regexp.MustCompile(` \(line \d+\)`)

func stripLines(s string) string { return anyLineRE.ReplaceAllString(s, "") }

// checkScenarioError asserts that err names the scenario and where in doc
// the problem is.
func checkScenarioError(t *testing.T, doc []byte, err error, known map[string]bool) {
	t.Helper()
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "scenario <input>: ")
	if !ok {
		t.Fatalf("error does not name the scenario: %q", msg)
	}
	switch {
	case strings.HasPrefix(rest, "yaml: "), rest == "empty document":
		return
	case strings.HasPrefix(rest, "top level (line "):
	case strings.Contains(rest, ": unknown key "):
	default:
		m := scenarioKeyRE.FindStringSubmatch(rest)
		if m == nil || !known[m[1]] {
			t.Fatalf("error names no key: %q", msg)
		}
	}
	if m := scenarioLineRE.FindStringSubmatch(rest); m != nil {
		line, _ := strconv.Atoi(m[1])
		if lines := yamlLines(doc); line < 1 || line > lines {
			t.Fatalf("error cites line %d of a %d-line document: %q", line, lines, msg)
		}
	}
}

// checkScenario asserts what every accepted scenario guarantees.
func checkScenario(t *testing.T, sc *Scenario) {
	t.Helper()
	testtools.CheckFinite(t, reflect.ValueOf(sc).Elem(), "scenario")
	if len(sc.Faults) > MaxFaults {
		t.Fatalf("%d faults accepted, more than %d", len(sc.Faults), MaxFaults)
	}
	for _, tb := range sc.Tables {
		if !slices.Contains(sc.Account.Regions, tb.Region) {
			t.Fatalf("table %s in region %q, not one of the account's %v", tb.Name, tb.Region, sc.Account.Regions)
		}
	}
}

// yamlLines is the number of lines of doc as YAML counts them: CR LF, CR
// and LF each end a line.
func yamlLines(doc []byte) int {
	doc = bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
	return bytes.Count(doc, []byte("\n")) + bytes.Count(doc, []byte("\r")) + 1
}
