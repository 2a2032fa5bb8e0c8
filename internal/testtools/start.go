package testtools

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// Program describes a server program that Start runs on a free port of
// 127.0.0.1.
type Program struct {
	// Name names the program in messages.
	Name string
	// Dir is the working directory; empty means a temporary directory.
	Dir string
	// Args returns the command line (program first) that makes the program
	// listen on 127.0.0.1:port.
	Args func(port int) []string
	// ReadyPath is the path that answers 200 once the program is ready,
	// such as "/-/ready" or "/metrics".
	ReadyPath string
}

// Start runs p on a free port of 127.0.0.1 in its own process group and
// returns its endpoint, http://127.0.0.1:PORT, once ReadyPath answers 200
// (within StartTimeout). A port another process takes in the meantime is
// retried with a new one. The whole process group is stopped (SIGTERM, then
// SIGKILL) when the test ends, also when it fails; a program that exits
// early fails the test with its output tail.
func Start(t testing.TB, p Program) string {
	t.Helper()
	dir := p.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	srv := startServer(t, serverSpec{
		name:  p.Name,
		dir:   dir,
		args:  p.Args,
		ready: httpReady(p.ReadyPath),
	})
	if srv == nil { // startServer failed the test
		return ""
	}
	return srv.endpoint
}

// httpReady returns a readiness check that GETs path and wants HTTP 200.
func httpReady(path string) func(endpoint string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	return func(endpoint string) error {
		resp, err := client.Get(endpoint + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
		return nil
	}
}
