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
	"fmt"
	"slices"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/controller"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// clients are the API clients of the sidecar. Events and leader election
// have their own, with their own rate limits, so that a burst of resizes
// neither delays its events nor starves the lease renewal: the leader
// election Lease and the node Lease renew through leader.
type clients struct {
	work, events, leader kube.Interface
}

// restConfig builds the client configuration from the flags.
func restConfig(o *options.Options) (*rest.Config, error) {
	var (
		config *rest.Config
		err    error
	)
	if o.Kubeconfig != "" || o.Master != "" {
		config, err = clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
	} else {
		config, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("build Kubernetes client configuration: %w", err)
	}
	config.QPS = float32(o.KubeAPIQPS)
	config.Burst = o.KubeAPIBurst
	config.ContentType = runtime.ContentTypeProtobuf
	config.UserAgent = options.ProgramName
	return config, nil
}

// newClients makes the three clients. Events get twice the work budget: a
// resize makes three writes and up to two events.
func newClients(config *rest.Config) (*clients, error) {
	events := rest.CopyConfig(config)
	events.QPS, events.Burst = 2*config.QPS, 2*config.Burst
	leader := rest.CopyConfig(config)
	if leader.QPS > 0 && leader.Burst > 0 {
		leader.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(leader.QPS, leader.Burst)
	}
	var c clients
	for _, x := range []struct {
		out    *kube.Interface
		config *rest.Config
		name   string
	}{
		{&c.work, config, "work"},
		{&c.events, events, "events"},
		{&c.leader, leader, "leader-election"},
	} {
		cs, err := kube.NewForConfig(x.config)
		if err != nil {
			return nil, fmt.Errorf("create %s client: %w", x.name, err)
		}
		*x.out = cs
	}
	return &c, nil
}

// newRecorder returns an event recorder that writes through the events
// client, with the upstream event source; an event whose name another
// writer took in the same instant is written under a name of its own
// (events.Distinct).
func newRecorder(client kube.Interface, driver string) (record.EventRecorder, func()) {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(events.Distinct(client.CoreV1()))
	r := b.NewRecorder(kube.Scheme, v1.EventSource{Component: events.Source(driver)})
	return r, b.Shutdown
}

// userOf asks the API server who client is (SelfSubjectReview, which every
// authenticated user may create), for the log of a refused write; "" when
// it cannot say.
func userOf(ctx context.Context, client kube.Interface) string {
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Cannot tell the resizer's user", "err", err)
		return ""
	}
	return review.Status.UserInfo.Username
}

// connectedDriver is the connected CSI driver and what it said about itself at
// start-up; nothing here is asked again per resize.
type connectedDriver struct {
	client *driver.Client
	name   string
	caps   driver.Capabilities
}

// connectDriver connects, waits until the driver is ready and reads its
// name and capabilities. waiting is told, while it waits, what for; lost is
// called when the connection drops.
func connectDriver(ctx context.Context, o *options.Options, mm metrics.CSIMetricsManager, waiting func(error), lost func()) (*connectedDriver, error) {
	client, err := driver.Connect(ctx, o.CSIAddress, o.Timeout, mm, driver.Hooks{Waiting: waiting, Lost: lost})
	if err != nil {
		return nil, err
	}
	waiting(fmt.Errorf("waiting for the CSI driver at %q to report ready (Probe)", o.CSIAddress))
	d := &connectedDriver{client: client}
	err = client.WaitReady(ctx)
	if err == nil {
		d.name, err = client.DriverName(ctx)
	}
	if err == nil {
		d.caps, err = client.Capabilities(ctx)
	}
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	return d, nil
}

// resizer returns what expands this driver's volumes, with each
// ControllerExpandVolume bounded by timeout; nil when the driver supports
// neither controller nor node expansion.
func (d *connectedDriver) resizer(timeout time.Duration) controller.Resizer {
	switch d.caps.Mode() {
	case driver.ModeController:
		return &driver.VolumeExpander{Driver: d.client, SingleNodeMultiWriter: d.caps.SingleNodeMultiWriter, Timeout: timeout}
	case driver.ModeNodeOnly:
		return driver.NodeOnly{}
	default:
		return nil
	}
}

