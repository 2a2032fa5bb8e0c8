package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// iamStatement is one Allow statement of iam-policy.json.
type iamStatement struct {
	Sid       string
	Actions   []string
	Resources []*regexp.Regexp
}

// stringOrList decodes an IAM policy element that is a string or a list.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*s = many
	return nil
}

// readIAMPolicy reads the Allow statements of iam-policy.json; a resource
// pattern becomes a regular expression with IAM's wildcards (* any run of
// characters, ? one character).
func readIAMPolicy(t *testing.T) []iamStatement {
	t.Helper()
	b, err := os.ReadFile("../iam-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Statement []struct {
			Sid      string
			Effect   string
			Action   stringOrList
			Resource stringOrList
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("iam-policy.json: %v", err)
	}
	var out []iamStatement
	for _, s := range doc.Statement {
		if s.Effect != "Allow" {
			t.Fatalf("iam-policy.json: statement %s: effect %q, want only Allow statements", s.Sid, s.Effect)
		}
		st := iamStatement{Sid: s.Sid, Actions: s.Action}
		for _, r := range s.Resource {
			q := regexp.QuoteMeta(r)
			q = strings.ReplaceAll(q, `\*`, `.*`)
			q = strings.ReplaceAll(q, `\?`, `.`)
			st.Resources = append(st.Resources, regexp.MustCompile("^"+q+"$"))
		}
		out = append(out, st)
	}
	return out
}

// allows reports whether a statement of the policy allows action on resource
// ("*" for actions that take no resource).
func policyAllows(policy []iamStatement, action, resource string) bool {
	for _, s := range policy {
		if !slices.Contains(s.Actions, action) {
			continue
		}
		for _, r := range s.Resources {
			if r.MatchString(resource) {
				return true
			}
		}
	}
	return false
}

// iamRun is the exporter, its CLI commands' code paths, and the simulated
// account they call, for the least-privilege tests.
type iamRun struct {
	srv *awssim.Server
	app *exporter.App
	clk *clock.Manual
}

// iamRoleARN is the role the exporter assumes in the least-privilege test:
// the policy is attached to it, so every call but AssumeRole must be made
// by its session.
const iamRoleARN = "arn:aws:iam::" + awssim.DefaultAccountID + ":role/dynamodb-exporter"

// startIAMRun simulates the healthy scenario (a provisioned table with
// auto-scaling, a GSI, tags, TTL and items) and builds the exporter against
// it from configYAML (endpoints and credentials are added here).
func startIAMRun(t *testing.T, configYAML string) *iamRun {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC))
	srv := harnesstest.Account(t, harnesstest.Scenario(t, "healthy"), clk).Server
	r := &iamRun{srv: srv, clk: clk}
	r.app = r.build(t, configYAML)
	return r
}

// fullConfig turns on every collector and every optional call: a role to
// assume, tag filters (ListTagsOfResource) and the TTL sampler (Scan).
const fullIAMConfig = `
accounts:
  - name: iam
    role_arn: ` + iamRoleARN + `
    regions: [us-east-1]
tables:
  tags: {env: prod}
collectors:
  autoscaling: {enabled: true}
  cloudwatch: {enabled: true}
  ttl: {enabled: true}
  capacity: {enabled: true}
`

// calledActions returns the IAM actions of the requests the simulated
// account recorded since the last reset, with the resource ARN each was
// about, and resets the log.
func (r *iamRun) calledActions(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, rec := range r.srv.Requests() {
		action := rec.Service + ":" + rec.Operation
		resource := "*"
		if rec.Service == awssim.ServiceDynamoDB && len(rec.Tables) > 0 {
			resource = fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", rec.Region, awssim.DefaultAccountID, rec.Tables[0])
		}
		if !slices.Contains(out[action], resource) {
			out[action] = append(out[action], resource)
		}
		if rec.Service != awssim.ServiceSTS && !strings.Contains(rec.Principal, ":assumed-role/dynamodb-exporter/") {
			t.Errorf("%s was called as %q, not as the assumed role the policy is attached to", action, rec.Principal)
		}
		if rec.ErrorCode != "" {
			t.Errorf("%s answered %s: every call must succeed with the policy's actions", action, rec.ErrorCode)
		}
	}
	r.srv.ResetRequests()
	return out
}

