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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/internal/freeport"
)

// Process is a child process whose output goes to a log file.
type Process struct {
	Name string
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startProcess starts bin with args in workDir ("" is the test's) as user
// (nil is the test's own); its stdout and stderr go to log.
func startProcess(user *syscall.Credential, workDir, name, log, bin string, args ...string) (*Process, error) {
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
		_ = cmd.Wait()
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
	if !p.Exited() {
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
	}
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

// waitFor polls cond every interval for up to timeout, and fails at once
// when p (unless nil) has exited.
func waitFor(ctx context.Context, interval, timeout time.Duration, p *Process, cond func(context.Context) bool) error {
	return wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		if p != nil && p.Exited() {
			return false, fmt.Errorf("%s exited; see %s", p.Name, p.Log)
		}
		return cond(ctx), nil
	})
}

// waitForObject polls get every 100ms for up to timeout until cond holds
// for the object it returns, and returns the last one it got.
func waitForObject[T any](ctx context.Context, timeout time.Duration, get func(context.Context) (*T, error), cond func(*T) bool) (last *T, err error) {
	err = waitFor(ctx, 100*time.Millisecond, timeout, nil, func(ctx context.Context) bool {
		o, err := get(ctx)
		if err == nil {
			last = o
		}
		return err == nil && cond(o)
	})
	return last, err
}

// FreePort returns a loopback TCP port for a server to bind later, which
// no other process takes meanwhile (see internal/freeport).
func FreePort() (int, error) { return freeport.Get() }

// FreePorts returns n distinct ports as FreePort does: two calls of
// FreePort may return one port twice.
func FreePorts(n int) ([]int, error) { return freeport.GetN(n) }

// StartResizer runs the resizer binary as a process, as the image's user
// (tools.ResizerUser): name labels its log file in dir, and args follow the
// driver socket and kubeconfig.
func StartResizer(tools Tools, dir, name, kubeconfig, socket string, args ...string) (*Process, error) {
	all := append([]string{"--csi-address=" + socket, "--kubeconfig=" + kubeconfig}, args...)
	p, err := startProcess(tools.ResizerUser, "", name, filepath.Join(dir, name+".log"), tools.Resizer, all...)
	if err != nil {
		return nil, fmt.Errorf("start resizer: %w", err)
	}
	return p, nil
}

// StartNodeResizer starts the resizer as StartResizer does, as the instance
// of a --node-deployment on node: NODE_NAME=node (options.NodeNameEnv) in
// its environment, as a DaemonSet's pod sets it from spec.nodeName (the flag
// itself is one of args). env(1) sets it and execs the resizer, so the
// Process's pid is the resizer's.
func StartNodeResizer(tools Tools, dir, name, node, kubeconfig, socket string, args ...string) (*Process, error) {
	all := append([]string{"NODE_NAME=" + node, tools.Resizer, "--csi-address=" + socket, "--kubeconfig=" + kubeconfig}, args...)
	p, err := startProcess(nil, "", name, filepath.Join(dir, name+".log"), "env", all...)
	if err != nil {
		return nil, fmt.Errorf("start resizer of node %s: %w", node, err)
	}
	return p, nil
}

// Parallel runs do(i) for i in [0, n) on the given number of goroutines and
// returns the first error; the others stop taking work after it. progress,
// when set, is called after each success with the number done so far.
func Parallel(ctx context.Context, n, goroutines int, do func(ctx context.Context, i int) error, progress func(done int)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range max(1, goroutines) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
					return
				}
				if d := done.Add(1); progress != nil {
					progress(int(d))
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}
