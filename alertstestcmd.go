package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// alertsTestCmd replays a scenario through the alert pack with promtool and
// prints which alerts fire, when, for which table.
type alertsTestCmd struct {
	Scenario string        `required:"" help:"Scenario to replay: a built-in name (${scenarios}) or a YAML file (format: simulation/sim/README.md)."`
	Duration time.Duration `help:"Simulated time to replay; the rules are evaluated every minute of it." default:"24h"`
	Start    string        `help:"Scenario start, RFC 3339 (default: the scenario's own start, else 2026-11-20T00:00:00Z, so that runs are repeatable)."`
	Config   string        `name:"config" help:"Alert pack configuration (tuning) file; without it, the shipped rules." type:"path"`
	Rules    string        `help:"Directory of rule files to use instead of rendering the pack (e.g. the output of 'alerts render')." type:"path"`
	Promtool string        `help:"promtool binary (default: looked up in $DYNAMODB_EXPORTER_TOOLS/bin, ./.tools/bin, then PATH)."`
}

// defaultAlertsTestStart is the replay start when neither the flag nor the
// scenario gives one: a fixed UTC midnight, so that two runs agree.
var defaultAlertsTestStart = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// Run replays the scenario and prints the timeline.
func (c *alertsTestCmd) Run(ctx context.Context) error {
	return c.run(ctx, os.Stdout, os.Stderr)
}

func (c *alertsTestCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	sc, err := loadScenario(c.Scenario)
	if err != nil {
		return err
	}
	start := defaultAlertsTestStart
	if c.Start != "" {
		if start, err = time.Parse(time.RFC3339, c.Start); err != nil {
			return fmt.Errorf("--start %q: %w", c.Start, err)
		}
	}
	if c.Duration < time.Minute {
		return fmt.Errorf("--duration %s: at least 1m", c.Duration)
	}
	promtool := c.Promtool
	if promtool == "" {
		if promtool, err = findPromtool(); err != nil {
			return err
		}
	}
	files, err := c.ruleFiles()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "replaying %s for %s and evaluating %d rule files with %s\n", sc.Name, c.Duration, len(files), promtool)
	tl, err := alertTimeline(ctx, sc, start, c.Duration, files, promtool, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	return tl.print(stdout)
}

// ruleFiles returns the rule files to evaluate: those of --rules, else the
// pack rendered with --config (or the defaults, which are the shipped files).
func (c *alertsTestCmd) ruleFiles() ([]alerts.File, error) {
	if c.Rules != "" {
		paths, err := filepath.Glob(filepath.Join(c.Rules, "*.y*ml"))
		if err != nil {
			return nil, fmt.Errorf("--rules: %w", err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("--rules %s: no .yml or .yaml rule file there", c.Rules)
		}
		var out []alerts.File
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("--rules: %w", err)
			}
			out = append(out, alerts.File{Name: filepath.Base(p), Content: b})
		}
		return out, nil
	}
	var cfg *alerts.Config
	if c.Config != "" {
		var err error
		if cfg, err = alerts.LoadConfig(c.Config); err != nil {
			return nil, err
		}
	}
	return alerts.Render(cfg)
}

// errNoPromtool says promtool was not found and how to get it.
var errNoPromtool = errors.New("promtool not found in $DYNAMODB_EXPORTER_TOOLS/bin, ./.tools/bin or PATH: " +
	"install it with ./scripts/install-tools.sh promtool (from a checkout of this repository), " +
	"or download Prometheus from https://prometheus.io/download/ and put promtool on PATH, or pass --promtool")

// findPromtool looks for promtool in $DYNAMODB_EXPORTER_TOOLS/bin,
// ./.tools/bin, then PATH.
func findPromtool() (string, error) {
	var dirs []string
	if d := os.Getenv("DYNAMODB_EXPORTER_TOOLS"); d != "" {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	dirs = append(dirs, filepath.Join(".tools", "bin"))
	for _, d := range dirs {
		p := filepath.Join(d, "promtool")
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			// Absolute: promtool runs in the replay's scratch directory.
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", fmt.Errorf("locating promtool: %w", err)
			}
			return abs, nil
		}
	}
	if p, err := exec.LookPath("promtool"); err == nil {
		return p, nil
	}
	return "", errNoPromtool
}

// firing is one alert series that fired during a replay: its labels and the
// minutes (offsets from the replay start) at which it was firing.
type firing struct {
	Alert  string
	Labels map[string]string
	// Episodes are the firing intervals, [From, To] inclusive, in order.
	Episodes []episode
}

type episode struct{ From, To time.Duration }

// First is when the alert started firing for the first time.
func (f firing) First() time.Duration { return f.Episodes[0].From }

