//go:build chaos

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

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The faults of the schedule that kill a process: a resizer (kept running
// by its supervisor) and a CSI driver (started again by the run).

// killResizer sends SIGKILL to the running resizer of the supervisor; with
// busy, once it has a call in driver (or after a while).
func (r *chaosRun) killResizer(ctx context.Context, resizer *framework.Supervisor, driver *framework.Driver, busy bool) (string, error) {
	how := ""
	if busy && r.waitBusy(ctx, resizer, driver) {
		how = ", with a call in the driver"
	}
	var killed framework.Lifetime
	// Between its exit after a driver loss and its restart, no resizer
	// runs: wait for the next one.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		var ok bool
		killed, ok = resizer.Kill()
		return ok, nil
	})
	if err != nil {
		return "", fmt.Errorf("no resizer to kill: %w", err)
	}
	return fmt.Sprintf("pid %d after %s%s", killed.Pid, killed.End.Sub(killed.Start).Round(time.Millisecond), how), nil
}

// killDriver sends SIGKILL to the driver and starts it again after a
// random pause of up to driverMaxDown drawn from rnd; before, when set,
// runs just before the start.
func (r *chaosRun) killDriver(ctx context.Context, d *framework.Driver, rnd *rand.Rand, before func() error) (string, error) {
	d.Kill()
	runs := d.Lifetimes()
	down := time.Duration(rnd.Int64N(int64(r.sched.driverMaxDown)))
	timer := time.NewTimer(down)
	select {
	case <-ctx.Done():
		timer.Stop()
		return "", ctx.Err()
	case <-timer.C:
	}
	if before != nil {
		if err := before(); err != nil {
			return "", err
		}
	}
	if err := d.Start(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("pid %d, down for %s", runs[len(runs)-1].Pid, down.Round(time.Millisecond)), nil
}

// waitBusy waits up to 10s for the running resizer of the supervisor to
// have a call in driver, and reports whether it had.
func (r *chaosRun) waitBusy(ctx context.Context, resizer *framework.Supervisor, driver *framework.Driver) bool {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, run := resizer.Current()
		calls, err := driver.ControllerCalls()
		if err != nil {
			return false, nil
		}
		for _, c := range calls {
			if c.Pid == run.Pid && !c.Ended() {
				return true, nil
			}
		}
		return false, nil
	})
	return err == nil
}
