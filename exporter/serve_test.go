package exporter_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

func TestAssumedRoleIsUsedForEveryCall(t *testing.T) {
	h := newHarness(t, `
accounts:
  - name: staging
    role_arn: arn:aws:iam::210987654321:role/dynamodb-exporter
    external_id: monitoring
    regions: [us-east-1]
`, func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
	})
	h.cycle()
	var assumed, other int
	for _, r := range h.sim.Requests() {
		switch {
		case r.Service == awssim.ServiceSTS:
		case strings.Contains(r.Principal, ":assumed-role/dynamodb-exporter/"):
			assumed++
		default:
			other++
			t.Errorf("%s %s came in as %q, not as the assumed role", r.Service, r.Operation, r.Principal)
		}
	}
	if assumed == 0 || other != 0 {
		t.Errorf("calls as assumed role = %d, others = %d", assumed, other)
	}
	if n := h.sim.RequestCount(awssim.ServiceSTS, "AssumeRole"); n != 1 {
		t.Errorf("AssumeRole calls = %d, want 1 (credentials are cached)", n)
	}
	body := h.scrape()
	if v := mustValue(t, body, "dynamodb_exporter_tables", map[string]string{"account": "staging"}); v != 1 {
		t.Errorf("tables = %v", v)
	}
}

func TestServeWithBasicAuthWebConfig(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
	})
	h.cycle()
	// bcrypt hash of "s3cret" (cost 10).
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  prometheus: $2a$10$RlkfsoJRwdY3Wwzn0.mAAuQDED/HJWqfC06gSxwXXT4TL2LI6jTw.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	handler, err := h.app.Handler("/metrics", discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.Serve(ctx, l, handler, webCfg, discardLogger()) }()
	url := "http://" + l.Addr().String() + "/metrics"
	get := func(user, pass string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		var resp *http.Response
		for i := 0; i < 50; i++ {
			if resp, err = http.DefaultClient.Do(req); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("", ""); code != http.StatusUnauthorized {
		t.Errorf("no credentials: status %d, want 401", code)
	}
	if code, _ := get("prometheus", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401", code)
	}
	code, body := get("prometheus", "s3cret")
	if code != http.StatusOK || !strings.Contains(body, "dynamodb_table_info{") {
		t.Errorf("good credentials: status %d, body has table_info: %v", code, strings.Contains(body, "dynamodb_table_info{"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve returned %v", err)
	}
}
