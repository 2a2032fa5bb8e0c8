package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBadConfigsNameTheKey(t *testing.T) {
	want := map[string]string{
		"unknown-key.bad.yml":    `collectors.cloudwatch.intervall (line 3): unknown key "intervall"; known keys here: delay, enabled, interval, max_catch_up, slow_interval`,
		"bad-duration.bad.yml":   `collectors.tables.interval (line 3): invalid duration "5x"`,
		"bad-regex.bad.yml":      `tables.include[1] (line 2): invalid regular expression "(unclosed"`,
		"bad-region.bad.yml":     `accounts[0].regions[1]: "moon-1" is not an AWS region name`,
		"short-interval.bad.yml": `collectors.cloudwatch.interval: must be a whole number of minutes, at least 1m`,
		"bad-role.bad.yml":       `accounts[0].role_arn: "admin" is not an IAM role ARN`,
		"dup-account.bad.yml":    `accounts[1].name: "a" is used by two accounts`,
		"bad-bool.bad.yml":       `collectors.autoscaling.enabled (line 3): expected true or false, got "maybe"`,
		"bad-endpoint.bad.yml":   `aws.endpoints.cloudwatch: "localhost:4566" is not an http(s) URL`,
		"bad-shard.bad.yml":      `shard (line 1): "3/3": the shard index must be between 0 and 2`,
	}
	files, err := filepath.Glob("testdata/*.bad.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("found %d bad fixtures, expected %d", len(files), len(want))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatal("Load accepted a bad config")
			}
			w, ok := want[filepath.Base(f)]
			if !ok {
				t.Fatalf("no expectation for %s", f)
			}
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error\n  %v\ndoes not contain\n  %s", err, w)
			}
			if !strings.Contains(err.Error(), f) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestExampleConfig(t *testing.T) {
	c, err := Load("../examples/config.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Accounts) != 2 || c.Accounts[1].RoleARN == "" || len(c.Accounts[0].Regions) != 2 {
		t.Errorf("accounts not parsed: %+v", c.Accounts)
	}
	if got := c.Collectors.CloudWatch.Delay.D(); got != 3*time.Minute {
		t.Errorf("cloudwatch delay = %s", got)
	}
	f := c.Tables
	cases := []struct {
		name string
		tags map[string]string
		want bool
	}{
		{"orders", map[string]string{"env": "prod"}, true},
		{"orders-eu", map[string]string{"env": "staging"}, true},
		{"orders-tmp", map[string]string{"env": "prod"}, false}, // excluded
		{"sessions", map[string]string{"env": "dev"}, false},    // tag value does not match
		{"sessions", nil, false},                                // tag missing
		{"xorders", map[string]string{"env": "prod"}, false},    // include is anchored
		{"sessions2", map[string]string{"env": "prod"}, false},  // include is anchored
		{"sessions", map[string]string{"env": "prod", "a": "b"}, true},
	}
	for _, tc := range cases {
		if got := f.Selects(tc.name, tc.tags); got != tc.want {
			t.Errorf("Selects(%q, %v) = %v, want %v", tc.name, tc.tags, got, tc.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	for _, c := range []*Config{Default(), mustParse(t, "")} {
		if len(c.Accounts) != 1 || c.Accounts[0].Name != DefaultAccountName {
			t.Errorf("default account = %+v", c.Accounts)
		}
		if c.Collectors.CloudWatch.Interval.D() != time.Minute || !c.Collectors.CloudWatch.On() || !c.Collectors.AutoScaling.On() {
			t.Errorf("cloudwatch defaults wrong: %+v", c.Collectors.CloudWatch)
		}
		if c.AWS.Concurrency != DefaultConcurrency {
			t.Errorf("concurrency = %d", c.AWS.Concurrency)
		}
		if c.AWS.CallTimeout.D() != 30*time.Second {
			t.Errorf("call_timeout = %s, want 30s", c.AWS.CallTimeout.D())
		}
		if !c.Tables.Selects("anything", nil) {
			t.Error("default filter must select every table")
		}
	}
	if _, err := Parse([]byte("aws:\n  call_timeout: -1s\n")); err == nil || !strings.Contains(err.Error(), "aws.call_timeout") {
		t.Errorf("negative call_timeout: %v", err)
	}
	c := mustParse(t, "collectors:\n  cloudwatch:\n    enabled: false\n    interval: 5m\n")
	if c.Collectors.CloudWatch.On() || c.Collectors.CloudWatch.Interval.D() != 5*time.Minute {
		t.Errorf("cloudwatch settings not applied: %+v", c.Collectors.CloudWatch)
	}
}

// TestCloudWatchTiers: the slow tier's cadence defaults to the smallest
// multiple of the interval that is at least 10m, the catch-up window holds
// it, and a cadence the collector cannot keep is refused naming its key.
func TestCloudWatchTiers(t *testing.T) {
	defaults := []struct {
		yaml          string
		slow, catchUp time.Duration
	}{
		{"", 10 * time.Minute, 15 * time.Minute},
		{"collectors: {cloudwatch: {interval: 5m}}", 10 * time.Minute, 15 * time.Minute},
		{"collectors: {cloudwatch: {interval: 3m}}", 12 * time.Minute, 15 * time.Minute},
		{"collectors: {cloudwatch: {interval: 15m}}", 15 * time.Minute, 15 * time.Minute},
		{"collectors: {cloudwatch: {slow_interval: 30m}}", 30 * time.Minute, 30 * time.Minute},
		{"collectors: {cloudwatch: {slow_interval: 1m}}", time.Minute, 15 * time.Minute},
	}
	for _, d := range defaults {
		c := mustParse(t, d.yaml)
		if got := c.Collectors.CloudWatch.SlowInterval.D(); got != d.slow {
			t.Errorf("%q: slow_interval = %s, want %s", d.yaml, got, d.slow)
		}
		if got := c.Collectors.CloudWatch.MaxCatchUp.D(); got != d.catchUp {
			t.Errorf("%q: max_catch_up = %s, want %s", d.yaml, got, d.catchUp)
		}
	}
	bad := []struct{ yaml, want string }{
		{"collectors: {cloudwatch: {interval: 2m, slow_interval: 7m}}", "collectors.cloudwatch.slow_interval: must be a multiple of collectors.cloudwatch.interval 2m0s"},
		{"collectors: {cloudwatch: {interval: 5m, slow_interval: 1m}}", "collectors.cloudwatch.slow_interval: must be a multiple of collectors.cloudwatch.interval 5m0s (the slow tier is fetched on some of its cycles), got 1m0s"},
		{"collectors: {cloudwatch: {slow_interval: 90s}}", "collectors.cloudwatch.slow_interval: must be a multiple"},
		{"collectors: {cloudwatch: {slow_interval: -10m}}", "collectors.cloudwatch.slow_interval (line 1): invalid duration"},
		{"collectors: {cloudwatch: {max_catch_up: 5m}}", "collectors.cloudwatch.max_catch_up: 5m0s is shorter than collectors.cloudwatch.slow_interval 10m0s"},
		{"collectors: {cloudwatch: {slow_interval: 4h}}", "collectors.cloudwatch.max_catch_up: 4h0m0s is longer than 3h"},
	}
	for _, b := range bad {
		if _, err := Parse([]byte(b.yaml)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: err = %v, want it to contain %q", b.yaml, err, b.want)
		}
	}
}

func TestMultipleDocumentsRefused(t *testing.T) {
	if _, err := Parse([]byte("aws:\n  concurrency: 2\n---\naws:\n  concurrency: 3\n")); err == nil || !strings.Contains(err.Error(), "more than one YAML document") {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yml"))
	if err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("err = %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func mustParse(t *testing.T, s string) *Config {
	t.Helper()
	c, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
