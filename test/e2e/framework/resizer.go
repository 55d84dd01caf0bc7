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
	"fmt"
	"path/filepath"
)

// StartResizer runs the resizer binary as a process, as the image's user
// (tools.ResizerUser): name labels its log file in dir, and args follow the
// driver socket and kubeconfig.
func StartResizer(tools Tools, dir, name, kubeconfig, socket string, args ...string) (*Process, error) {
	all := append([]string{"--csi-address=" + socket, "--kubeconfig=" + kubeconfig}, args...)
	p, err := StartProcessAs(tools.ResizerUser, "", name, filepath.Join(dir, name+".log"), tools.Resizer, all...)
	if err != nil {
		return nil, fmt.Errorf("start resizer: %w", err)
	}
	return p, nil
}
