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

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"

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
