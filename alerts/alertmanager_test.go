package alerts

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// receiverBySeverity is the routing alertmanager.yml promises.
var receiverBySeverity = map[string]string{
	Critical: "dynamodb-pager",
	Warning:  "dynamodb-ticket",
	Info:     "dynamodb-review",
}

// TestAlertmanagerConfigChecks runs amtool check-config on the example.
func TestAlertmanagerConfigChecks(t *testing.T) {
	amtool := testtools.Amtool(t)
	res := testtools.RunCommand(t, "", amtool, "check-config", "alertmanager.yml")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "SUCCESS") {
		t.Fatalf("amtool check-config alertmanager.yml: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestAlertmanagerRoutesEverySeverity asks amtool where every alert of the
// pack goes, with the labels it carries, and where an alert goes once its
// severity is overridden.
func TestAlertmanagerRoutesEverySeverity(t *testing.T) {
	amtool := testtools.Amtool(t)
	route := func(labels ...string) string {
		t.Helper()
		args := append([]string{"config", "routes", "test", "--config.file=alertmanager.yml"}, labels...)
		res := testtools.RunCommand(t, "", amtool, args...)
		if res.ExitCode != 0 {
			t.Fatalf("amtool %s: exit %d\n%s%s", strings.Join(args, " "), res.ExitCode, res.Stdout, res.Stderr)
		}
		return strings.TrimSpace(res.Stdout)
	}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			labels := []string{"alertname=" + r.Alert, "severity=" + r.Severity, "account=prod", "region=us-east-1", "table=orders"}
			if got, want := route(labels...), receiverBySeverity[r.Severity]; got != want {
				t.Errorf("%s (%s) goes to %q, want %q", r.Alert, r.Severity, got, want)
			}
		}
	}
	// A tuned severity follows the label, not the alert name: an info alert
	// raised to critical pages.
	if got := route("alertname=DynamoDBReadWriteRatioDrift", "severity=critical", "table=orders"); got != "dynamodb-pager" {
		t.Errorf("a critical DynamoDBReadWriteRatioDrift goes to %q", got)
	}
	// Without a known severity an alert still reaches a person.
	if got := route("alertname=SomethingElse"); got != "dynamodb-ticket" {
		t.Errorf("an alert without severity goes to %q", got)
	}
}

// collectorNames are the values of the exporter's collector label.
func collectorNames() []string {
	var out []string
	for _, c := range []interface{ Name() string }{
		&collectors.AutoScaling{}, &collectors.Capacity{}, &collectors.CloudWatch{},
		&collectors.Discovery{}, &collectors.Tables{}, &collectors.TTL{},
	} {
		out = append(out, c.Name())
	}
	return out
}

// amConfig is the part of Alertmanager's configuration the checks below read.
type amConfig struct {
	InhibitRules []struct {
		SourceMatchers []string `yaml:"source_matchers"`
		TargetMatchers []string `yaml:"target_matchers"`
		Equal          []string `yaml:"equal"`
	} `yaml:"inhibit_rules"`
}

// matcher is one Alertmanager matcher of the forms the example uses.
type matcher struct{ name, op, value string }

func parseMatcher(t *testing.T, s string) matcher {
	t.Helper()
	for _, op := range []string{"=~", "!~", "!=", "="} {
		if name, value, ok := strings.Cut(s, op); ok {
			return matcher{strings.TrimSpace(name), op, strings.Trim(strings.TrimSpace(value), `"`)}
		}
	}
	t.Fatalf("matcher %q", s)
	return matcher{}
}

// plainNames matches an alternation of plain alert names.
var plainNames = regexp.MustCompile(`^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$`)

