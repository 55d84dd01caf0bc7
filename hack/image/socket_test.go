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
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/hack/image/ociread"
	"github.com/csi-resizer/csi-resizer/internal/freeport"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// nonroot is distroless' non-root user, which the image keeps for those who
// run it as non-root (the chart's non-root example).
const nonroot = 65532

// TestImageUserOpensARootDriversSocket is the image swap in a driver's pod:
// the driver runs as root and makes its socket as root does (umask 022:
// srwxr-xr-x root root), and the resizer binary runs as the user the
// image's config names. It must connect, as upstream's image (root) does.
// As distroless' non-root user (uid 65532) the same socket is refused, and
// the resizer says so, with the socket's owners and its own uid; and with
// the socket writable by its group, as the non-root recipe of the chart's
// README makes it, uid 65532 in that group connects.
func TestImageUserOpensARootDriversSocket(t *testing.T) {
	archive, bin := os.Getenv(envArchive), os.Getenv(envBinary)
	if archive == "" || bin == "" {
		t.Skipf("%s and %s are not set: make test-unit sets them, after make image and make build", envArchive, envBinary)
	}
	if os.Geteuid() != 0 {
		t.Skip("the driver must run as root and the resizer as other users: run as root (CI does)")
	}
	image, err := ociread.ImageIdentity(archive, "")
	must(t, err)
	if image.UID != 0 {
		t.Errorf("the image runs as %q (uid %d), want root as upstream's image: a root driver's socket lets only root connect", image.User, image.UID)
	}

	t.Run("the image's user", func(t *testing.T) {
		socket := rootDriverSocket(t, 0o022, 0)
		r := startResizer(t, bin, socket, syscall.Credential{Uid: image.UID, Gid: image.GID, Groups: image.Groups})
		r.waitLog(t, `"CSI driver is ready"`)
	})
	t.Run("uid 65532 is refused and says why", func(t *testing.T) {
		socket := rootDriverSocket(t, 0o022, 0)
		r := startResizer(t, bin, socket, syscall.Credential{Uid: nonroot, Gid: nonroot})
		line := r.waitLog(t, "connect: permission denied")
		for _, want := range []string{
			`"Waiting for the CSI driver's socket"`,
			`cannot connect to the CSI driver at \"` + socket + `\"`,
			"the socket is Srwxr-xr-x, owned by uid 0 gid 0",
			"this process runs as uid 65532 gid 65532",
		} {
			if !strings.Contains(line, want) {
				t.Errorf("log line %q, want it to say %q", line, want)
			}
		}
		code, body := r.get(t, "/readyz")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "connect: permission denied") {
			t.Errorf("/readyz = %d %q, want 503 saying permission denied", code, body)
		}
		if code, _ := r.get(t, "/healthz"); code != http.StatusOK {
			t.Errorf("/healthz = %d while waiting for the driver, want 200", code)
		}
	})
	t.Run("uid 65532 in the socket's writable group", func(t *testing.T) {
		socket := rootDriverSocket(t, 0o002, nonroot)
		r := startResizer(t, bin, socket, syscall.Credential{Uid: nonroot, Gid: nonroot})
		r.waitLog(t, `"CSI driver is ready"`)
	})
}

// rootDriverSocket serves a CSI driver on a socket that this process, root,
// creates with umask in a directory everyone may search. With group, the
// directory is set-group-ID and of that group, as kubelet makes a pod's
// emptyDir with fsGroup, so that the socket is of that group too.
func rootDriverSocket(t *testing.T, umask int, group int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "socket")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chown(dir, 0, group))
	mode := fs.FileMode(0o755)
	if group != 0 {
		mode |= fs.ModeSetgid
	}
	must(t, os.Chmod(dir, mode))
	socket := filepath.Join(dir, "csi.sock")

	old := syscall.Umask(umask)
	d, err := csidriver.Serve(socket, csidriver.Config{DriverName: "root.csi.example.com", ControllerExpand: true})
	syscall.Umask(old)
	must(t, err)
	t.Cleanup(d.Stop)

	info, err := os.Stat(socket)
	must(t, err)
	st := info.Sys().(*syscall.Stat_t)
	want := fs.ModeSocket | fs.FileMode(0o777&^umask)
	if info.Mode() != want || st.Uid != 0 || int(st.Gid) != group {
		t.Fatalf("the driver's socket is %v %d:%d, want %v 0:%d", info.Mode(), st.Uid, st.Gid, want, group)
	}
	return socket
}

// resizer is the resizer binary running as some user, with its log.
type resizer struct {
	addr string
	mu   sync.Mutex
	log  []string
	cond *sync.Cond
}

// startResizer runs bin as cred against socket. Its kubeconfig names an
// API server that is not there: the test is over once the driver is
// reached or refused.
func startResizer(t *testing.T, bin, socket string, cred syscall.Credential) *resizer {
	t.Helper()
	dir, err := os.MkdirTemp("", "resizer")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	must(t, os.WriteFile(kubeconfig, []byte(unreachableKubeconfig), 0o644))
	port, err := freeport.Get()
	must(t, err)
	r := &resizer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	r.cond = sync.NewCond(&r.mu)

	cmd := exec.Command(bin, "--csi-address="+socket, "--kubeconfig="+kubeconfig, "--http-endpoint="+r.addr, "--v=2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &cred}
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	done := make(chan struct{})
	go r.read(stderr, done)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		<-done
		if t.Failed() {
			t.Logf("the resizer's log:\n%s", strings.Join(r.lines(), "\n"))
		}
	})
	return r
}

// unreachableKubeconfig names a port nothing listens on.
const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`

func (r *resizer) read(stderr io.Reader, done chan<- struct{}) {
	defer close(done)
	s := bufio.NewScanner(stderr)
	s.Buffer(make([]byte, 64*1024), 1024*1024)
	for s.Scan() {
		r.mu.Lock()
		r.log = append(r.log, s.Text())
		r.cond.Broadcast()
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.log = append(r.log, "(end of the log)")
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *resizer) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// waitLog waits for a log line that contains want, and returns it.
func (r *resizer) waitLog(t *testing.T, want string) string {
	t.Helper()
	timer := time.AfterFunc(30*time.Second, func() {
		r.mu.Lock()
		r.log = append(r.log, "(timed out)")
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for seen := 0; ; seen++ {
		for seen >= len(r.log) {
			r.cond.Wait()
		}
		switch line := r.log[seen]; {
		case strings.Contains(line, want):
			return line
		case line == "(end of the log)" || line == "(timed out)":
			t.Fatalf("the resizer logged no line with %s: %s", want, line)
		}
	}
}

// get asks the resizer's diagnostics server for path.
func (r *resizer) get(t *testing.T, path string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s%s", r.addr, path))
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(body)
}
