//go:build e2e

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

package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// demoProcess is this test binary run as the demo, from the repository's
// root as make runs it (it reads deploy/kubernetes/rbac.yaml).
type demoProcess struct {
	t    *testing.T
	cmd  *exec.Cmd
	done chan struct{}
	err  error // of the process, once done

	mu     sync.Mutex
	stdout []string
	stderr bytes.Buffer
}

// startDemo starts the demo with args; it is killed when the test ends,
// if it still runs.
func startDemo(t *testing.T, args ...string) *demoProcess {
	t.Helper()
	exe, err := os.Executable()
	must(t, err)
	d := &demoProcess{t: t, done: make(chan struct{})}
	d.cmd = exec.Command(exe, args...)
	d.cmd.Dir = filepath.Join("..", "..")
	d.cmd.Env = append(os.Environ(), runDemo+"=1")
	d.cmd.Stderr = lockedWriter{d}
	stdout, err := d.cmd.StdoutPipe()
	must(t, err)
	must(t, d.cmd.Start())
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			d.mu.Lock()
			d.stdout = append(d.stdout, s.Text())
			d.mu.Unlock()
		}
		d.err = d.cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			_ = d.cmd.Process.Kill()
			<-d.done
		}
		t.Logf("the demo's output:\n%s", d.output())
	})
	return d
}

// lockedWriter appends to the demo's stderr.
type lockedWriter struct{ d *demoProcess }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return w.d.stderr.Write(p)
}

// output is what the demo printed so far, stdout then stderr.
func (d *demoProcess) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.stdout, "\n") + "\n" + d.stderr.String()
}

// waitFor waits until the demo prints a line with label, and returns what
// follows the label.
func (d *demoProcess) waitFor(ctx context.Context, label string) string {
	d.t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if value, ok := d.find(label); ok {
			return value
		}
		select {
		case <-ctx.Done():
			d.t.Fatalf("the demo printed no %q: %v", label, ctx.Err())
		case <-d.done:
			if value, ok := d.find(label); ok {
				return value
			}
			d.t.Fatalf("the demo ended (%v) without printing %q", d.err, label)
		case <-tick.C:
		}
	}
}

func (d *demoProcess) find(label string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, line := range d.stdout {
		if _, value, ok := strings.Cut(line, label+" "); ok {
			return strings.TrimSpace(value), true
		}
	}
	return "", false
}

// interrupt sends Ctrl-C and waits until the demo has torn down and exited
// with 0.
func (d *demoProcess) interrupt(ctx context.Context) {
	d.t.Helper()
	must(d.t, d.cmd.Process.Signal(os.Interrupt))
	select {
	case <-ctx.Done():
		d.t.Fatalf("the demo did not end after Ctrl-C: %v", ctx.Err())
	case <-d.done:
		if d.err != nil {
			d.t.Errorf("the demo ended with %v after Ctrl-C", d.err)
		}
	}
}
