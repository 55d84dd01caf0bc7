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
	"flag"
	"sync"

	"github.com/kubernetes-csi/csi-lib-utils/standardflags"
	"k8s.io/klog/v2"
)

// automaxprocsOnce guards the registration of csi-lib-utils' automaxprocs
// flag, which lives on the global flag.CommandLine and panics if added twice.
var automaxprocsOnce sync.Once

// enableAutomaxprocs sets GOMAXPROCS from the container CPU quota with
// csi-lib-utils, the same code path as upstream's --automaxprocs.
func enableAutomaxprocs() {
	automaxprocsOnce.Do(func() {
		if flag.CommandLine.Lookup("automaxprocs") == nil {
			standardflags.AddAutomaxprocs(klog.Infof)
		}
	})
	standardflags.EnableAutomaxprocs()
}
