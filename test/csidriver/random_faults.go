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

package csidriver

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RandomFaults make a share of ControllerExpandVolume and
// ControllerModifyVolume calls misbehave, drawn from a seeded source: the
// same seed gives the same sequence of faults for the same sequence of calls.
type RandomFaults struct {
	// Seed seeds the draws.
	Seed uint64
	// FailRate is the share of calls answered at once with one of Codes,
	// which leaves the volume as it was.
	FailRate float64
	// Codes are the errors of failed calls, drawn evenly; empty means
	// Unavailable, DeadlineExceeded and Internal.
	Codes []codes.Code
	// HangRate is the share of calls that hang for HangFor before they go on
	// as usual. A hang does not end when the caller gives up: like a backend
	// operation already under way, it finishes and changes the volume, and
	// the answer goes to nobody (unless a delay of SetDelay
	// follows, which does honour the caller).
	HangRate float64
	HangFor  time.Duration
	// Until ends the faults: calls that arrive later are served normally.
	// Zero means never.
	Until time.Time
}

// DefaultFaultCodes are the codes of RandomFaults.Codes when it is empty: a
// driver that is down, one that timed out on its own, and a plain failure.
var DefaultFaultCodes = []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.Internal}

// Hook returns the faults as a Hook, for SetHook of ControllerExpandVolume
// and of ControllerModifyVolume: installed for both, it draws from one
// source, so that the seed fixes the faults of the calls of both methods in
// their order of arrival.
func (f RandomFaults) Hook() Hook {
	if len(f.Codes) == 0 {
		f.Codes = DefaultFaultCodes
	}
	var mu sync.Mutex
	rnd := rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	return func(_ context.Context, req any) (any, bool, error) {
		if !f.Until.IsZero() && time.Now().After(f.Until) {
			return nil, false, nil
		}
		mu.Lock()
		p, code := rnd.Float64(), f.Codes[rnd.IntN(len(f.Codes))]
		mu.Unlock()
		switch {
		case p < f.FailRate:
			return nil, true, status.Errorf(code, "injected random fault %s for volume %q", code, volumeIDOf(req))
		case p < f.FailRate+f.HangRate:
			// Deliberately deaf to the caller's context: see HangRate.
			time.Sleep(f.HangFor)
		}
		return nil, false, nil
	}
}
