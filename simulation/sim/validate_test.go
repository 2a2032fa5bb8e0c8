package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenarioErrors(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown top-level key", "name: x\ncolour: red\n",
			[]string{`colour (line 2): unknown key "colour"`, "known keys here"}},
		{"unknown nested key", "tables:\n  - name: abc\n    traffic:\n      reads: 5\n",
			[]string{`tables[0].traffic.reads (line 4): unknown key "reads"`}},
		{"bad duration", "history: 9x\n",
			[]string{"history (line 1)", `invalid duration "9x"`}},
		{"duration without unit", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: 2, duration: 5m, factor: 3}\n",
			[]string{"tables[0].traffic.events[0].at (line 5)", "invalid duration"}},
		{"negative duration", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: 1h, duration: -5m, factor: 3}\n",
			[]string{"tables[0].traffic.events[0].duration (line 5)", "must not be negative"}},
		{"bad number", "tables:\n  - name: abc\n    traffic: {read: lots}\n",
			[]string{"tables[0].traffic.read (line 3)", `expected a number, got "lots"`}},
		{"bad whole number", "tables:\n  - name: abc\n    partitions: 2.5\n",
			[]string{"tables[0].partitions (line 3)", "expected a whole number"}},
		{"event before the history", "history: 7d\ntables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: -8d, duration: 5m, factor: 3}\n",
			[]string{"tables[0].traffic.events[0].at (line 6)", "-8d is outside the scenario"}},
		{"event after the horizon", "horizon: 1d\ntables:\n  - name: abc\n    traffic:\n      events:\n        - type: step\n          at: 2d\n          factor: 2\n",
			[]string{"tables[0].traffic.events[0].at (line 7)", "outside the scenario"}},
		{"unknown event type", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: tsunami, at: 1h}\n",
			[]string{"tables[0].traffic.events[0].type (line 5)", `unknown event type "tsunami"`}},
		{"spike without duration", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: 1h, factor: 3}\n",
			[]string{"tables[0].traffic.events[0].duration", "needs a duration"}},
		{"target out of range", "tables:\n  - name: abc\n    auto_scaling:\n      read: {target: 95}\n",
			[]string{"tables[0].auto_scaling.read.target (line 4)", "between 20 and 90"}},
		{"max below min", "tables:\n  - name: abc\n    auto_scaling:\n      write: {min: 50, max: 10}\n",
			[]string{"tables[0].auto_scaling.write.max (line 4)"}},
		{"bad billing mode", "tables:\n  - name: abc\n    billing: PAY_AS_YOU_GO\n",
			[]string{"tables[0].billing (line 3)", "provisioned or on_demand"}},
		{"duplicate table", "tables:\n  - name: abc\n  - name: abc\n",
			[]string{"tables[1].name (line 3)", "defined twice", "first at tables[0].name (line 2)"}},
		{"switches out of order", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 2h, mode: on_demand}\n      - {at: 1h, mode: provisioned}\n",
			[]string{"tables[0].billing_switches[1].at (line 5)", "time order"}},
		{"live item already expired", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      items:\n        - {class: live, count: 3, written: -2d, expires_in: 1d}\n",
			[]string{"tables[0].ttl.items[0].expires_in (line 6)", "live items must expire after the start"}},
		{"unknown TTL class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      items:\n        - {class: nanos, count: 3}\n",
			[]string{"tables[0].ttl.items[0].class (line 6)", `unknown class "nanos"`}},
		{"fault on a missing table", "tables:\n  - name: abc\nfaults:\n  - {at: 1h, kind: delete_table, table: xyz}\n",
			[]string{"faults[0].table (line 4)", `table "xyz" is not in the scenario`}},
		{"fault without service", "faults:\n  - {at: 1h, kind: throttling}\n",
			[]string{"faults[0].service", "needs a service"}},
		{"region not in account", "account: {regions: [eu-west-1]}\ntables:\n  - {name: abc, region: us-east-1}\n",
			[]string{"tables[0].region (line 3)", "not one of the account's regions"}},
		{"unknown include", "include: [nope]\n",
			[]string{"include[0] (line 1)", `no built-in scenario "nope"`}},
		{"list expected", "tables: abc\n",
			[]string{"tables (line 1)", "expected a list"}},
		{"not yaml", "tables: [\n", []string{"scenario <input>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadScenario([]byte(c.yaml))
			if err == nil {
				t.Fatalf("no error for:\n%s", c.yaml)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestScenarioDefaults(t *testing.T) {
	sc, err := LoadScenario([]byte("tables:\n  - name: abc\n    auto_scaling:\n      read: {max: 100}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tb := sc.Tables[0]
	if sc.History.D() != DefaultHistory || sc.Horizon.D() != DefaultHorizon || tb.Region != "us-east-1" || tb.Billing != modeProvisioned {
		t.Errorf("defaults: history %v horizon %v region %q billing %q", sc.History.D(), sc.Horizon.D(), tb.Region, tb.Billing)
	}
	if p := tb.AutoScaling.Read; p.Target != 70 || p.Min != 5 || p.Max != 100 || p.Delay.D().Minutes() != 5 {
		t.Errorf("policy defaults: %+v", p)
	}
	if tb.Capacity != (ReadWrite{5, 5}) {
		t.Errorf("capacity default %+v", tb.Capacity)
	}
}

func TestLoadScenarioFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(path, []byte("name: mine\nhistory: 2d\ntables:\n  - name: abc\n    traffic: {read: 1}\n    bogus: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenarioFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "tables[0].bogus (line 6)") {
		t.Fatalf("error %v, want the file, key and line", err)
	}
}

func TestParseOffset(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{{"-6w", "-1008h0m0s"}, {"2h", "2h0m0s"}, {"+1d12h", "36h0m0s"}, {"0", "0s"}, {"90s", "1m30s"}, {"1.5h", "1h30m0s"}, {"250ms", "250ms"}} {
		got, err := parseOffset(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("parseOffset(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "h", "5", "5y", "--5m", "5m-"} {
		if _, err := parseOffset(bad); err == nil {
			t.Errorf("parseOffset(%q) accepted", bad)
		}
	}
}
