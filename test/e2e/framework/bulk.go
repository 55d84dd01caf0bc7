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

package framework

import (
	"context"
	"sync"
	"sync/atomic"
)

// Parallel runs do(i) for i in [0, n) on the given number of goroutines and
// returns the first error; the others stop taking work after it. progress,
// when set, is called after each success with the number done so far.
func Parallel(ctx context.Context, n, goroutines int, do func(ctx context.Context, i int) error, progress func(done int)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range max(1, goroutines) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
					return
				}
				if d := done.Add(1); progress != nil {
					progress(int(d))
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}
