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

// The node scope decides which node's resizer handles a volume with
// --node-deployment: the instance of the one node that the volume's
// required node affinity pins it to.
//
// Whether a node can use a volume is decided as the scheduler and kubelet
// decide it (CheckNodeAffinity of k8s.io/component-helpers/storage/volume),
// by MatchNodeSelectorTerms against the node's labels: terms ORed,
// expressions ANDed; matchFields are not checked at all, so a term of
// matchFields alone selects every node.
//
// One volume must have one resizer, yet an instance cannot see which other
// nodes the affinity selects without watching every Node (n² for n nodes).
// So the rule is structural, from the volume and this node alone: the
// volume is this node's when the node can use it and every term pins it to
// this node, with an In expression of one value on a label that names one
// node: kubernetes.io/hostname, or any label whose value on this node is
// the node's name (the topology key of a node-local CSI driver, such as
// topology.topolvm.io/node, which kubelet copies onto the Node; node names
// are unique). An affinity that some term leaves open (a zone, Exists, two
// hostnames, matchFields only) or pins to another node may select several
// nodes: each instance refuses it, stricter than counting today's nodes,
// since a zone of one node gains a second when a node joins. A volume
// without a required node affinity is pinned to none: no instance takes it.

package ownership

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// HostnameLabel is the label kubelet sets to its node's host name.
const HostnameLabel = v1.LabelHostname

// Node is what the rule reads of a Node: its name and its labels. It is
// never changed once made: a new one replaces it.
type Node struct {
	Name   string
	Labels map[string]string
}

// NodeOf returns the name and labels of n, sharing the labels' map.
func NodeOf(n *v1.Node) *Node {
	return &Node{Name: n.Name, Labels: n.Labels}
}

// Result is what a volume's node affinity says of a node.
type Result int

const (
	// Elsewhere means the node cannot use the volume (or is not known):
	// another node's instance may take it, or none.
	Elsewhere Result = iota
	// Pinned means the node can use the volume and no other node can:
	// the node's instance takes it.
	Pinned
	// Shared means the node can use the volume but so may other nodes: no
	// instance takes it.
	Shared
	// NoAffinity means the volume has no required node affinity: every
	// node can use it, and no instance takes it.
	NoAffinity
)

// String returns the result's name, for logs.
func (r Result) String() string {
	if names := []string{"Elsewhere", "Pinned", "Shared", "NoAffinity"}; r >= 0 && int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// Match applies the rule of the package to pv and node; node is nil when
// it is not known. The reason says why, naming the term that leaves the
// volume open for Shared.
func Match(pv *v1.PersistentVolume, node *Node) (Result, string) {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return NoAffinity, "the volume has no required node affinity: any node can use it"
	}
	if node == nil {
		return Elsewhere, "this instance's Node is not known"
	}
	// CheckNodeAffinity of k8s.io/component-helpers/storage/volume, without
	// that package, which links client-go's scheme of every API group.
	matches, err := corev1helpers.MatchNodeSelectorTerms(&v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: node.Labels}}, pv.Spec.NodeAffinity.Required)
	if err == nil && !matches {
		err = errors.New("no matching NodeSelectorTerms")
	}
	if err != nil {
		return Elsewhere, fmt.Sprintf("node %s cannot use the volume: its node affinity does not select the node's labels (%v)", node.Name, err)
	}
	var pins []string
	for i, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue // selects no node, for the scheduler as here
		}
		pin, other := pinOf(term, node)
		switch {
		case pin != "":
			pins = append(pins, pin)
		case other != "":
			return Shared, fmt.Sprintf("term %d of its node affinity (%s) selects another node, by %s", i, describe(term), other)
		case len(term.MatchExpressions) == 0:
			return Shared, fmt.Sprintf("term %d of its node affinity (%s) selects every node: matchFields are not checked for volumes, the scheduler and kubelet read node labels only", i, describe(term))
		default:
			return Shared, fmt.Sprintf("term %d of its node affinity (%s) pins no node: it has no In expression with one value on %s or on a label whose value is the node's name", i, describe(term), HostnameLabel)
		}
	}
	return Pinned, fmt.Sprintf("its node affinity pins it to node %s (%s)", node.Name, strings.Join(slices.Compact(pins), "; "))
}