// selects returns the pack's alerts a list of matchers can select, from the
// alert's name, its severity and the label names it carries (a label it lacks
// is empty, as Alertmanager reads it).
func selects(t *testing.T, ms []string, labels map[string][]string) []string {
	t.Helper()
	severity := map[string]string{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			severity[r.Alert] = r.Severity
		}
	}
	var out []string
	for alert, names := range labels {
		ok := true
		for _, s := range ms {
			m := parseMatcher(t, s)
			var match bool
			switch m.name {
			case "alertname", "severity":
				v := alert
				if m.name == "severity" {
					v = severity[alert]
				}
				switch m.op {
				case "=":
					match = v == m.value
				case "=~":
					alternatives := strings.Split(m.value, "|")
					match = slices.Contains(alternatives, v)
					if m.name == "alertname" && plainNames.MatchString(m.value) {
						for _, a := range alternatives {
							if _, ok := severity[a]; !ok {
								t.Errorf("matcher %q names %s, which is not an alert of the pack", s, a)
							}
						}
					} else if m.name == "alertname" {
						// A pattern (DynamoDB.+): matched as Alertmanager
						// does, anchored at both ends.
						re, err := regexp.Compile("^(?:" + m.value + ")$")
						if err != nil {
							t.Fatalf("matcher %q: %v", s, err)
						}
						match = re.MatchString(v)
					}
				default:
					t.Fatalf("matcher %q: only = and =~ on alertname and severity are checked", s)
				}
			case "collector":
				// The value is known at run time only: the alert must carry
				// the label, and the value must name a collector.
				if m.op != "=" || !slices.Contains(collectorNames(), m.value) {
					t.Fatalf("matcher %q: collector=\"<one of %v>\" expected", s, collectorNames())
				}
				match = slices.Contains(names, m.name)
			default:
				// Any other label: the example only asks for its presence.
				if m.op != "=~" || m.value != ".+" {
					t.Fatalf("matcher %q: only name=~\".+\" is checked on other labels", s)
				}
				match = slices.Contains(names, m.name)
			}
			ok = ok && match
		}
		if ok {
			out = append(out, alert)
		}
	}
	slices.Sort(out)
	return out
}

// TestAlertmanagerInhibitionsUseTheAlertsLabels checks every inhibition of
// the example against the labels the pack's alerts carry (inferred from
// their expressions): each side selects at least one alert of the pack, and
// every `equal` label is carried by every alert on both sides; a label
// missing on one side would make the rule silence alerts of every table, or
// none.
func TestAlertmanagerInhibitionsUseTheAlertsLabels(t *testing.T) {
	b, err := os.ReadFile("alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg amConfig
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	labels := alertLabels(t)
	if len(cfg.InhibitRules) == 0 {
		t.Fatal("no inhibit_rules")
	}
	inhibited := map[string][]string{}
	for i, r := range cfg.InhibitRules {
		src := selects(t, r.SourceMatchers, labels)
		dst := selects(t, r.TargetMatchers, labels)
		if len(src) == 0 || len(dst) == 0 {
			t.Errorf("inhibit rule %d: source %v selects %v, target %v selects %v: no alert of the pack", i, r.SourceMatchers, src, r.TargetMatchers, dst)
		}
		if len(r.Equal) == 0 {
			t.Errorf("inhibit rule %d has no equal labels: it would silence every account", i)
		}
		for _, a := range append(append([]string{}, src...), dst...) {
			for _, l := range r.Equal {
				if !slices.Contains(labels[a], l) {
					t.Errorf("inhibit rule %d: equal label %q is not on %s (labels %v)", i, l, a, labels[a])
				}
			}
		}
		for _, a := range dst {
			inhibited[a] = append(inhibited[a], src...)
		}
	}
	// What the example promises in its comments and in alerts/README.md.
	for target, source := range map[string]string{
		"DynamoDBOnDemandSustainedWorkload":       "DynamoDBHotPartition",
		"DynamoDBProvisionedThroughputThrottling": "DynamoDBAutoScalingMaxTooLow",
		"DynamoDBTTLNotDeleting":                  "DynamoDBExporterCollectorFailing",
		"DynamoDBHotPartition":                    "DynamoDBExporterCollectorFailing",
		"DynamoDBTTLDeletionLagging":              "DynamoDBExporterCollectorFailing",
		"DynamoDBLatencyAboveBaseline":            "DynamoDBHotPartition",
	} {
		if !slices.Contains(inhibited[target], source) {
			t.Errorf("%s is not inhibited by %s (inhibited by %v)", target, source, inhibited[target])
		}
	}
	// The page for irreversible data loss is never silenced by another alert.
	if src := inhibited["DynamoDBTTLDeletingLiveData"]; len(src) > 0 {
		t.Errorf("DynamoDBTTLDeletingLiveData is inhibited by %v", src)
	}
	// An exporter down silences every warning and info alert of the pack,
	// present and future: any of them may still evaluate on its last samples
	// (a range window), and none is current.
	for _, g := range Pack() {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Severity == Critical {
				continue
			}
			if !slices.Contains(inhibited[r.Alert], "DynamoDBExporterDown") {
				t.Errorf("%s (%s) is not inhibited by DynamoDBExporterDown (inhibited by %v)", r.Alert, r.Severity, inhibited[r.Alert])
			}
		}
	}
}
