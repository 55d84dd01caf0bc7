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
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

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
	served, err := serves(api, attributeClassesGroupVersion, attributeClassesResource)
	if err != nil {
		return false, "", fmt.Errorf("discover %s %s: %w", attributeClassesGroupVersion, attributeClassesResource, err)
	}
	if !served {
		return false, fmt.Sprintf("the API server does not serve %s %s", attributeClassesGroupVersion, attributeClassesResource), nil
	}
	return true, "", nil
}

// serves reports whether the API server serves resource in groupVersion.
func serves(api kube.DiscoveryInterface, groupVersion, resource string) (bool, error) {
	list, err := api.ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true, nil
		}
	}
	return false, nil
}
