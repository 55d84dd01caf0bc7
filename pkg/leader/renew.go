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

package leader

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// renew renews the Lease every RetryPeriod until ctx ends (true) or the
// Lease is lost (false).
func (e *Elector) renew(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	for e.sleep(ctx, e.c.RetryPeriod) {
		if err := e.renewBefore(ctx, e.clock.Now().Add(e.c.RenewDeadline)); err != nil {
			if ctx.Err() != nil {
				return true
			}
			e.c.Metrics.Leading(false)
			logger.Info("Stopped leading", "reason", err.Error())
			return false
		}
		logger.V(5).Info("Renewed the Lease")
	}
	return true
}

// renewBefore tries to renew the Lease every RetryPeriod until it succeeds,
// the deadline passes or another replica is seen holding it.
func (e *Elector) renewBefore(ctx context.Context, deadline time.Time) error {
	for {
		// A call that hangs ends at the deadline too.
		callCtx, cancel := context.WithTimeout(ctx, deadline.Sub(e.clock.Now()))
		ok := e.tryAcquireOrRenew(callCtx)
		cancel()
		e.reportLeader()
		switch holder := e.holder(); {
		case ok:
			return nil
		case holder != e.c.Identity:
			return fmt.Errorf("the Lease is held by %q", holder)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		wait := min(e.c.RetryPeriod, deadline.Sub(e.clock.Now()))
		if wait <= 0 || !e.sleep(ctx, wait) || !e.clock.Now().Before(deadline) {
			return fmt.Errorf("could not renew the Lease within %v", e.c.RenewDeadline)
		}
	}
}
