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

package options

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// NodeNameEnv is the environment variable that names the node of a
// resizer run with --node-deployment; the pod sets it from spec.nodeName
// with the downward API, as for the provisioner's --node-deployment.
const NodeNameEnv = "NODE_NAME"

// validateNodeDeployment refuses what --node-deployment cannot run with,
// each problem with its reason.
func (o *Options) validateNodeDeployment() []string {
	var errs []string
	if o.LeaderElection {
		errs = append(errs, "--node-deployment and --leader-election cannot be used together: "+
			"with --node-deployment every node runs its own resizer for the volumes of that node, so there is no leader to elect")
	}
	switch problems := validation.IsDNS1123Subdomain(o.NodeName); {
	case o.NodeName == "":
		errs = append(errs, fmt.Sprintf("--node-deployment requires the %s environment variable, the name of the node the resizer runs on: "+
			"set it from the pod's spec.nodeName with the downward API", NodeNameEnv))
	case len(problems) > 0:
		errs = append(errs, fmt.Sprintf("invalid %s %q for --node-deployment: it is not a node name: %s", NodeNameEnv, o.NodeName, strings.Join(problems, ", ")))
	}
	return errs
}