// Table names what the alert is about: the table (and index), else the
// account and region of an exporter alert.
func (f firing) Table() string {
	if t := f.Labels["table"]; t != "" {
		if i := f.Labels["index"]; i != "" {
			return t + "/" + i
		}
		return t
	}
	return f.Labels["account"] + "/" + f.Labels["region"]
}

// timeline is every alert series that fired during a replay, sorted by
// table, first firing and name.
type timeline struct {
	Scenario string
	Duration time.Duration
	Firings  []firing
}

// alertTimeline replays sc from start for duration through the exporter,
// evaluates the rule files on the scrapes with promtool every minute, and
// returns every alert that fired. promtool test rules cannot list what
// fired, so the test asks at every minute for no firing alert at all and
// reads what it got from the failures it reports.
func alertTimeline(ctx context.Context, sc *sim.Scenario, start time.Time, duration time.Duration, files []alerts.File, promtool string, logger *slog.Logger) (*timeline, error) {
	return alertTimelineWith(ctx, sc, start, duration, "", files, promtool, logger)
}

// alertTimelineWith is alertTimeline with the exporter's collectors
// configured by collectors (YAML; empty for the defaults).
func alertTimelineWith(ctx context.Context, sc *sim.Scenario, start time.Time, duration time.Duration, collectors string, files []alerts.File, promtool string, logger *slog.Logger) (*timeline, error) {
	var series bytes.Buffer
	if err := runReplayWith(ctx, sc, start, duration, time.Minute, "promtool", collectors, &series, logger, nil); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "dynamodb-exporter-alerts-test-")
	if err != nil {
		return nil, fmt.Errorf("alerts test: %w", err)
	}
	defer os.RemoveAll(dir)
	var names []string
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
			return nil, fmt.Errorf("alerts test: %w", err)
		}
		names = append(names, strconv.Quote(f.Name))
	}
	var test bytes.Buffer
	fmt.Fprintf(&test, "rule_files: [%s]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n", strings.Join(names, ", "))
	for _, l := range strings.Split(strings.TrimSuffix(series.String(), "\n"), "\n") {
		test.WriteString("    " + l + "\n")
	}
	test.WriteString("    promql_expr_test:\n")
	for m := time.Duration(0); m <= duration; m += time.Minute {
		fmt.Fprintf(&test, "      - {expr: 'ALERTS{alertstate=\"firing\"}', eval_time: %dm, exp_samples: []}\n", int(m/time.Minute))
	}
	if err := os.WriteFile(filepath.Join(dir, "replay_test.yml"), test.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("alerts test: %w", err)
	}
	cmd := exec.CommandContext(ctx, promtool, "test", "rules", "replay_test.yml")
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	runErr := cmd.Run()
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return nil, fmt.Errorf("running %s: %w", promtool, runErr)
	}
	got, err := parsePromtoolFailures(out.String() + stderr.String())
	if err != nil {
		return nil, err
	}
	if runErr != nil && len(got) == 0 {
		return nil, fmt.Errorf("promtool test rules failed without reporting alerts (%w):\n%s%s", runErr, out.String(), stderr.String())
	}
	return buildTimeline(sc.Name, duration, got), nil
}

// sample is one alert series seen firing at one evaluation.
type sample struct {
	At     time.Duration
	Labels map[string]string
}

var promtoolFailure = regexp.MustCompile(`^\s*expr: "ALERTS\{alertstate=\\"firing\\"\}", time: (\S+),$`)

// parsePromtoolFailures reads promtool test rules' failure report: for each
// failing expression, a line `expr: "...", time: 1h2m,` followed by a line
// `got: {labels} value, {labels} value`.
func parsePromtoolFailures(out string) ([]sample, error) {
	var samples []sample
	var at time.Duration
	inExpr := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := promtoolFailure.FindStringSubmatch(line); m != nil {
			d, err := parsePromDuration(m[1])
			if err != nil {
				return nil, fmt.Errorf("promtool output: %w", err)
			}
			at, inExpr = d, true
			continue
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "got: ")
		if !ok || !inExpr {
			continue
		}
		inExpr = false
		sets, err := parseLabelSets(rest)
		if err != nil {
			return nil, fmt.Errorf("promtool output at %s: %w", at, err)
		}
		for _, ls := range sets {
			samples = append(samples, sample{At: at, Labels: ls})
		}
	}
	return samples, sc.Err()
}

var promDurationPart = regexp.MustCompile(`(\d+)(ms|y|w|d|h|m|s)`)

