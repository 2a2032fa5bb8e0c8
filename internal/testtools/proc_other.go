//go:build !unix

package testtools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup does nothing where process groups are not supported.
func setProcessGroup(*exec.Cmd) {}

// signalGroup kills p; without process groups it cannot reach p's children.
func signalGroup(p *os.Process, _ syscall.Signal) error {
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing process %d: %w", p.Pid, err)
	}
	return nil
}

// processGroupAlive reports whether process pid still exists.
func processGroupAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}
