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
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// silentSocket listens on a unix socket, accepts every connection and never
// writes a byte: a driver that hangs before it speaks HTTP/2.
func silentSocket(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "silent.sock")
	lis, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return path
}

func TestConnectToSilentSocket(t *testing.T) {
	path := silentSocket(t)
	ctx, cancel := context.WithTimeout(testContext(t), time.Second)
	defer cancel()
	start := time.Now()
	c, err := Connect(ctx, path, callTimeout, nil, Hooks{})
	if err == nil {
		c.Close()
		t.Fatal("Connect to a socket that never speaks succeeded")
	}
	if elapsed := time.Since(start); elapsed > testTimeout/2 {
		t.Errorf("Connect returned after %s, want soon after its context ended (1s)", elapsed)
	}
	if !strings.Contains(err.Error(), "connect to CSI driver at") {
		t.Errorf("error %q does not say what it was doing", err)
	}
}

// TestExpandOnSilentSocket calls a socket that accepted the connection but
// never answers: Expand must give up at the call timeout with an uncertain
// error. Connect itself would not return on such a socket, so the client is
// built over a connection that does not wait to be ready.
func TestExpandOnSilentSocket(t *testing.T) {
	const timeout = 300 * time.Millisecond
	path := silentSocket(t)
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	watchDone := make(chan struct{})
	close(watchDone)
	c := &Client{address: path, timeout: timeout, conn: conn, controller: csi.NewControllerClient(conn), stopWatch: func() {}, watchDone: watchDone}
	t.Cleanup(func() { c.Close() })

	expandWithin(t, c, timeout)
}

// TestExpandWhenDriverGoesSilent connects to a real driver through a proxy
// that later swallows every byte both ways, as a driver that hangs with its
// socket open: the call must end at the timeout, uncertain.
func TestExpandWhenDriverGoesSilent(t *testing.T) {
	const timeout = 300 * time.Millisecond
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: "test.csi.example.com"})
	p := startFreezer(t, d.Endpoint())
	c, err := Connect(testContext(t), p.path, timeout, nil, Hooks{})
	if err != nil {
		t.Fatalf("Connect through the proxy: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if _, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: gi}); err != nil {
		t.Fatalf("Expand before the driver goes silent: %v", err)
	}

	p.frozen.Store(true)
	expandWithin(t, c, timeout)
	if n := len(d.Calls()); n != 1 {
		t.Errorf("driver got %d calls, want only the first", n)
	}
}

// expandWithin calls Expand on c and checks that it fails with an uncertain
// DeadlineExceeded soon after timeout.
func expandWithin(t *testing.T, c *Client, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	_, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: 2 * gi, Secrets: map[string]string{"k": "v"}})
	elapsed := time.Since(start)
	if status.Code(err) != codes.DeadlineExceeded || decide.ResizeRules.ClassOf(err) != decide.Uncertain {
		t.Fatalf("Expand error = %v (class %s), want an uncertain DeadlineExceeded", err, decide.ResizeRules.ClassOf(err))
	}
	if elapsed < timeout || elapsed > timeout+testTimeout/2 {
		t.Errorf("Expand returned after %s, want soon after the %s timeout", elapsed, timeout)
	}
	if want := `expand volume "vol-1" to 2147483648 bytes`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

// freezer is a unix socket proxy to a driver; once frozen it reads and drops
// everything, answering nothing and closing nothing.
type freezer struct {
	path   string
	frozen atomic.Bool
}

func startFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	p := &freezer{path: filepath.Join(t.TempDir(), "proxy.sock")}
	lis, err := net.Listen("unix", p.path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		lis.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			down, err := lis.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", target)
			if err != nil {
				down.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, down, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); p.pipe(up, down) }()
			go func() { defer wg.Done(); p.pipe(down, up) }()
		}
	}()
	return p
}

func (p *freezer) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
