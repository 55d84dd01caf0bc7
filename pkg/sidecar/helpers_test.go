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

package sidecar

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/internal/freeport"
	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	// testDriver is the name the test CSI driver reports. The slash makes
	// the Lease name interesting.
	testDriver = "csi.example.com/x"
	// testNamespace holds the claims.
	testNamespace = "default"
	// waitTimeout bounds every wait for a condition: generous, because
	// -race on two cores is slow, and only spent when a test fails.
	waitTimeout = 30 * time.Second
	// pollInterval is how often a condition is checked.
	pollInterval = 10 * time.Millisecond
	// earlyWindow is how long a test gives run to return too early, where
	// it checks that run waits for something.
	earlyWindow = 300 * time.Millisecond
)

// TestMain applies the logging configuration once, before any test starts
// goroutines that log. options.Parse applies it on every call, which
// logsapi allows only once per process: later calls, all with the same
// default configuration, are made no-ops instead of errors. (Resetting it
// with logsapi.ResetForTest instead races with the goroutines of earlier
// runs that are still logging their way out.)
func TestMain(m *testing.M) {
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	if _, err := options.Parse(nil, io.Discard); err != nil {
		fmt.Fprintf(os.Stderr, "apply the logging configuration: %v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// newOptions parses the command line of a sidecar connected to d, serving
// diagnostics on a free local port, with fast retries. extra flags come
// last and so override the defaults given here.
func newOptions(t *testing.T, d *csidriver.Driver, extra ...string) *options.Options {
	t.Helper()
	var args []string
	if d != nil { // else extra names the socket
		args = append(args, "--csi-address="+d.Endpoint())
	}
	args = append(append(args,
		"--http-endpoint="+freeAddr(t),
		"--timeout=10s",
		"--workers=2",
		"--retry-interval-start=10ms",
		"--retry-interval-max=1s",
	), extra...)
	o, err := options.Parse(args, io.Discard)
	if err != nil {
		t.Fatalf("options.Parse(%q): %v", args, err)
	}
	return o
}

// freeAddr returns a local TCP address for the sidecar to bind, which no
// other process takes meanwhile.
func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := freeport.Get()
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// fakeClients returns the three API clients of the sidecar, all backed by
// one fake API server, as in a cluster.
func fakeClients(client *fake.Clientset) *clients {
	api := kubetest.Wrap(client)
	return &clients{work: api, events: api, leader: api}
}

// sidecar is one run of the sidecar in a goroutine.
type sidecar struct {
	t      *testing.T
	opts   *options.Options
	cancel context.CancelFunc
	done   chan struct{}
	err    error // valid once done is closed
}

// startSidecar runs run(ctx, o, cs) in a goroutine. When the test ends, the
// run is cancelled and waited for, so that no test leaks into the next.
func startSidecar(t *testing.T, o *options.Options, cs *clients) *sidecar {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	s := &sidecar{t: t, opts: o, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = run(ctx, o, cs)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(waitTimeout):
			t.Errorf("run did not return within %v of the end of the test", waitTimeout)
		}
	})
	return s
}

// wait returns run's error, failing the test when run does not return
// within timeout.
func (s *sidecar) wait(timeout time.Duration) error {
	s.t.Helper()
	select {
	case <-s.done:
		return s.err
	case <-time.After(timeout):
		s.t.Fatalf("run did not return within %v", timeout)
		return nil
	}
}

// running reports whether run has not returned yet.
func (s *sidecar) running() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// url returns the diagnostics URL of path.
func (s *sidecar) url(path string) string {
	return "http://" + s.opts.Addr() + path
}

// get fetches path from the diagnostics server.
func (s *sidecar) get(path string) (int, string, error) {
	return httpGet(s.url(path))
}

// waitHTTP waits until path answers code.
func (s *sidecar) waitHTTP(path string, code int) string {
	s.t.Helper()
	var body string
	waitFor(s.t, fmt.Sprintf("%s to answer %d", path, code), func() (bool, error) {
		got, b, err := s.get(path)
		if err != nil {
			return false, nil // not listening yet
		}
		body = b
		return got == code, nil
	})
	return body
}

// waitReadyz waits until /readyz answers 503 with a body that contains
// want, and returns the body.
func (s *sidecar) waitReadyz(want string) string {
	s.t.Helper()
	var body string
	waitFor(s.t, fmt.Sprintf("/readyz to answer 503 %q", want), func() (bool, error) {
		got, b, err := s.get("/readyz")
		if err != nil {
			return false, nil // not listening yet
		}
		body = b
		return got == 503 && strings.Contains(b, want), nil
	})
	return body
}

func httpGet(url string) (int, string, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// waitFor polls cond until it holds, fails or waitTimeout passes.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), pollInterval, waitTimeout, true,
		func(context.Context) (bool, error) { return cond() })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// returnsWithin waits up to timeout for run to return and reports whether
// it did. It bounds the wait of tests that check that run does not return
// too early.
func (s *sidecar) returnsWithin(timeout time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// claim is testobj's claim "name" of the volume "pv-<name>" the assertions read.
func claim(name, request, capacity string, opts ...testobj.ClaimOpt) *v1.PersistentVolumeClaim {
	return testobj.Claim(testNamespace, name, request, capacity, append([]testobj.ClaimOpt{testobj.VolumeName("pv-" + name)}, opts...)...)
}

// resizeObjects returns a claim "data" of driver that asks to grow from 1Gi
// to 2Gi, with its PV.
func resizeObjects(driver string) []runtime.Object {
	pvc := claim("data", "2Gi", "1Gi")
	return []runtime.Object{pvc, testobj.Volume(pvc, driver, "1Gi")}
}

// getClaim reads a claim from the fake API server.
func getClaim(ctx context.Context, client *fake.Clientset, name string) (*v1.PersistentVolumeClaim, error) {
	return client.CoreV1().PersistentVolumeClaims(testNamespace).Get(ctx, name, metav1.GetOptions{})
}

// getVolume reads a PV from the fake API server.
func getVolume(ctx context.Context, client *fake.Clientset, name string) (*v1.PersistentVolume, error) {
	return client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
}

// quantityIs reports whether list holds want as storage.
func quantityIs(list v1.ResourceList, want string) bool {
	q, ok := list[v1.ResourceStorage]
	return ok && q.Cmp(resource.MustParse(want)) == 0
}

// waitClaimFinished waits until the claim's capacity is want and its PV
// has grown to want.
func waitClaimFinished(t *testing.T, client *fake.Clientset, name, want string) {
	t.Helper()
	ctx := context.Background()
	waitFor(t, fmt.Sprintf("claim %s and its PV at %s", name, want), func() (bool, error) {
		pvc, err := getClaim(ctx, client, name)
		if err != nil {
			return false, err
		}
		pv, err := getVolume(ctx, client, pvc.Spec.VolumeName)
		if err != nil {
			return false, err
		}
		return quantityIs(pvc.Status.Capacity, want) && quantityIs(pv.Spec.Capacity, want), nil
	})
}
