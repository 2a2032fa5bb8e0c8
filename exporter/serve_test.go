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
	go func() { done <- exporter.ServeAll(ctx, []net.Listener{l}, handler, webCfg, discardLogger()) }()
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

// TestServeAllAuthenticatesEveryListenerAndStopsTogether serves one handler
// on two listeners with a basic-auth web configuration: each refuses a
// request without credentials and serves one with them (each listener has
// its own server, so the toolkit's authenticating handler is installed
// once per listener). A web configuration file that does not load stops
// both listeners with its error, rather than serving half the addresses.
func TestServeAllAuthenticatesEveryListenerAndStopsTogether(t *testing.T) {
	dir := t.TempDir()
	webCfg := filepath.Join(dir, "web.yml")
	// bcrypt hash of "s3cret" (cost 10).
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  prometheus: $2a$10$RlkfsoJRwdY3Wwzn0.mAAuQDED/HJWqfC06gSxwXXT4TL2LI6jTw.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "served\n") })
	listen := func() []net.Listener {
		var ls []net.Listener
		for range 2 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		return ls
	}
	ls := listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.ServeAll(ctx, ls, handler, webCfg, discardLogger()) }()
	for _, l := range ls {
		url := "http://" + l.Addr().String() + "/"
		for _, tc := range []struct {
			user, pass string
			want       int
		}{{"", "", http.StatusUnauthorized}, {"prometheus", "s3cret", http.StatusOK}} {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			var resp *http.Response
			var err error
			for range 50 {
				if resp, err = http.DefaultClient.Do(req); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s as %q: HTTP %d, want %d", url, tc.user, resp.StatusCode, tc.want)
			}
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeAll returned %v on shutdown", err)
	}

	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("tls_server_config: {cert_file: missing.pem}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ls = listen()
	errc := make(chan error, 1)
	go func() { errc <- exporter.ServeAll(context.Background(), ls, handler, bad, discardLogger()) }()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("ServeAll with a web configuration that does not load returned nil")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeAll kept serving with a web configuration that does not load")
	}
	for _, l := range ls {
		if conn, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after ServeAll failed", l.Addr())
		}
	}
}
