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
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	// The elector's metric leader_election_master_status, which the chart's
	// alert and dashboard read. The package links client-go's elector, so
	// it lives here and not with client-go's other metrics in run.go.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
)

// electionClient is what client-go's leader election lock takes: the two
// typed clients of client-go, which register every API group of
// Kubernetes in the binary. It lives apart from the other clients so that
// leader election without client-go's elector removes it whole.
type electionClient interface {
	CoreV1() corev1client.CoreV1Interface
	CoordinationV1() coordinationv1client.CoordinationV1Interface
}

type electionClients struct {
	core         corev1client.CoreV1Interface
	coordination coordinationv1client.CoordinationV1Interface
}

func (c electionClients) CoreV1() corev1client.CoreV1Interface { return c.core }

func (c electionClients) CoordinationV1() coordinationv1client.CoordinationV1Interface {
	return c.coordination
}

// newElectionClient makes the election's clients of config, sharing its
// transport and rate limiter.
func newElectionClient(config *rest.Config) (electionClient, error) {
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	coordination, err := coordinationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	return electionClients{core: core, coordination: coordination}, nil
}