// TestIAMPolicyIsLeastPrivilege runs every collector (the serve command)
// and every other command that calls AWS (check, ttl audit, capacity
// report) against the simulated account, which records each request, and
// compares the actions called with iam-policy.json both ways: an action
// called must be granted (on that resource), and an action granted must
// have been called. The demo, replay and alerts test commands run the same
// collectors against their own simulated account.
func TestIAMPolicyIsLeastPrivilege(t *testing.T) {
	policy := readIAMPolicy(t)
	r := startIAMRun(t, fullIAMConfig)
	ctx := context.Background()
	byCommand := map[string]map[string][]string{}

	r.app.Scheduler.RunOnce(ctx)
	r.clk.Set(r.clk.Now().Add(2 * time.Minute))
	r.app.Scheduler.RunOnce(ctx) // a second cycle: refreshes, not first fetches
	byCommand["serve (every collector, 2 cycles)"] = r.calledActions(t)

	var out bytes.Buffer
	if res := preflight.Run(ctx, r.app, &out); !res.OK() {
		t.Errorf("check failed with every action of the policy granted: %+v\n%s", res, out.String())
	}
	byCommand["check"] = r.calledActions(t)

	out.Reset()
	if err := ttlAudit(ctx, r.app.Targets[0], "catalog-healthy", 200, 100, r.clk.Now(), &out); err != nil {
		t.Errorf("ttl audit: %v\n%s", err, out.String())
	}
	byCommand["ttl audit"] = r.calledActions(t)

	out.Reset()
	if err := capacityReport(ctx, r.app, "", slog.New(slog.DiscardHandler), &out); err != nil {
		t.Errorf("capacity report: %v\n%s", err, out.String())
	}
	byCommand["capacity report"] = r.calledActions(t)

	called := map[string]bool{}
	for _, cmd := range slices.Sorted(maps.Keys(byCommand)) {
		actions := slices.Sorted(maps.Keys(byCommand[cmd]))
		t.Logf("%s: %d actions: %s", cmd, len(actions), strings.Join(actions, ", "))
		for _, a := range actions {
			called[a] = true
			if a == "sts:AssumeRole" {
				continue // granted to the caller in its own account, not by this policy (README, IAM)
			}
			for _, res := range byCommand[cmd][a] {
				if !policyAllows(policy, a, res) {
					t.Errorf("%s calls %s on %s, which iam-policy.json does not grant", cmd, a, res)
				}
			}
		}
	}
	if !called["sts:AssumeRole"] {
		t.Error("the role was never assumed: the test does not exercise the policy's principal")
	}
	granted := 0
	for _, s := range policy {
		for _, a := range s.Actions {
			granted++
			if !called[a] {
				t.Errorf("iam-policy.json grants %s (statement %s), which no collector or command called", a, s.Sid)
			}
		}
	}
	t.Logf("%d distinct actions called (sts:AssumeRole included), %d granted by iam-policy.json", len(called), granted)
}

// TestIAMPolicyOptionalStatements: without tag filters and with the TTL
// sampler off, ListTagsOfResource and Scan are never called, as the
// policy's statement names promise, and check does not probe them.
func TestIAMPolicyOptionalStatements(t *testing.T) {
	r := startIAMRun(t, strings.NewReplacer("tables:\n  tags: {env: prod}\n", "", "ttl: {enabled: true}", "ttl: {enabled: false}").Replace(fullIAMConfig))
	ctx := context.Background()
	r.app.Scheduler.RunOnce(ctx)
	var out bytes.Buffer
	preflight.Run(ctx, r.app, &out)
	called := r.calledActions(t)
	for _, a := range []string{"dynamodb:ListTagsOfResource", "dynamodb:Scan"} {
		if _, ok := called[a]; ok {
			t.Errorf("%s called without tag filters and with the TTL sampler off", a)
		}
	}
	if _, ok := called["dynamodb:DescribeTable"]; !ok {
		t.Errorf("the collectors did not run: actions called %v", called)
	}
}

// TestCheckNamesEachRefusedAction refuses, one at a time, each action of
// iam-policy.json (and the role assumption) in the simulated account and
// runs check: it must name exactly that action as missing.
func TestCheckNamesEachRefusedAction(t *testing.T) {
	policy := readIAMPolicy(t)
	actions := []string{"sts:AssumeRole"}
	for _, s := range policy {
		actions = append(actions, s.Actions...)
	}
	r := startIAMRun(t, fullIAMConfig)
	ctx := context.Background()
	for _, action := range actions {
		r.srv.Deny(action)
		app := r.build(t, fullIAMConfig)
		var out bytes.Buffer
		res := preflight.Run(ctx, app, &out)
		r.srv.Allow(action)
		if testing.Verbose() {
			t.Logf("%s refused:\n%s", action, out.String())
		}
		want := []string{"iam/us-east-1: " + action}
		if !slices.Equal(res.Missing, want) || len(res.Failed) != 0 {
			t.Errorf("%s refused: check reports missing %q and failed %q, want missing %q only; output:\n%s", action, res.Missing, res.Failed, want, out.String())
			continue
		}
		if !strings.Contains(out.String(), "MISSING  "+action+" ") || !strings.Contains(out.String(), "preflight FAILED: 1 missing permission(s), 0 other failure(s)") {
			t.Errorf("%s refused: output does not name it:\n%s", action, out.String())
		}
	}
	t.Logf("%d actions refused one at a time, each named by check", len(actions))
}

// build builds an exporter from configYAML against the simulated account,
// with static base credentials and one attempt per call. Each build has
// its own credential cache, so a refused AssumeRole is really asked again.
func (r *iamRun) build(t *testing.T, configYAML string) *exporter.App {
	t.Helper()
	cfg, err := config.Parse([]byte(configYAML))
	if err != nil {
		t.Fatal(err)
	}
	app, err := exporter.Build(context.Background(), cfg, exporter.Options{
		Clock: r.clk, Logger: slog.New(slog.DiscardHandler), TTLSeed: 1,
		TTLPace: func(context.Context, time.Duration) error { return nil },
		AWS: awsclient.Options{
			Credentials: credentials.NewStaticCredentialsProvider("AKIDIAMTEST", "iam-test-secret", ""),
			Endpoints:   config.Endpoints{DynamoDB: r.srv.URL(), CloudWatch: r.srv.URL(), ApplicationAutoScaling: r.srv.URL(), STS: r.srv.URL()},
			MaxAttempts: 1,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return app
}
