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
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

const (
	// testTimeout bounds every wait in these tests.
	testTimeout = 10 * time.Second
	// callTimeout is the per-call timeout of clients in these tests.
	callTimeout = 5 * time.Second
)

// connect starts a test driver with cfg and connects a client to it.
func connect(t *testing.T, cfg csidriver.Config) (*csidriver.Driver, *Client) {
	t.Helper()
	return connectWithTimeout(t, cfg, callTimeout)
}

func connectWithTimeout(t *testing.T, cfg csidriver.Config, timeout time.Duration) (*csidriver.Driver, *Client) {
	t.Helper()
	d := csidriver.StartForTest(t, cfg)
	c, err := Connect(testContext(t), d.Endpoint(), timeout, nil, Hooks{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return d, c
}

// testContext returns a context that ends with the test or after testTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitClosed waits until ch is closed, failing t after testTimeout.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// requestTimeoutCases are the ways a per-call timeout and the client's
// timeout combine, for Expand and Modify.
var requestTimeoutCases = []struct {
	name            string
	client, request time.Duration
	want            time.Duration
}{
	{name: "zero means the client's timeout", client: 3 * time.Second, want: 3 * time.Second},
	{name: "negative means the client's timeout", client: 3 * time.Second, request: -time.Second, want: 3 * time.Second},
	{name: "longer than the client's", client: 3 * time.Second, request: time.Hour, want: time.Hour},
	{name: "shorter than the client's", client: time.Hour, request: 3 * time.Second, want: 3 * time.Second},
}

// checkDeadline checks that the driver saw a deadline of about want after
// the call arrived at start; the request's own travel time is allowed for.
func checkDeadline(t *testing.T, start, deadline time.Time, want time.Duration) {
	t.Helper()
	if deadline.IsZero() {
		t.Fatal("the driver saw no deadline")
	}
	if got := deadline.Sub(start); got > want || got < want-time.Second {
		t.Errorf("the driver saw a deadline %v after the call arrived, want about %v", got, want)
	}
}
