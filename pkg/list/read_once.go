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

package list

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/explain"
)

// readOnce is an explain.Reader that gets each Node and pod once, for the
// many claims of one node; warnings are those of the Objects read through
// it, each said once.
type readOnce struct {
	explain.Reader
	nodes    map[string]nodeRead
	pods     map[types.NamespacedName]podRead
	warnings []string
}

type nodeRead struct {
	node *v1.Node
	err  error
}

type podRead struct {
	pod *v1.Pod
	err error
}

func (r *readOnce) Node(ctx context.Context, name string) (*v1.Node, error) {
	got, ok := r.nodes[name]
	if !ok {
		got.node, got.err = r.Reader.Node(ctx, name)
		r.nodes[name] = got
	}
	return got.node, got.err
}

func (r *readOnce) Pod(ctx context.Context, namespace, name string) (*v1.Pod, error) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	got, ok := r.pods[key]
	if !ok {
		got.pod, got.err = r.Reader.Pod(ctx, namespace, name)
		r.pods[key] = got
	}
	return got.pod, got.err
}

// warn keeps the warnings of o that are new.
func (r *readOnce) warn(o *explain.Objects) {
	for _, w := range o.Warnings {
		if !slices.Contains(r.warnings, w) {
			r.warnings = append(r.warnings, w)
		}
	}
}
