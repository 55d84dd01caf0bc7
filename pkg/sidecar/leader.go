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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// healthPath is where the leader election health check is served.
const healthPath = "/healthz/leader-election"

// errLeaseLost makes the process exit when it stops leading without being
// told to: another replica may be working already.
var errLeaseLost = errors.New("lost the leader election lease")

// runLeading runs run while holding the Lease. On ctx's end it first lets
// run drain, then releases the Lease (when release is set), so the next
// leader never overlaps this one's work. When the Lease is lost, run is
// stopped and drained too before errLeaseLost is returned: the elector
// returns without waiting for its callback, which would otherwise still be
// calling the driver while the caller closes the connection under it.
func runLeading(ctx context.Context, o *options.Options, client electionClient, driver string, mux *http.ServeMux, release bool, run func(context.Context) error) error {
	lock, err := newLock(o, client, driver)
	if err != nil {
		return err
	}
	leCtx, stopElection := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElection()
	var runErr error // written before leading.done is closed
	leading := &callback{done: make(chan struct{})}
	health := leaderelection.NewLeaderHealthzAdaptor(o.RenewDeadline)
	serveHealth(mux, health)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		Name:            lock.Identity(),
		LeaseDuration:   o.LeaseDuration,
		RenewDeadline:   o.RenewDeadline,
		RetryPeriod:     o.RetryPeriod,
		ReleaseOnCancel: release,
		WatchDog:        health,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leadingCtx context.Context) {
				if !leading.start() {
					return
				}
				defer close(leading.done)
				klog.FromContext(ctx).Info("Became the leader", "lease", lock.Describe(), "identity", lock.Identity())
				work, stop := context.WithCancel(leadingCtx)
				defer stop()
				defer context.AfterFunc(ctx, stop)()
				runErr = run(work)
				stopElection()
			},
			OnStoppedLeading: func() {},
			OnNewLeader: func(id string) {
				klog.FromContext(ctx).V(2).Info("Leader", "identity", id, "lease", lock.Describe())
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	stopIfIdle := context.AfterFunc(ctx, func() {
		if !elector.IsLeader() {
			stopElection()
		}
	})
	defer stopIfIdle()
	elector.Run(leCtx)
	leading.wait()
	if runErr != nil {
		return runErr
	}
	if ctx.Err() == nil {
		return errLeaseLost
	}
	return nil
}

// serveHealth serves the leader election health check on mux, when there
// is a diagnostics server.
func serveHealth(mux *http.ServeMux, health *leaderelection.HealthzAdaptor) {
	if mux == nil {
		return
	}
	mux.Handle(healthPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := health.Check(r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprintln(w, "ok")
	}))
}

// callback follows the elector's OnStartedLeading goroutine, which
// elector.Run starts but does not wait for when the Lease is lost.
type callback struct {
	mu      sync.Mutex
	started bool // guarded by mu
	over    bool // guarded by mu: elector.Run returned
	done    chan struct{}
}

// start reports whether the callback may run; not once the elector is over.
func (c *callback) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started = !c.over
	return c.started
}

// wait marks the elector over and waits for a callback that started.
func (c *callback) wait() {
	c.mu.Lock()
	c.over = true
	started := c.started
	c.mu.Unlock()
	if started {
		<-c.done
	}
}

func newLock(o *options.Options, client electionClient, driver string) (resourcelock.Interface, error) {
	id, err := identity()
	if err != nil {
		return nil, err
	}
	lock, err := resourcelock.NewWithLabels(resourcelock.LeasesResourceLock, leaseNamespace(o), options.LeaseName(driver),
		client.CoreV1(), client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id}, o.LeaderElectionLabels)
	if err != nil {
		return nil, fmt.Errorf("leader election lock: %w", err)
	}
	return lock, nil
}

// identity is this replica's options.Identity: the host name (the pod name
// in a cluster) and a random part.
func identity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return options.Identity(host, hex.EncodeToString(b)), nil
}

// leaseNamespace is the namespace of the leader election Lease and of the
// node Lease: options.Options.LeaseNamespace, upstream's order.
func leaseNamespace(o *options.Options) string {
	return o.LeaseNamespace()
}
