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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// startWatch runs an informer of lw that hands every object it adds or
// updates to see, and waits for its first list; what names it in errors.
func startWatch(ctx context.Context, lw *cache.ListWatch, obj runtime.Object, see func(any), what string) (cache.SharedIndexInformer, context.CancelFunc, error) {
	ctx, stop := context.WithCancel(ctx)
	informer := cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{})
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    see,
		UpdateFunc: func(_, obj any) { see(obj) },
	}); err != nil {
		stop()
		return nil, nil, err
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		stop()
		return nil, nil, fmt.Errorf("%s watch did not sync", what)
	}
	return informer, stop, nil
}
