package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{"bad at_utc", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: -1d, at_utc: '7pm', every: 1d, duration: 1h, factor: 6}\n",
			[]string{"tables[0].traffic.events[0].at_utc (line 5)", "HH:MM"}},
		{"scheduled action with a bad cron", "tables:\n  - name: abc\n    auto_scaling:\n      write:\n        scheduled:\n          - {name: up, schedule: 'cron(15 19 * * * *)', min: 300}\n",
			[]string{"tables[0].auto_scaling.write.scheduled[0].schedule (line 6)", "Day-of-month and Day-of-week"}},
		{"scheduled action with an unsupported cron field", "tables:\n  - name: abc\n    auto_scaling:\n      write:\n        scheduled:\n          - {name: up, schedule: 'cron(15 19 ? * 2#1 *)', min: 300}\n",
			[]string{"tables[0].auto_scaling.write.scheduled[0].schedule (line 6)", "not supported by the simulator"}},
		{"scheduled action with a bad time zone", "tables:\n  - name: abc\n    auto_scaling:\n      write:\n        scheduled:\n          - {name: up, schedule: 'cron(15 19 * * ? *)', timezone: Mars/Base, min: 300}\n",
			[]string{"tables[0].auto_scaling.write.scheduled[0].timezone (line 6)", "IANA"}},
		{"scheduled action without bounds", "tables:\n  - name: abc\n    auto_scaling:\n      write:\n        scheduled:\n          - {name: up, schedule: 'cron(15 19 * * ? *)'}\n",
			[]string{"tables[0].auto_scaling.write.scheduled[0] (line 6)", "needs min, max or both"}},
		{"scheduled action named twice", "tables:\n  - name: abc\n    auto_scaling:\n      write:\n        scheduled:\n          - {name: up, schedule: 'cron(15 19 * * ? *)', min: 3}\n          - {name: up, schedule: 'cron(15 20 * * ? *)', min: 3}\n",
			[]string{"tables[0].auto_scaling.write.scheduled[1].name (line 7)", "used twice"}},
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
		{"backfill without pace", "tables:\n  - name: abc\n    item_count: 10\n    gsis:\n      - name: by-x\n        backfill: {start: -1h}\n",
			[]string{"tables[0].gsis[0].backfill.pace", "pace 0 must be between 1 and"}},
		{"backfill without items", "tables:\n  - name: abc\n    gsis:\n      - name: by-x\n        backfill: {pace: 10}\n",
			[]string{"tables[0].gsis[0].backfill.units", "units 0 must be between 1 and"}},
		{"backfill on an on-demand table", "tables:\n  - name: abc\n    billing: on_demand\n    item_count: 10\n    gsis:\n      - name: by-x\n        backfill: {pace: 10}\n",
			[]string{"tables[0].gsis[0].backfill (line 7)", "provisioned table only"}},
		{"PITR recovery period too long", "tables:\n  - name: abc\n    pitr: {recovery_period_days: 36}\n",
			[]string{"tables[0].pitr.recovery_period_days (line 3)", "between 1 and 35"}},
		{"PITR enabled before the table", "tables:\n  - name: abc\n    created: -2d\n    pitr:\n      enabled_at: -3d\n",
			[]string{"tables[0].pitr.enabled_at (line 5)", "before the table was created"}},
		{"PITR enabled after the start", "tables:\n  - name: abc\n    pitr: {enabled_at: 1h}\n",
			[]string{"tables[0].pitr.enabled_at (line 3)", "fixed at the scenario start"}},
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
		// Repeated switches and events.
		{"switch every zero", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 0s}\n",
			[]string{"tables[0].billing_switches[0].every (line 4)", "every 0 must be at least 1m"}},
		{"switch every below a minute", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 30s}\n",
			[]string{"tables[0].billing_switches[0].every (line 4)", "at least 1m"}},
		{"switch until before at", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 1d, until: -1d}\n",
			[]string{"tables[0].billing_switches[0].until (line 4)", "until -1d is before at 1h0m0s"}},
		{"switch until without every", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, until: 2d}\n",
			[]string{"tables[0].billing_switches[0].until (line 4)", "until needs every"}},
		{"switch count without every", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, count: 3}\n",
			[]string{"tables[0].billing_switches[0].count (line 4)", "count needs every"}},
		{"switch count and until", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 1h, count: 3, until: 5h}\n",
			[]string{"tables[0].billing_switches[0].count (line 4)", "until or count, not both"}},
		{"switch count zero", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 1h, count: 0}\n",
			[]string{"tables[0].billing_switches[0].count (line 4)", "count 0 must be at least 1"}},
		{"switch count beyond the horizon", "horizon: 1d\ntables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 12h, count: 3}\n",
			[]string{"tables[0].billing_switches[0].count (line 5)", "after the horizon 1d"}},
		{"switch until beyond the horizon", "horizon: 1d\ntables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 12h, until: 3d}\n",
			[]string{"tables[0].billing_switches[0].until (line 5)", "3d is outside the scenario"}},
		{"repeated switches collide", "tables:\n  - name: abc\n    billing_switches:\n      - {at: 1h, mode: on_demand, every: 2h}\n      - {at: 2h, mode: provisioned, every: 1h}\n",
			[]string{"tables[0].billing_switches[1] (line 5)", "two billing switches at 3h0m0s", "billing_switches[0] (line 4)"}},
		{"too many switches", "tables:\n  - name: abc\n    billing_switches:\n      - {at: -90d, mode: on_demand, every: 1m}\n",
			[]string{"tables[0].billing_switches[0].every (line 4)", "more than 10000 billing switches"}},
		{"switch without at", "tables:\n  - name: abc\n    billing_switches:\n      - {mode: on_demand, every: 1d}\n",
			[]string{"tables[0].billing_switches[0] (line 4)", "needs an at time"}},
		{"event count without every", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: step, at: 1h, factor: 2, count: 2}\n",
			[]string{"tables[0].traffic.events[0].count (line 5)", "count needs every"}},
		{"event count beyond the horizon", "horizon: 2d\ntables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: 1h, duration: 5m, factor: 2, every: 1d, count: 4}\n",
			[]string{"tables[0].traffic.events[0].count (line 6)", "after the horizon"}},
		{"event every zero", "tables:\n  - name: abc\n    traffic:\n      events:\n        - {type: spike, at: 1h, duration: 5m, factor: 2, every: 0s}\n",
			[]string{"tables[0].traffic.events[0].every (line 5)", "must be at least 1m"}},
		{"repeated table deletion", "tables:\n  - name: abc\nfaults:\n  - {at: 1h, kind: delete_table, table: abc, every: 1d}\n",
			[]string{"faults[0].every (line 4)", "cannot repeat"}},
		{"repeated fault without duration", "faults:\n  - {at: 1h, kind: throttling, service: cloudwatch, every: 1d}\n",
			[]string{"faults[0].duration", "duration of at most every (1d)"}},
		{"repeated fault count beyond the horizon", "horizon: 1d\nfaults:\n  - {at: 1h, duration: 5m, kind: throttling, service: cloudwatch, every: 12h, count: 3}\n",
			[]string{"faults[0].count (line 3)", "after the horizon 1d"}},
		// TTL write streams.
		{"stream shares sum above 1", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, class: seconds, expires_in: 30d}\n          - {share: 0.3, class: milliseconds, expires_in: 30d, from: 2h}\n",
			[]string{"tables[0].ttl.writes.streams (line 7)", "from 2h0m0s on", "(streams[0], streams[1]) sum to 1.3, not 1"}},
		{"stream shares sum below 1", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 0.5, expires_in: 30d, until: 1h}\n          - {share: 1, expires_in: 30m, from: 1h}\n",
			[]string{"tables[0].ttl.writes.streams (line 7)", "from -90d to 1h0m0s", "(streams[0]) sum to 0.5"}},
		{"stream share zero", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 0, expires_in: 30d}\n",
			[]string{"tables[0].ttl.writes.streams[0].share (line 8)", "share 0 must be between"}},
		{"stream ends before it starts", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, expires_in: 30d, from: 2h, until: 1h}\n",
			[]string{"tables[0].ttl.writes.streams[0].until (line 8)", "until 1h0m0s is not after from 2h0m0s"}},
		{"stream unknown class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, class: nanoseconds}\n",
			[]string{"tables[0].ttl.writes.streams[0].class (line 8)", `unknown class "nanoseconds"`}},
		{"stream live class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, class: live}\n",
			[]string{"tables[0].ttl.writes.streams[0].class (line 8)", `unknown class "live"`}},
		{"stream outside the scenario", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, from: -100d}\n",
			[]string{"tables[0].ttl.writes.streams[0].from (line 8)", "-100d is outside the scenario"}},
		{"stream attribute taken", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        streams:\n          - {share: 1, attribute: pk}\n",
			[]string{"tables[0].ttl.writes.streams[0].attribute (line 8)", `"pk" is taken by the simulated items' key`}},
		{"streams with a writes class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 1\n        class: seconds\n        streams:\n          - {share: 1}\n",
			[]string{"tables[0].ttl.writes.class (line 7)", "with streams, class is set per stream"}},
		{"writes until before from", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes: {per_minute: 1, from: -1d, until: -2d}\n",
			[]string{"tables[0].ttl.writes.until (line 5)", "until -2d is not after from -1d"}},
		{"single stream unknown class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes: {per_minute: 1, class: micros}\n",
			[]string{"tables[0].ttl.writes.class (line 5)", `class "micros" must be one of`}},
		{"streams write too many items", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      writes:\n        per_minute: 10\n        streams:\n          - {share: 1, from: -30d}\n",
			[]string{"tables[0].ttl (line 3)", "exceed 200000"}},
		// TTL rewrites.
		{"rewrite without at", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {class: seconds}\n",
			[]string{"tables[0].ttl.rewrites[0] (line 6)", "needs an at time"}},
		{"rewrite outside the scenario", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {at: 8d}\n",
			[]string{"tables[0].ttl.rewrites[0].at (line 6)", "8d is outside the scenario"}},
		{"rewrite unknown match", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {at: 1h, match: expired}\n",
			[]string{"tables[0].ttl.rewrites[0].match (line 6)", `unknown match "expired"`}},
		{"rewrite unknown class", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {at: 1h, class: micros}\n",
			[]string{"tables[0].ttl.rewrites[0].class (line 6)", `unknown class "micros"`}},
		{"rewrite of missing values without expires_in", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {at: 1h, match: missing}\n",
			[]string{"tables[0].ttl.rewrites[0] (line 6)", "need expires_in"}},
		{"rewrite attribute taken", "tables:\n  - name: abc\n    ttl:\n      attribute: ttl\n      rewrites:\n        - {at: 1h, from_attribute: data}\n",
			[]string{"tables[0].ttl.rewrites[0].from_attribute (line 6)", "taken by the simulated items' padding"}},
		{"TTL attribute taken", "tables:\n  - name: abc\n    ttl:\n      attribute: pk\n",
			[]string{"tables[0].ttl.attribute (line 4)", "taken by the simulated items' key"}},
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