// attributeClasses is the resource volume modification watches.
const (
	attributeClassesGroupVersion = "storage.k8s.io/v1"
	attributeClassesResource     = "volumeattributesclasses"
)

// modification says whether volume modification runs and, when it does
// not, why. It runs only when the gate is on, the driver advertises
// MODIFY_VOLUME and the API server serves storage.k8s.io/v1
// VolumeAttributesClasses; only then does the resizer watch them (and need
// the RBAC to). A discovery failure other than "not served" is an error:
// guessing could leave modification silently off.
func modification(o *options.Options, d *connectedDriver, api kube.DiscoveryInterface) (bool, string, error) {
	if !o.Features.Enabled(options.VolumeAttributesClass) {
		return false, "the feature gate VolumeAttributesClass is off", nil
	}
	if !d.caps.ControllerModify {
		return false, fmt.Sprintf("CSI driver %s does not advertise the controller capability MODIFY_VOLUME", d.name), nil
	}
	list, err := api.ServerResourcesForGroupVersion(attributeClassesGroupVersion)
	if err != nil && !apierrors.IsNotFound(err) {
		return false, "", fmt.Errorf("discover %s %s: %w", attributeClassesGroupVersion, attributeClassesResource, err)
	}
	if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == attributeClassesResource }) {
		return true, "", nil
	}
	return false, fmt.Sprintf("the API server does not serve %s %s", attributeClassesGroupVersion, attributeClassesResource), nil
}

// podWatchOf decides whether pods are watched, and why (for the start-up
// log): only for a driver that expands offline only, whose calls wait while
// a pod uses the claim. The pod watch is the largest cache and busiest
// stream, so an online driver (or one that does not say, which CSI reads as
// online) goes without: after a FailedPrecondition (volume in use) its
// claim is retried with backoff. node is the instance's node with
// --node-deployment ("" without): only its pods are then watched.
func podWatchOf(handleInUse bool, caps driver.Capabilities, node string) (bool, string) {
	const afterInUse = "after a FailedPrecondition (volume in use) answer the claim is retried with backoff"
	const offline = "the CSI driver advertises OFFLINE expansion only: its volumes are not expanded while a pod uses them"
	switch {
	case !handleInUse:
		return false, "--handle-volume-inuse-error is off"
	case caps.Mode() == driver.ModeUnsupported:
		return false, "the CSI driver does not expand volumes"
	case caps.OnlineExpansion:
		return false, "the CSI driver advertises ONLINE expansion: it expands volumes in use; " + afterInUse
	case !caps.OfflineExpansion:
		return false, "the CSI driver advertises no VolumeExpansion type, which reads as ONLINE; " + afterInUse
	case node != "":
		return true, offline + "; only the pods of node " + node + " (--node-deployment)"
	}
	return true, offline
}

// podWatchMessage is the start-up log line of podWatchOf's answer.
var podWatchMessage = map[bool]string{true: "Watching pods", false: "Not watching pods"}

// nodeOf returns the instance's Node with --node-deployment, nil without.
// It reads the Node once, so that a NODE_NAME that names no node, or a role
// that may not read nodes, stops the start with an error that says so
// instead of an informer that never syncs; and so that the PV cache knows
// the node's labels from its first object (Controller.keepsWhole).
func nodeOf(ctx context.Context, o *options.Options, client kube.Interface) (*v1.Node, error) {
	if !o.NodeDeployment {
		return nil, nil
	}
	name := o.NodeName
	node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("--node-deployment: Node %q does not exist: %s must be the name of the node the resizer runs on, the pod's spec.nodeName", name, options.NodeNameEnv)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--node-deployment: the resizer may not read its Node %q: its role needs get, list and watch on nodes: %w", name, err)
	case err != nil:
		return nil, fmt.Errorf("--node-deployment: read Node %q: %w", name, err)
	}
	klog.FromContext(ctx).Info("Node deployment: handling only the volumes whose node affinity pins them to this node", "node", name, "labels", len(node.Labels))
	return node, nil
}
