package cli

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// parseArgs parses a command line as main does and returns the result.
func parseArgs(t *testing.T, args ...string) (*commandLine, string) {
	t.Helper()
	var c commandLine
	p, err := kong.New(&c, kongOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := p.Parse(args)
	if err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return &c, kctx.Command()
}

// TestWebFlags checks the exporter-toolkit web flags as node_exporter has
// them: --web.listen-address repeatable (and a list in the environment),
// --web.systemd-socket, --web.config.file, on serve (default :9849) and on
// demo (default 127.0.0.1:9849).
func TestWebFlags(t *testing.T) {
	t.Setenv("DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS", "") // restored when the test ends
	os.Unsetenv("DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS")
	c, cmd := parseArgs(t)
	if cmd != "serve" || !reflect.DeepEqual(c.Serve.ListenAddresses, []string{":9849"}) || c.Serve.SystemdSocket {
		t.Errorf("no arguments: command %q, addresses %q, systemd %v; want serve on [:9849] without systemd",
			cmd, c.Serve.ListenAddresses, c.Serve.SystemdSocket)
	}
	c, _ = parseArgs(t, "--web.listen-address", "127.0.0.1:9849", "--web.listen-address=[::1]:9849",
		"--web.config.file", "web.yml", "--web.systemd-socket")
	if want := []string{"127.0.0.1:9849", "[::1]:9849"}; !reflect.DeepEqual(c.Serve.ListenAddresses, want) {
		t.Errorf("repeated --web.listen-address: %q, want %q", c.Serve.ListenAddresses, want)
	}
	if !c.Serve.SystemdSocket || !strings.HasSuffix(c.Serve.ConfigFile, "/web.yml") {
		t.Errorf("--web.systemd-socket %v, --web.config.file %q", c.Serve.SystemdSocket, c.Serve.ConfigFile)
	}
	if c.Serve.GOGC != nil || !c.Serve.AutoMemoryLimit || c.Serve.MemoryLimitRatio != 0.9 {
		t.Errorf("runtime flags by default: gogc %v, auto-gomemlimit %v, ratio %v; want unset, on, 0.9",
			c.Serve.GOGC, c.Serve.AutoMemoryLimit, c.Serve.MemoryLimitRatio)
	}
	c, _ = parseArgs(t, "--runtime.gogc=30", "--no-runtime.auto-gomemlimit")
	if c.Serve.GOGC == nil || *c.Serve.GOGC != 30 || c.Serve.AutoMemoryLimit {
		t.Errorf("--runtime.gogc=30 --no-runtime.auto-gomemlimit: gogc %v, auto-gomemlimit %v", c.Serve.GOGC, c.Serve.AutoMemoryLimit)
	}
	c, _ = parseArgs(t, "demo")
	if !reflect.DeepEqual(c.Demo.ListenAddresses, []string{"127.0.0.1:9849"}) || c.Demo.TelemetryPath != "/metrics" {
		t.Errorf("demo: addresses %q, telemetry path %q; want [127.0.0.1:9849], /metrics", c.Demo.ListenAddresses, c.Demo.TelemetryPath)
	}
	t.Setenv("DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS", "127.0.0.1:9849,[::1]:9849")
	c, _ = parseArgs(t, "serve")
	if want := []string{"127.0.0.1:9849", "[::1]:9849"}; !reflect.DeepEqual(c.Serve.ListenAddresses, want) {
		t.Errorf("addresses from the environment: %q, want %q", c.Serve.ListenAddresses, want)
	}
}

// TestServeOnSeveralListenAddresses serves the exporter through the serve
// command's code path on two listen addresses: both serve the metrics and
// the landing page, and both close when the exporter stops.
func TestServeOnSeveralListenAddresses(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC))
	a := harnesstest.Account(t, harnesstest.Scenario(t, "healthy"), clk)
	cfg, awsOpts := harnesstest.Config(t, a, harness.DemoCollectors), a.AWS()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan []string, 1)
	done := make(chan error, 1)
	logger := slog.New(slog.DiscardHandler)
	go func() {
		done <- serve(ctx, cfg, exporter.Options{Logger: logger, AWS: awsOpts, Clock: clk,
			TTLPace: func(context.Context, time.Duration) error { return nil }},
			webFlags{ListenAddresses: []string{"127.0.0.1:0", "127.0.0.1:0"}, TelemetryPath: "/metrics"}, logger,
			func(a []string) { addrc <- a })
	}()
	var addrs []string
	select {
	case addrs = <-addrc:
	case err := <-done:
		t.Fatalf("serve stopped early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start listening")
	}
	if len(addrs) != 2 || addrs[0] == addrs[1] {
		t.Fatalf("listening on %q, want two distinct addresses", addrs)
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, addr := range addrs {
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body := get("http://" + addr + "/metrics")
			if code == http.StatusOK && strings.Contains(body, "\ndynamodb_table_info{") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s/metrics: HTTP %d without dynamodb_table_info:\n%.2000s", addr, code, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		code, body := get("http://" + addr + "/")
		if code != http.StatusOK || !strings.Contains(body, "DynamoDB Exporter") || !strings.Contains(body, `href="/metrics"`) {
			t.Errorf("%s landing page: HTTP %d:\n%.2000s", addr, code, body)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v on shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	for _, addr := range addrs {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after the exporter stopped", addr)
		}
	}
}

// TestListenErrors checks the errors of the web flags: an address that
// cannot be bound is named (and the addresses opened before it are closed
// again), no address at all is refused, and --web.systemd-socket outside a
// socket unit says what is missing.
func TestListenErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	_, err = webFlags{ListenAddresses: []string{freeAddr, taken.Addr().String()}}.listen()
	if err == nil || !strings.Contains(err.Error(), `--web.listen-address "`+taken.Addr().String()+`"`) {
		t.Errorf("a taken address: error %v, want it named", err)
	}
	// The first address was opened, then closed again on the error.
	l, err := net.Listen("tcp", freeAddr)
	if err != nil {
		t.Errorf("%s, opened before the failing address, was not closed: %v", freeAddr, err)
	} else {
		l.Close()
	}

	if _, err := (webFlags{}).listen(); err == nil || !strings.Contains(err.Error(), "--web.listen-address: no address") {
		t.Errorf("no address: error %v", err)
	}

	t.Setenv("LISTEN_PID", "")
	t.Setenv("LISTEN_FDS", "")
	_, err = webFlags{SystemdSocket: true, ListenAddresses: []string{"127.0.0.1:0"}}.listen()
	if err == nil || !strings.Contains(err.Error(), "--web.systemd-socket: systemd passed no listening socket") {
		t.Errorf("--web.systemd-socket without sockets: error %v", err)
	}
}

// TestShardFlag: --shard overrides the config file's shard, and a bad value
// is refused naming the flag and the value.
func TestShardFlag(t *testing.T) {
	f := configFlags{Shard: "2/5"}
	cfg, err := f.load()
	if err != nil || cfg.Shard != (config.Shard{Index: 2, Count: 5}) {
		t.Fatalf("--shard 2/5: %+v, %v", cfg, err)
	}
	_, err = configFlags{Shard: "5/5"}.load()
	if err == nil || !strings.Contains(err.Error(), `--shard: "5/5": the shard index must be between 0 and 4`) {
		t.Fatalf("--shard 5/5: error %v", err)
	}
}