// parsePromDuration parses a Prometheus duration as promtool prints it
// (1d2h3m, 0s).
func parsePromDuration(s string) (time.Duration, error) {
	units := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
		"d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour}
	var d time.Duration
	if promDurationPart.ReplaceAllString(s, "") != "" {
		return 0, fmt.Errorf("duration %q", s)
	}
	for _, m := range promDurationPart.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		d += time.Duration(n) * units[m[2]]
	}
	return d, nil
}

// parseLabelSets parses `{a="x", b="y"} 1E+00, {c="z"} 1E+00`.
func parseLabelSets(s string) ([]map[string]string, error) {
	var out []map[string]string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), ",")) {
		if s[0] != '{' {
			return nil, fmt.Errorf("label set expected at %.40q", s)
		}
		s = s[1:]
		ls := map[string]string{}
		for {
			s = strings.TrimLeft(s, " ,")
			if strings.HasPrefix(s, "}") {
				s = s[1:]
				break
			}
			eq := strings.IndexByte(s, '=')
			if eq <= 0 {
				return nil, fmt.Errorf("label expected at %.40q", s)
			}
			name := s[:eq]
			q, err := strconv.QuotedPrefix(s[eq+1:])
			if err != nil {
				return nil, fmt.Errorf("label %s: %w", name, err)
			}
			v, _ := strconv.Unquote(q)
			ls[name] = v
			s = s[eq+1+len(q):]
		}
		// The value, up to the next label set.
		if i := strings.Index(s, ", {"); i >= 0 {
			s = s[i:]
		} else {
			s = ""
		}
		out = append(out, ls)
	}
	return out, nil
}

// buildTimeline groups the samples by alert series and merges consecutive
// minutes into episodes.
func buildTimeline(name string, duration time.Duration, samples []sample) *timeline {
	byKey := map[string]*firing{}
	var keys []string
	for _, s := range samples {
		lbl := map[string]string{}
		for k, v := range s.Labels {
			if k != "__name__" && k != "alertstate" && k != "alertname" {
				lbl[k] = v
			}
		}
		key := s.Labels["alertname"] + labelString(lbl)
		f, ok := byKey[key]
		if !ok {
			f = &firing{Alert: s.Labels["alertname"], Labels: lbl}
			byKey[key] = f
			keys = append(keys, key)
		}
		f.Episodes = append(f.Episodes, episode{s.At, s.At})
	}
	tl := &timeline{Scenario: name, Duration: duration}
	for _, k := range keys {
		f := byKey[k]
		slices.SortFunc(f.Episodes, func(a, b episode) int { return int(a.From - b.From) })
		var merged []episode
		for _, e := range f.Episodes {
			if n := len(merged); n > 0 && e.From <= merged[n-1].To+time.Minute {
				merged[n-1].To = max(merged[n-1].To, e.To)
				continue
			}
			merged = append(merged, e)
		}
		f.Episodes = merged
		tl.Firings = append(tl.Firings, *f)
	}
	slices.SortFunc(tl.Firings, func(a, b firing) int {
		if c := strings.Compare(a.Table(), b.Table()); c != 0 {
			return c
		}
		if a.First() != b.First() {
			return int(a.First() - b.First())
		}
		if c := strings.Compare(a.Alert, b.Alert); c != 0 {
			return c
		}
		return strings.Compare(labelString(a.Labels), labelString(b.Labels))
	})
	return tl
}

// labelString is a stable {k="v",...} rendering of a label set.
func labelString(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, l[k])
	}
	b.WriteByte('}')
	return b.String()
}

// offset prints an offset from the replay start as +h:mm.
func offset(d time.Duration) string {
	m := int(d / time.Minute)
	return fmt.Sprintf("+%d:%02d", m/60, m%60)
}

// print writes the timeline per table: each alert series with its severity,
// the labels that tell it apart, and its firing intervals.
func (tl *timeline) print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "scenario %s, %s replayed, rules evaluated every minute; times are +h:mm after the start\n", tl.Scenario, tl.Duration)
	if len(tl.Firings) == 0 {
		fmt.Fprintln(bw, "no alert fired")
		return bw.Flush()
	}
	table := ""
	for _, f := range tl.Firings {
		if f.Table() != table {
			table = f.Table()
			fmt.Fprintf(bw, "\n%s\n", table)
		}
		var extra []string
		for _, k := range []string{"dimension", "kind", "operation", "collector", "service", "error_code"} {
			if v := f.Labels[k]; v != "" {
				extra = append(extra, k+"="+v)
			}
		}
		var eps []string
		for _, e := range f.Episodes {
			eps = append(eps, offset(e.From)+"–"+offset(e.To))
		}
		fmt.Fprintf(bw, "  %-8s %-42s %-22s firing %s\n", f.Labels["severity"], f.Alert, strings.Join(extra, " "), strings.Join(eps, ", "))
	}
	return bw.Flush()
}
