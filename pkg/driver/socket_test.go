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
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// TestDialSocketSaysWhy makes each way a socket cannot be opened for real
// and checks that the error names the address and the OS error, and what
// to check.
func TestDialSocketSaysWhy(t *testing.T) {
	tests := []struct {
		name string
		// path makes the situation in dir and returns the socket's path.
		path  func(t *testing.T, dir string) string
		errno syscall.Errno
		want  []string
	}{
		{name: "no such file", path: func(_ *testing.T, dir string) string { return filepath.Join(dir, "csi.sock") },
			errno: syscall.ENOENT, want: []string{"no such file or directory", "has not created its socket"}},
		{name: "no such directory", path: func(_ *testing.T, dir string) string { return filepath.Join(dir, "plugins", "csi.sock") },
			errno: syscall.ENOENT, want: []string{"no such file or directory", "mount the socket's directory"}},
		{name: "refused: a socket left behind", path: staleSocket,
			errno: syscall.ECONNREFUSED, want: []string{"connection refused", "no process accepts connections"}},
		{name: "a regular file", path: func(t *testing.T, dir string) string { return writeFile(t, filepath.Join(dir, "csi.sock")) },
			errno: syscall.ECONNREFUSED, want: []string{"the path is a regular file, not a socket"}},
		{name: "a directory", path: func(t *testing.T, dir string) string { return mkdir(t, filepath.Join(dir, "csi.sock")) },
			errno: syscall.ECONNREFUSED, want: []string{"the path is a directory, not a socket"}},
		{name: "a file on the path", path: func(t *testing.T, dir string) string {
			return filepath.Join(writeFile(t, filepath.Join(dir, "csi")), "csi.sock")
		},
			errno: syscall.ENOTDIR, want: []string{"not a directory"}},
		{name: "too long", path: func(_ *testing.T, dir string) string { return filepath.Join(dir, strings.Repeat("s", 120)+".sock") },
			errno: syscall.EINVAL, want: []string{"a unix socket's path may have at most 107"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t, t.TempDir())
			address := "unix://" + path
			err := dialSocket(address, path, time.Second)
			var serr *SocketError
			if !errors.As(err, &serr) {
				t.Fatalf("dialSocket = %v, want a *SocketError", err)
			}
			if !errors.Is(err, tc.errno) {
				t.Errorf("error %q does not wrap %v", err, tc.errno)
			}
			for _, want := range append([]string{`cannot connect to the CSI driver at "` + address + `"`}, tc.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want it to say %q", err, want)
				}
			}
		})
	}
}

// TestPermissionDeniedNamesOwners checks the words of a refusal on the
// socket a root driver makes (srwxr-xr-x root). The refusal itself needs a
// process of another uid: hack/image's socket test runs the binary as one.
func TestPermissionDeniedNamesOwners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "csi.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	denied := &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.EACCES)}
	why := whyNot(path, denied)
	for _, want := range []string{
		"connect: permission denied",
		"the socket is Srwxr-xr-x, owned by uid " + strconv.Itoa(os.Geteuid()),
		"this process runs as uid " + strconv.Itoa(os.Geteuid()),
		"connecting needs write permission on the socket",
	} {
		if !strings.Contains(why, want) {
			t.Errorf("whyNot = %q, want it to say %q", why, want)
		}
	}
}

func TestLogRepeat(t *testing.T) {
	start := time.Unix(1000, 0)
	var r logRepeat
	var logged []time.Duration
	for s := time.Duration(0); s <= 5*time.Minute; s += dialInterval {
		reason := "no such file"
		if s >= 4*time.Minute {
			reason = "permission denied" // a new reason is said at once
		}
		if r.due(start.Add(s), reason) {
			logged = append(logged, s)
		}
	}
	want := []time.Duration{0, 2 * time.Second, 6 * time.Second, 14 * time.Second, 30 * time.Second,
		62 * time.Second, 122 * time.Second, 182 * time.Second, 4 * time.Minute, 4*time.Minute + 2*time.Second,
		4*time.Minute + 6*time.Second, 4*time.Minute + 14*time.Second, 4*time.Minute + 30*time.Second}
	if len(logged) != len(want) {
		t.Fatalf("logged at %v, want %v", logged, want)
	}
	for i := range want {
		if logged[i] != want[i] {
			t.Fatalf("logged at %v, want %v", logged, want)
		}
	}
}

// staleSocket leaves a socket file whose listener is gone.
func staleSocket(t *testing.T, dir string) string {
	path := filepath.Join(dir, "csi.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	return path
}

func writeFile(t *testing.T, path string) string {
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mkdir(t *testing.T, path string) string {
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

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
