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
	"context"
	"fmt"
	"time"
)

// idleWindow is how long the resizer is watched idle before the grows.
// CPU time is counted in 10ms ticks, so 10s resolve 1ms per second.
const idleWindow = 10 * time.Second

// idleCPU is the resizer's CPU time per second over window, doing nothing.
func idleCPU(ctx context.Context, r *rig, window time.Duration) (time.Duration, error) {
	before, err := r.usage()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(window):
	}
	after, err := r.usage()
	if err != nil {
		return 0, err
	}
	return (after.CPU - before.CPU) * time.Second / window, nil
}

// waitWithProgress waits for the claims, printing progress every 15s.
func waitWithProgress(ctx context.Context, timeout time.Duration, w *claimWatch, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	go func() {
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		start := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				say("  %d/%d finished (%s)", w.count(), len(names), since(start))
			}
		}
	}()
	return w.wait(ctx, names...)
}

// drainEvents waits until want event writes of the resizer are in the
// audit log, or none came for 5s, and returns when the last was written.
func drainEvents(ctx context.Context, tail *auditTail, want int) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var last time.Time
	seen, quiet := 0, time.Now()
	for {
		if err := tail.poll(); err != nil {
			return last, err
		}
		n := 0
		for _, r := range tail.requests {
			if classify(r.requestKey) == classEvent {
				n++
				if r.At.After(last) {
					last = r.At
				}
			}
		}
		if n != seen {
			seen, quiet = n, time.Now()
		}
		if n >= want || time.Since(quiet) > 5*time.Second {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("wait for %d events (%d so far): %w", want, n, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// settle reads the audit log until nothing new came for a second: the
// resizer's watches are logged when they close, after it stopped.
func settle(ctx context.Context, tail *auditTail) error {
	seen, quiet := -1, time.Now()
	for time.Since(quiet) < time.Second {
		if err := tail.poll(); err != nil {
			return err
		}
		if len(tail.requests) != seen {
			seen, quiet = len(tail.requests), time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