// TestScenarioExpansion checks what validation makes of the new forms: the
// single-stream writes become one stream with every write, repeated
// switches every occurrence in time order, and an event's count its until.
func TestScenarioExpansion(t *testing.T) {
	sc, err := LoadScenario([]byte(`horizon: 1d
tables:
  - name: abc
    billing_switches:
      - {at: -1d, mode: on_demand, every: 8h, count: 3}
      - {at: -20h, mode: provisioned, every: 8h, until: 0}
      - {at: 2h, mode: on_demand}
    traffic:
      events:
        - {type: spike, at: -2d, duration: 5m, factor: 2, every: 1d, count: 2}
    ttl:
      attribute: ttl
      writes: {per_minute: 2, class: milliseconds, expires_in: 7d, from: -1d}
faults:
  - {at: 1h, duration: 5m, kind: throttling, service: cloudwatch, operation: GetMetricData, every: 6h, count: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	tb := sc.Tables[0]
	var got []string
	for _, s := range tb.BillingSwitches {
		if s.Every != 0 || s.Until != nil || s.Count != 0 {
			t.Errorf("expanded switch %+v keeps its repetition", s)
		}
		got = append(got, formatOffset(s.At.D())+" "+s.Mode)
	}
	want := "-1d on_demand, -20h0m0s provisioned, -16h0m0s on_demand, -12h0m0s provisioned, -8h0m0s on_demand, -4h0m0s provisioned, 2h0m0s on_demand"
	if strings.Join(got, ", ") != want {
		t.Errorf("switches\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
	if u := tb.Traffic.Events[0].Until; u == nil || u.D() != -24*time.Hour {
		t.Errorf("event until %v, want -1d (the second of 2 daily occurrences from -2d)", u)
	}
	if len(sc.Faults) != 3 || sc.Faults[2].At.D() != 13*time.Hour || sc.Faults[2].Every != 0 || sc.Faults[2].Duration.D() != 5*time.Minute {
		t.Errorf("faults %+v, want 3 occurrences every 6h from 1h", sc.Faults)
	}
	w := tb.TTL.Writes
	if len(w.Streams) != 1 {
		t.Fatalf("single-stream writes became %d streams", len(w.Streams))
	}
	st := w.Streams[0]
	if st.Share != 1 || st.Class != ClassMilliseconds || st.ExpiresIn.D() != 7*24*time.Hour || st.Attribute != "ttl" || st.From.D() != -24*time.Hour || st.Until != nil {
		t.Errorf("stream %+v (from %v), want share 1, milliseconds, 7d, ttl, from -1d, no end", st, st.From.D())
	}
}

// TestREADMEExampleLoads keeps the format example of README.md true: it
// must load, and its repeated switches and rewrites must expand.
func TestREADMEExampleLoads(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no yaml example in README.md")
	}
	sc, err := LoadScenario([]byte(example))
	if err != nil {
		t.Fatalf("the README example does not load: %v", err)
	}
	var orders *TableSpec
	for i := range sc.Tables {
		if sc.Tables[i].Name == "orders" {
			orders = &sc.Tables[i]
		}
	}
	if orders == nil {
		t.Fatal("no orders table in the README example")
	}
	// 2 single switches, 13 every 4h from 1d to 3d, 12 counted ones.
	if n := len(orders.BillingSwitches); n != 2+13+12 {
		t.Errorf("%d billing switches after expansion, want 27", n)
	}
	if n := len(orders.TTL.Rewrites); n != 3 {
		t.Errorf("%d rewrites, want 3", n)
	}
}
