package alerts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// This file evaluates rule files on a replay with promtool and reads back
// what fired: promtool test rules cannot list what fired, so the test it
// writes asks at every minute for no firing alert at all, and the timeline
// is read from the failures promtool reports.

// Firing is one alert series that fired during a replay: its labels and the
// minutes (offsets from the replay start) at which it was firing.
type Firing struct {
	Alert  string
	Labels map[string]string
	// Episodes are the firing intervals, [From, To] inclusive, in order.
	Episodes []Episode
}

// Episode is one firing interval, [From, To] inclusive, as offsets from
// the replay start.
type Episode struct{ From, To time.Duration }

// First is when the alert started firing for the first time.
func (f Firing) First() time.Duration { return f.Episodes[0].From }

// Table names what the alert is about: the table (and index), else the
// account and region of an exporter alert.
func (f Firing) Table() string {
	if t := f.Labels["table"]; t != "" {
		if i := f.Labels["index"]; i != "" {
			return t + "/" + i
		}
		return t
	}
	return f.Labels["account"] + "/" + f.Labels["region"]
}

// Timeline is every alert series that fired during a replay, sorted by
// table, first firing and name.
type Timeline struct {
	Scenario string
	Duration time.Duration
	Firings  []Firing
}

// Evaluate evaluates the rule files on series (promtool's input_series
// for one test group, as `replay --format promtool` writes them: lines of
// YAML starting at "input_series:") every minute from 0 to duration with
// promtool, and returns every alert that fired. scenario names the replay
// in the timeline.
func Evaluate(ctx context.Context, promtool string, files []File, scenario string, series []byte, duration time.Duration) (*Timeline, error) {
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
	for _, l := range strings.Split(strings.TrimSuffix(string(series), "\n"), "\n") {
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
	return buildTimeline(scenario, duration, got), nil
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
			d, err := model.ParseDuration(m[1])
			if err != nil {
				return nil, fmt.Errorf("promtool output: %w", err)
			}
			at, inExpr = time.Duration(d), true
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
func buildTimeline(name string, duration time.Duration, samples []sample) *Timeline {
	byKey := map[string]*Firing{}
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
			f = &Firing{Alert: s.Labels["alertname"], Labels: lbl}
			byKey[key] = f
			keys = append(keys, key)
		}
		f.Episodes = append(f.Episodes, Episode{s.At, s.At})
	}
	tl := &Timeline{Scenario: name, Duration: duration}
	for _, k := range keys {
		f := byKey[k]
		slices.SortFunc(f.Episodes, func(a, b Episode) int { return int(a.From - b.From) })
		var merged []Episode
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
	slices.SortFunc(tl.Firings, func(a, b Firing) int {
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

// Offset prints an offset from the replay start as +h:mm.
func Offset(d time.Duration) string {
	m := int(d / time.Minute)
	return fmt.Sprintf("+%d:%02d", m/60, m%60)
}

// Print writes the timeline per table: each alert series with its severity,
// the labels that tell it apart, and its firing intervals.
func (tl *Timeline) Print(w io.Writer) error {
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
			eps = append(eps, Offset(e.From)+"–"+Offset(e.To))
		}
		fmt.Fprintf(bw, "  %-8s %-42s %-22s firing %s\n", f.Labels["severity"], f.Alert, strings.Join(extra, " "), strings.Join(eps, ", "))
	}
	return bw.Flush()
}
