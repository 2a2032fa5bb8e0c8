package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// nonroot is the uid and gid of the image's user (distroless's nonroot,
// USER 65532:65532 in the Dockerfile, runAsUser in the chart).
const nonroot = 65532

// TestRunsAsNonRootWithoutWritableFilesystem runs the built binary the way
// the image runs it: as uid/gid 65532 with no supplementary group and no
// capability, HOME unset, its working directory and TMPDIR a directory it
// cannot write. `serve` (the chart's command, against a simulated endpoint,
// its configuration file in that directory) and `demo` (the Compose
// stack's) must serve /metrics, write no file anywhere, log no refused
// write, run as 65532 without capabilities, and exit 0 within
// shutdownBound of SIGTERM. A last run puts the demo in a mount namespace
// where every mount is read-only (the image's read-only root filesystem),
// when util-linux's unshare and setpriv are there to build it.
func TestRunsAsNonRootWithoutWritableFilesystem(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the binary as uid 65532")
	}
	// The binary must be readable by 65532: t.TempDir is 0700.
	bin := filepath.Join(publicDir(t), "dynamodb_exporter")
	b, err := os.ReadFile(buildExporter(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}

	sim := awssim.NewFixture(clock.Real{})
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	serveConfig := fmt.Sprintf(`accounts:
  - name: nonroot
    regions: [us-east-1]
collectors:
  discovery: {interval: 10s}
  tables: {interval: 10s}
aws:
  endpoints: {dynamodb: %[1]q, cloudwatch: %[1]q, application_autoscaling: %[1]q, sts: %[1]q}
`, sim.URL())

	t.Run("serve", func(t *testing.T) {
		dir := readOnlyDir(t, map[string]string{"config.yml": serveConfig})
		runNonRoot(t, dir, nil, bin, []string{"serve", "--config=config.yml", "--runtime.gogc=30"},
			[]string{"AWS_ACCESS_KEY_ID=AKIDNONROOT", "AWS_SECRET_ACCESS_KEY=nonroot-secret", "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"})
	})
	t.Run("demo", func(t *testing.T) {
		runNonRoot(t, readOnlyDir(t, nil), nil, bin, []string{"demo"}, nil)
	})
	t.Run("demo with every mount read-only", func(t *testing.T) {
		unshare, err1 := exec.LookPath("unshare")
		setpriv, err2 := exec.LookPath("setpriv")
		if err := errors.Join(err1, err2); err != nil {
			t.Skipf("no unshare or setpriv (util-linux) to build a read-only mount namespace: %v", err)
		}
		// unshare makes a private mount namespace and execs sh, which
		// remounts every mount read-only, fails unless none is left
		// writable, then execs setpriv, which drops to 65532 and execs
		// the exporter: one process, one pid throughout.
		script := `for m in $(cut -d' ' -f5 /proc/self/mountinfo | sort -u); do mount -o remount,bind,ro "$m" 2>/dev/null; done
touch /.nonroot-probe 2>/dev/null && { echo "the root filesystem is still writable"; exit 97; }
exec "$@"`
		wrap := []string{unshare, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh",
			setpriv, fmt.Sprintf("--reuid=%d", nonroot), fmt.Sprintf("--regid=%d", nonroot), "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"}
		probe := exec.Command(wrap[0], append(wrap[1:], "/bin/true")...)
		if out, err := probe.CombinedOutput(); err != nil {
			t.Skipf("cannot build a read-only mount namespace here: %v\n%s", err, out)
		}
		runNonRoot(t, readOnlyDir(t, nil), wrap, bin, []string{"demo"}, nil)
	})
}

// runNonRoot runs bin with args as 65532 in dir (also its TMPDIR), HOME
// unset, directly or through wrap (a command that drops to 65532 itself),
// and checks what TestRunsAsNonRootWithoutWritableFilesystem promises.
func runNonRoot(t *testing.T, dir string, wrap []string, bin string, args, env []string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args = append(args, "--web.listen-address="+addr)
	argv := append(append(wrap, bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "TMPDIR=" + dir}, env...)
	if wrap == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nonroot, Gid: nonroot, Groups: []uint32{}}}
	}
	var out testtools.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// File times come from a coarser clock than time.Now: allow for it.
	started := time.Now().Add(-time.Second)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	// /metrics serves tables read from the (simulated) account.
	client := &http.Client{Timeout: 5 * time.Second}
	var body string
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(body, "\ndynamodb_table_info{") {
		select {
		case err := <-exited:
			t.Fatalf("exited: %v\n%s", err, out.String())
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dynamodb_table_info on /metrics within 90s\n%s", out.String())
		}
		if resp, err := client.Get("http://" + addr + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
		}
	}

	// serve's --runtime.gogc reaches the runtime (package gcsettings).
	if args[0] == "serve" && !strings.Contains(body, "\ngo_gc_gogc_percent 30\n") {
		t.Errorf("serve --runtime.gogc=30: /metrics lacks go_gc_gogc_percent 30:\n%.3000s", body)
	}

	// It runs as 65532 with no capability and no group but its own.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("\t%d\t%d\t%d\t%d\n", nonroot, nonroot, nonroot, nonroot)
	for _, want := range []string{"\nUid:" + id, "\nGid:" + id, "\nCapEff:\t0000000000000000\n", "\nCapPrm:\t0000000000000000\n"} {
		if !strings.Contains(string(status), want) {
			t.Errorf("/proc/<pid>/status lacks %q:\n%s", strings.TrimSpace(want), status)
		}
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if groups, ok := strings.CutPrefix(line, "Groups:"); ok {
			for _, g := range strings.Fields(groups) {
				if g != fmt.Sprint(nonroot) {
					t.Errorf("supplementary group %s: want none but %d", g, nonroot)
				}
			}
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v (want status 0)\n%s", err, out.String())
		}
		t.Logf("served /metrics as uid %d, exited %v after SIGTERM", nonroot, time.Since(sent).Round(time.Millisecond))
	case <-time.After(shutdownBound):
		t.Fatalf("still running %v after SIGTERM\n%s", shutdownBound, out.String())
	}

	// Nothing written: no refused write in the log, the working directory
	// as it was, and no file of 65532's in the world-writable directories
	// (where a write would have succeeded).
	for _, refused := range []string{"permission denied", "read-only file system"} {
		if strings.Contains(strings.ToLower(out.String()), refused) {
			t.Errorf("the log shows a refused write (%q):\n%s", refused, out.String())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "config.yml" {
			t.Errorf("%s appeared in the working directory", e.Name())
		}
	}
	roots := []string{"/tmp", "/var/tmp", "/dev/shm"}
	if !slices.Contains(roots, os.TempDir()) {
		roots = append(roots, os.TempDir())
	}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == nonroot && !info.ModTime().Before(started) {
				t.Errorf("the exporter wrote %s", path)
			}
			return nil
		})
	}
}

// publicDir returns a new directory every user can read and enter.
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dynamodb-exporter-nonroot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readOnlyDir returns a directory owned by root that 65532 can read and
// enter but not write, holding files (readable by all).
func readOnlyDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := publicDir(t)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	return dir
}
