package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestDemoPrintsWorkingCommands runs the built binary's demo and then every
// command it prints for the CLI's AWS tools (check, capacity report, ttl
// audit), exactly as printed, in a shell with no AWS settings of its own:
// each must succeed and say what it is for.
func TestDemoPrintsWorkingCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the demo")
	}
	bin := buildExporter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	demo := exec.CommandContext(ctx, bin, "demo", "--web.listen-address", "127.0.0.1:0", "--log.level", "error")
	demo.Env = cleanEnv()
	stdout, err := demo.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	demo.Stderr = os.Stderr
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = demo.Process.Signal(os.Interrupt)
		_ = demo.Wait()
	}()

	// The commands are the indented lines after the line that introduces
	// them; the demo prints nothing more once it serves.
	var commands []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		t.Log(line)
		if cmd, ok := strings.CutPrefix(line, "  "); ok {
			commands = append(commands, cmd)
			if strings.Contains(cmd, " ttl audit ") {
				break
			}
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if len(commands) != 4 || !strings.HasPrefix(commands[0], "export AWS_ENDPOINT_URL=http://127.0.0.1:") {
		t.Fatalf("the demo printed %d commands, want the export and 3 tools: %q", len(commands), commands)
	}
	for _, c := range []struct{ tool, want string }{
		{" check", "preflight passed"},
		{" capacity report", "RECOMMENDATION"},
		{" ttl audit ", "expired, not yet deleted"},
	} {
		var cmd string
		for _, printed := range commands[1:] {
			if strings.Contains(printed, c.tool) {
				cmd = printed
			}
		}
		if !strings.HasPrefix(cmd, bin+" ") {
			t.Errorf("no %q command run as %s in %q", c.tool, bin, commands)
			continue
		}
		sh := exec.CommandContext(ctx, "sh", "-c", commands[0]+"\n"+cmd)
		sh.Env = cleanEnv()
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", cmd, err, out)
			continue
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s: output lacks %q:\n%s", cmd, c.want, out)
		}
	}
}

// cleanEnv is the environment of a newcomer's shell: PATH and HOME, no AWS
// setting, and no instance metadata to wait for.
func cleanEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "AWS_EC2_METADATA_DISABLED=true"}
}
