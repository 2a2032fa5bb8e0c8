package testtools

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// CommandTimeout bounds how long RunCommand lets a command run: a hung
// tool, not a slow machine (promtool test rules on the larger unit-test
// files takes about a minute of CPU, several on two busy cores).
const CommandTimeout = 8 * time.Minute

// CommandResult is what a command run by RunCommand printed and how it ended.
type CommandResult struct {
	Stdout   string
	Stderr   string
	ExitCode int
}

// RunCommand runs name with args, feeding it stdin (which may be empty), and
// returns its output and exit code. A non-zero exit is not a failure: check
// ExitCode. The test fails when the command cannot be started or runs longer
// than CommandTimeout (it and its children are then killed).
func RunCommand(t testing.TB, stdin, name string, args ...string) CommandResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd.Process, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second

	err := cmd.Run()
	res := CommandResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: killed after %s\nstdout:\n%s\nstderr:\n%s",
			name, strings.Join(args, " "), CommandTimeout, res.Stdout, res.Stderr)
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", name, err)
	}
	return res
}
