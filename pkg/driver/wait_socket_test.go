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

package driver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// TestConnectWaitsForALateDriver starts Connect before the driver: it says
// why it waits, at the default verbosity and to hooks.Waiting, and
// connects once the driver serves its socket.
func TestConnectWaitsForALateDriver(t *testing.T) {
	dir, err := os.MkdirTemp("", "csi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "csi.sock")
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx := klog.NewContext(testContext(t), logger)

	waited := make(chan error, 100)
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Connect(ctx, path, callTimeout, nil, Hooks{Waiting: func(err error) {
			select {
			case waited <- err:
			default:
			}
		}})
		done <- result{c, err}
	}()

	var first error
	select {
	case first = <-waited:
	case <-time.After(testTimeout):
		t.Fatal("hooks.Waiting was not called while the socket was missing")
	}
	var serr *SocketError
	if !errors.As(first, &serr) || !errors.Is(first, syscall.ENOENT) || serr.Address != path {
		t.Errorf("hooks.Waiting got %v, want a *SocketError for %s wrapping ENOENT", first, path)
	}

	d, err := csidriver.Serve(path, csidriver.Config{DriverName: "late.csi.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	var r result
	select {
	case r = <-done:
	case <-time.After(testTimeout):
		t.Fatal("Connect did not return once the driver served its socket")
	}
	if r.err != nil {
		t.Fatalf("Connect = %v, want it connected", r.err)
	}
	t.Cleanup(func() { r.c.Close() })
	if name, err := r.c.DriverName(ctx); err != nil || name != "late.csi.example.com" {
		t.Errorf("DriverName = %q, %v", name, err)
	}

	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	for _, want := range []string{
		`ERROR Waiting for the CSI driver's socket err="cannot connect to the CSI driver at \"` + path + `\": connect: no such file or directory`,
		`INFO The CSI driver's socket accepts connections now address="` + path + `"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}
}

// TestConnectGivesUpWithTheReason ends the wait with ctx: the error says
// why the socket could not be opened, not only that time ran out.
func TestConnectGivesUpWithTheReason(t *testing.T) {
	path := staleSocket(t, t.TempDir())
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	_, err := Connect(ctx, "unix://"+path, callTimeout, nil, Hooks{})
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect = %v, want ECONNREFUSED and the context's end", err)
	}
	if err != nil && !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Connect = %q, want it to say the connection was refused", err)
	}
}
