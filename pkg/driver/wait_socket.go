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
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// dialInterval is how often a socket that cannot be opened is tried again:
// a driver that starts late is connected to within this time.
const dialInterval = 500 * time.Millisecond

// Bounds of the gap between two log lines of one unchanged reason.
const (
	firstRepeat = 2 * time.Second
	maxRepeat   = time.Minute
)

// awaitSocket dials the unix socket at path until it accepts a connection
// or ctx ends. Every failure goes to waiting (for /readyz). The log says
// each new reason at once, at the default verbosity, and an unchanged one
// again after 2 s, 4 s, 8 s... and then every minute.
func awaitSocket(ctx context.Context, address, path string, waiting func(error)) error {
	logger := klog.FromContext(ctx)
	ticker := time.NewTicker(dialInterval)
	defer ticker.Stop()
	var (
		repeat  logRepeat
		lastErr error
	)
	for {
		err := dialSocket(address, path, dialInterval)
		if err == nil {
			if lastErr != nil {
				logger.Info("The CSI driver's socket accepts connections now", "address", address)
			}
			return nil
		}
		lastErr = err
		waiting(err)
		if repeat.due(time.Now(), err.Error()) {
			logger.Error(err, "Waiting for the CSI driver's socket", "address", address)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up: %w)", lastErr, ctx.Err())
		case <-ticker.C:
		}
	}
}

// logRepeat spaces the log lines of one unchanged reason: a new reason is
// logged at once, the same one again after a gap that doubles up to
// maxRepeat.
type logRepeat struct {
	reason string
	next   time.Time
	gap    time.Duration
}

// due tells whether reason is to be logged at now, and notes that it is.
func (r *logRepeat) due(now time.Time, reason string) bool {
	switch {
	case reason != r.reason:
		r.reason, r.gap = reason, firstRepeat
	case now.Before(r.next):
		return false
	default:
		r.gap = min(2*r.gap, maxRepeat)
	}
	r.next = now.Add(r.gap)
	return true
}
