package testtools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StartTimeout is how long StartDynamoDBLocal, StartDynalite and
// StartAlertmanager wait for the server to answer. DynamoDB Local (a JVM)
// takes a few seconds on a busy 2-core machine.
const StartTimeout = 60 * time.Second

// startTimeout is StartTimeout, shortened by tests of the wait itself.
var startTimeout = StartTimeout

// stopTimeout is how long a stopped server gets to exit after SIGTERM before
// it is sent SIGKILL.
const stopTimeout = 5 * time.Second

// outputTail is how many bytes of a server's output are kept for messages.
const outputTail = 8 << 10

// errPortTaken reports that a server could not bind its port, which another
// process took between our choosing it and the server binding it.
var errPortTaken = errors.New("port already in use")

// StartDynamoDBLocal starts AWS DynamoDB Local, in memory, on a free port and
// returns its endpoint, http://127.0.0.1:PORT, once it answers ListTables.
// The server is stopped (its whole process group killed) when the test ends.
// The test is skipped (failed when CI=true) when the jar or java is missing.
func StartDynamoDBLocal(t testing.TB) string {
	t.Helper()
	return startDynamoDBLocal(t).endpoint
}

// StartDynalite starts dynalite, in memory, on a free port of 127.0.0.1 and
// returns its endpoint, http://127.0.0.1:PORT, once it answers ListTables.
// The server is stopped when the test ends. The test is skipped (failed when
// CI=true) when dynalite or node is missing.
func StartDynalite(t testing.TB) string {
	t.Helper()
	return startDynalite(t).endpoint
}

// StartAlertmanager starts Prometheus's alertmanager with the configuration
// file config, without clustering and with its data in a temporary
// directory, on a free port of 127.0.0.1, and returns its endpoint,
// http://127.0.0.1:PORT, once /-/ready answers 200. The server is stopped
// when the test ends. The test is skipped (failed when CI=true) when
// alertmanager is missing.
func StartAlertmanager(t testing.TB, config string) string {
	t.Helper()
	bin := binary(t, "alertmanager")
	if bin == "" {
		return ""
	}
	config, err := filepath.Abs(config)
	if err != nil {
		t.Fatalf("alertmanager configuration: %v", err)
	}
	dir := t.TempDir()
	srv := startServer(t, serverSpec{
		name: "alertmanager",
		dir:  dir,
		args: func(port int) []string {
			return []string{bin, "--config.file=" + config, "--storage.path=" + dir,
				"--web.listen-address=127.0.0.1:" + strconv.Itoa(port), "--cluster.listen-address="}
		},
		ready: httpReady("/-/ready"),
	})
	if srv == nil { // startServer failed the test
		return ""
	}
	return srv.endpoint
}

// StartPrometheus starts prometheus with the configuration file config and
// its TSDB in dataDir (blocks already there are served), on a free port of
// 127.0.0.1, and returns its endpoint, http://127.0.0.1:PORT, once /-/ready
// answers 200, and a function that stops it (SIGTERM, then SIGKILL) and
// returns once it exited. The server is also stopped when the test ends.
// The test is skipped (failed when CI=true) when prometheus is missing.
func StartPrometheus(t testing.TB, config, dataDir string) (endpoint string, stop func()) {
	t.Helper()
	bin := binary(t, "prometheus")
	if bin == "" {
		return "", func() {}
	}
	config, err := filepath.Abs(config)
	if err != nil {
		t.Fatalf("prometheus configuration: %v", err)
	}
	srv := startServer(t, serverSpec{
		name: "prometheus",
		dir:  dataDir,
		args: func(port int) []string {
			return []string{bin, "--config.file=" + config, "--storage.tsdb.path=" + dataDir,
				"--storage.tsdb.retention.time=30d", "--web.listen-address=127.0.0.1:" + strconv.Itoa(port)}
		},
		ready: httpReady("/-/ready"),
	})
	if srv == nil { // startServer failed the test
		return "", func() {}
	}
	return srv.endpoint, srv.stop
}

func startDynamoDBLocal(t testing.TB) *server {
	t.Helper()
	jar, ok := findInTools(filepath.Join("dynamodb-local", "DynamoDBLocal.jar"))
	if !ok {
		missing(t, "DynamoDB Local (dynamodb-local/DynamoDBLocal.jar) not found",
			"run "+installScript+" dynamodb-local")
		return nil
	}
	java, err := exec.LookPath("java")
	if err != nil {
		missing(t, "java not found (needed by DynamoDB Local)",
			"install a Java 17+ runtime, e.g. apt-get install openjdk-17-jre-headless")
		return nil
	}
	dir := filepath.Dir(jar)
	return startServer(t, serverSpec{
		name: "DynamoDB Local",
		dir:  dir,
		// DynamoDB Local has no option to listen on one address only; it
		// binds all interfaces.
		allInterfaces: true,
		args: func(port int) []string {
			return []string{
				java,
				"-Djava.library.path=" + filepath.Join(dir, "DynamoDBLocal_lib"),
				"-jar", jar,
				"-inMemory",
				"-disableTelemetry",
				"-port", strconv.Itoa(port),
			}
		},
	})
}

