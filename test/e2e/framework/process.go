/*
Copyright 2026 The csi-resizer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package framework runs the real components of the end-to-end suite and of
// `make demo`: etcd, kube-apiserver, the CSI mock driver and the resizer,
// each as its own process on loopback, and helpers to drive them.
package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/csi-resizer/csi-resizer/internal/freeport"
)

// Process is a child process whose output goes to a log file.
type Process struct {
	Name string
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// StartProcess starts bin with args; its stdout and stderr go to log.
func StartProcess(name, log, bin string, args ...string) (*Process, error) {
	return StartProcessIn("", name, log, bin, args...)
}

// StartProcessIn is StartProcess with workDir as the working directory
// ("" is the test's).
func StartProcessIn(workDir, name, log, bin string, args ...string) (*Process, error) {
	return StartProcessAs(nil, workDir, name, log, bin, args...)
}

// StartProcessAs is StartProcessIn with the process running as user (nil is
// the test's own user).
func StartProcessAs(user *syscall.Credential, workDir, name, log, bin string, args ...string) (*Process, error) {
	out, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = workDir
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group: a signal to the test runner does not reach it,
	// and Kill takes the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: user}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &Process{Name: name, Log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process ends.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is the exit code once the process ended (-1 when killed by a
// signal or still running).
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Kill sends SIGKILL and waits for the end.
func (p *Process) Kill() {
	if p.Exited() {
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM and waits up to grace before killing.
func (p *Process) Stop(grace time.Duration) error {
	if p.Exited() {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		p.Kill()
		return fmt.Errorf("%s did not stop within %s after SIGTERM", p.Name, grace)
	}
}

// Wait waits for the end of the process or of ctx.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		var exit *exec.ExitError
		if errors.As(p.err, &exit) {
			return fmt.Errorf("%s exited with code %d", p.Name, exit.ExitCode())
		}
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FreePort returns a loopback TCP port for a server to bind later, which
// no other process takes meanwhile (see internal/freeport).
func FreePort() (int, error) {
	return freeport.Get()
}

// FreePorts returns n distinct ports as FreePort does.
func FreePorts(n int) ([]int, error) {
	return freeport.GetN(n)
}
