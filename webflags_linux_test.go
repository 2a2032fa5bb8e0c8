package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

// TestSystemdSocketActivation runs the binary as systemd runs a service
// behind a .socket unit: the listening socket is inherited as file
// descriptor 3, with LISTEN_FDS=1 and LISTEN_PID set to the service's pid
// (sd_listen_fds(3)). With --web.systemd-socket the exporter serves its
// metrics and landing page on that socket, and not on its listen address.
func TestSystemdSocketActivation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildExporter(t)
	socket, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := socket.Addr().String()
	f, err := socket.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	socket.Close() // f is a duplicate: the socket stays open for the child
	defer f.Close()
	// A free address for --web.listen-address, which the flag must override.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	otherAddr := other.Addr().String()
	other.Close()

	// sh sets LISTEN_PID to its own pid, which exec hands to the exporter.
	cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`, bin, "demo",
		"--scenario", "healthy", "--log.level", "info", "--web.systemd-socket", "--web.listen-address", otherAddr)
	cmd.ExtraFiles = []*os.File{f} // descriptor 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out testtools.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})

	client := &http.Client{Timeout: 2 * time.Second}
	get := func(path string) (int, string, error) {
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body, err := get("/metrics")
		if err == nil && code == http.StatusOK && strings.Contains(body, "\ndynamodb_exporter_build_info{") {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the exporter exited (%v):\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics on the activated socket %s (last: HTTP %d, %v):\n%s", addr, code, err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body, err := get("/"); err != nil || code != http.StatusOK || !strings.Contains(body, "DynamoDB Exporter") {
		t.Errorf("landing page on the activated socket: HTTP %d, %v:\n%.1000s", code, err, body)
	}
	if conn, err := net.DialTimeout("tcp", otherAddr, time.Second); err == nil {
		conn.Close()
		t.Errorf("the exporter listens on --web.listen-address %s despite --web.systemd-socket", otherAddr)
	}
	if !strings.Contains(out.String(), "addresses="+addr) {
		t.Errorf("the log does not name the activated socket's address %s:\n%s", addr, out.String())
	}
}