func startDynalite(t testing.TB) *server {
	t.Helper()
	bin, ok := findInTools(filepath.Join("node", "node_modules", ".bin", "dynalite"))
	if !ok {
		missing(t, "dynalite not found", "run "+installScript+" dynalite")
		return nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node not found (needed by dynalite)", "install Node.js 20 or later")
		return nil
	}
	return startServer(t, serverSpec{
		name: "dynalite",
		dir:  filepath.Dir(bin),
		args: func(port int) []string {
			return []string{bin, "--host", "127.0.0.1", "--port", strconv.Itoa(port)}
		},
	})
}

// serverSpec describes how to run one kind of server.
type serverSpec struct {
	name          string
	dir           string
	allInterfaces bool                    // the server binds every interface, not 127.0.0.1
	args          func(port int) []string // the command line for a port
	// ready returns nil once the server at endpoint answers; nil means
	// pingListTables (the DynamoDB servers).
	ready func(endpoint string) error
}

// server is a started server process.
type server struct {
	endpoint string
	pid      int
	// stop stops the server and waits for it to exit; it is also a cleanup
	// of the test, and does nothing the second time.
	stop func()
}

// startServer starts spec on a free port and waits until it answers. A port
// that another process takes in the meantime is retried with a new one.
func startServer(t testing.TB, spec serverSpec) *server {
	t.Helper()
	const attempts = 3
	var err error
	for range attempts {
		var srv *server
		srv, err = tryStartServer(t, spec)
		if err == nil {
			return srv
		}
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	t.Fatalf("starting %s: %v", spec.name, err)
	return nil
}

func tryStartServer(t testing.TB, spec serverSpec) (*server, error) {
	t.Helper()
	port, err := freePort(spec.allInterfaces)
	if err != nil {
		return nil, err
	}
	args := spec.args(port)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = spec.dir
	out := &tailBuffer{max: outputTail}
	cmd.Stdout = out
	cmd.Stderr = out
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running %s: %w", args[0], err)
	}

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()

	var once sync.Once
	stopping := false
	stop := func() {
		once.Do(func() {
			select {
			case <-exited:
				if !stopping {
					t.Logf("%s had already exited before cleanup (%v); output tail:\n%s",
						spec.name, waitErr, out.String())
				}
				return
			default:
			}
			stopping = true
			_ = signalGroup(cmd.Process, syscall.SIGTERM)
			select {
			case <-exited:
				return
			case <-time.After(stopTimeout):
			}
			_ = signalGroup(cmd.Process, syscall.SIGKILL)
			select {
			case <-exited:
			case <-time.After(stopTimeout):
				t.Errorf("%s (pid %d) did not exit after SIGKILL", spec.name, cmd.Process.Pid)
			}
		})
	}
	t.Cleanup(stop)

	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	ready := spec.ready
	if ready == nil {
		ready = pingListTables
	}
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			stopping = true // exit already reported here
			stop()
			tail := out.String()
			err := fmt.Errorf("%s exited before answering (%v); output tail:\n%s", spec.name, waitErr, tail)
			if portTakenMessage(tail) {
				err = fmt.Errorf("%w: %w", errPortTaken, err)
			}
			return nil, err
		default:
		}
		pingErr := ready(endpoint)
		if pingErr == nil {
			return &server{endpoint: endpoint, pid: cmd.Process.Pid, stop: stop}, nil
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("%s did not answer at %s within %s (last error: %w); output tail:\n%s",
				spec.name, endpoint, startTimeout, pingErr, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// portTakenMessage reports whether server output says its port was taken.
func portTakenMessage(output string) bool {
	// Java and Node say "Address already in use", Go "bind: address already in use".
	for _, s := range []string{"Address already in use", "address already in use", "EADDRINUSE", "BindException"} {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}

// freePort returns a TCP port that is free on 127.0.0.1, or on every
// interface when allInterfaces is set.
func freePort(allInterfaces bool) (int, error) {
	addr := "127.0.0.1:0"
	if allInterfaces {
		addr = ":0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// pingListTables sends one ListTables request to a DynamoDB endpoint and
// returns nil when it answers with a table list. The request carries a
// well-formed but unsigned Authorization header: local servers check its
// shape, not its signature.
func pingListTables(endpoint string) error {
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader("{}"))
	if err != nil {
		return fmt.Errorf("building ListTables request: %w", err)
	}
	now := time.Now().UTC()
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("X-Amz-Date", now.Format("20060102T150405Z"))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/"+now.Format("20060102")+
		"/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="+
		strings.Repeat("0", 64))
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("ListTables: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return fmt.Errorf("reading ListTables response: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("TableNames")) {
		return fmt.Errorf("ListTables: HTTP %d: %s", resp.StatusCode, body)
	}
	return nil
}

// tailBuffer is an io.Writer, safe for concurrent use, that keeps the last
// max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write appends p, dropping the oldest bytes beyond the limit.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept output, or a note when there is none.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		return "(no output)"
	}
	return string(b.buf)
}