// pinOf looks in term for an expression that pins the volume to one node.
// pin is such an expression naming node; other, when pin is empty, one that
// names another node.
func pinOf(term v1.NodeSelectorTerm, node *Node) (pin, other string) {
	for _, e := range term.MatchExpressions {
		if e.Operator != v1.NodeSelectorOpIn || len(e.Values) == 0 || slices.ContainsFunc(e.Values, func(v string) bool { return v != e.Values[0] }) {
			continue
		}
		value := e.Values[0]
		ours, labelled := node.Labels[e.Key]
		switch {
		case e.Key != HostnameLabel && ours != node.Name:
			// Not a label that names nodes, as far as this node tells.
		case labelled && value == ours:
			return describeExpression(e), ""
		case other == "":
			other = describeExpression(e)
		}
	}
	return "", other
}

// describe writes a term as its expressions and fields, ANDed.
func describe(term v1.NodeSelectorTerm) string {
	var parts []string
	for _, e := range term.MatchExpressions {
		parts = append(parts, describeExpression(e))
	}
	for _, e := range term.MatchFields {
		parts = append(parts, "field "+describeExpression(e))
	}
	return strings.Join(parts, ", ")
}

// describeExpression writes e as kubectl would: key, operator, values.
func describeExpression(e v1.NodeSelectorRequirement) string {
	if len(e.Values) == 0 {
		return fmt.Sprintf("%s %s", e.Key, e.Operator)
	}
	return fmt.Sprintf("%s %s [%s]", e.Key, e.Operator, strings.Join(e.Values, ", "))
}

// Watcher knows an instance's own Node as its informer last saw it, and
// tells who asked when the node's labels change.
type Watcher struct {
	name    string
	current atomic.Pointer[Node]
	synced  func() bool

	mu       sync.Mutex
	onChange []func(old, cur *Node)
}

// NewWatcher returns a Watcher of the Node name that knows nothing yet:
// Watch feeds it from an informer, Set by hand.
func NewWatcher(name string) *Watcher {
	return &Watcher{name: name}
}

// Name is the name of the watched Node (NODE_NAME).
func (w *Watcher) Name() string { return w.name }

// Current returns the node as last seen; nil before it is seen, and after
// it is deleted.
func (w *Watcher) Current() *Node { return w.current.Load() }

// OnChange registers f, called with the node before and after each change
// of its labels (nil when it did not exist), in the informer's goroutine.
// Register before the informer starts.
func (w *Watcher) OnChange(f func(old, cur *Node)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onChange = append(w.onChange, f)
}

// Set makes n the current node and calls the OnChange functions when its
// labels (or its existence) changed.
func (w *Watcher) Set(n *Node) {
	old := w.current.Swap(n)
	if old == nil && n == nil || old != nil && n != nil && old.Name == n.Name && maps.Equal(old.Labels, n.Labels) {
		return
	}
	w.mu.Lock()
	fs := w.onChange
	w.mu.Unlock()
	for _, f := range fs {
		f(old, n)
	}
}

// HasSynced reports whether the informer has delivered the node as it was
// at start; true without an informer.
func (w *Watcher) HasSynced() bool {
	return w.synced == nil || w.synced()
}

// Watch feeds w from informer, which must hold w's Node only (see
// NewInformer) and not have started yet.
func (w *Watcher) Watch(informer cache.SharedIndexInformer) error {
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.seen,
		UpdateFunc: func(_, obj any) { w.seen(obj) },
		DeleteFunc: func(any) { w.Set(nil) },
	})
	if err != nil {
		return err
	}
	w.synced = reg.HasSynced
	return nil
}

func (w *Watcher) seen(obj any) {
	if n, ok := obj.(*v1.Node); ok && n.Name == w.name {
		w.Set(NodeOf(n))
	}
}

// NewInformer returns an informer of the one Node name (a field selector
// on metadata.name: list and watch of that object only), which keeps its
// name, UID, resource version and labels only.
func NewInformer(client kube.Interface, name string, resync time.Duration) (cache.SharedIndexInformer, error) {
	informer := kube.NewInformer(client, client.CoreV1().Nodes(), resync, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	})
	if err := informer.SetTransform(labelsOnly); err != nil {
		return nil, err
	}
	return informer, nil
}

// labelsOnly keeps of a Node what Watcher reads: its status (images,
// conditions) and annotations are most of it.
func labelsOnly(obj any) (any, error) {
	n, ok := obj.(*v1.Node)
	if !ok {
		return obj, nil
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, Labels: n.Labels,
	}}, nil
}
